#pragma once
// The JSON text of a trace file, decompressed when needed and followed by at least kPadding
// readable bytes (what simdjson needs). Compression is detected from magic bytes by sniffBytes
// (core/base/byte_format.h): gzip, zip, else plain text. Plain files stay memory-mapped, followed
// by zero pages, so even they can be parsed in place (and args are read back from the mapping);
// a windowed import reads its windows from the file instead (copyText).

#include "core/base/fd_io.h"
#include "core/base/progress.h"
#include "core/base/status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace xt::timeline {

enum class TraceContainer { Plain, Gzip, Zip, StepStats };
const char* traceContainerName(TraceContainer c);

class TraceBytes {
public:
    static constexpr std::size_t kPadding = 64;

    TraceBytes() = default;
    TraceBytes(TraceBytes&&) noexcept = default;
    TraceBytes& operator=(TraceBytes&&) noexcept = default;

    // Reads `path`. A truncated gzip stream keeps what could be inflated and sets truncated().
    // Compressed input that inflates (or a zip entry that claims to) past maxInflated bytes is
    // refused with Unsupported naming the limit, before the memory is spent.
    static Result<TraceBytes> load(const std::string& path, const ProgressCallback& progress = {},
                                   std::uint64_t maxInflated = UINT64_MAX);
    // Same from bytes in memory (tests, network sources).
    static Result<TraceBytes> fromMemory(std::string bytes, const ProgressCallback& progress = {},
                                         std::uint64_t maxInflated = UINT64_MAX);

    // Marks text produced from another format (e.g. StepStats turned into JSON) and the size
    // of that original input, for the import report.
    void setOrigin(TraceContainer c, std::uint64_t inputSize) {
        m_container = c;
        m_inputSize = inputSize;
    }

    std::string_view text() const { return m_text; }
    // Gives back the resident pages of text()[begin, end) of a mapped file (whole pages only);
    // touched again, they are read from the file. Text held in memory is kept.
    void releasePages(std::size_t begin, std::size_t end) const;
    // Copies text()[begin, end) to `out`. A mapped file is read (pread): the kernel copies from
    // its page cache, and no page of the mapping is touched. On a VM whose page-table work is
    // dear that took 200 ms for 1 GB, against 700-840 ms for a copy out of the mapping.
    void copyText(std::size_t begin, std::size_t end, char* out) const;
    // Closes the mapped file (copyText copies from the mapping after this): an import is done
    // with it, and a store should not hold a descriptor for its text.
    void closeFile() { m_file.reset(); }
    // How many readable bytes follow text().data() + offset (text and padding).
    std::size_t capacityFrom(std::size_t offset) const { return m_capacity - offset; }
    TraceContainer container() const { return m_container; }
    std::uint64_t inputSize() const { return m_inputSize; }
    bool truncated() const { return m_truncated; }

private:
    static Result<TraceBytes> decode(std::string_view raw, const ProgressCallback& progress,
                                     std::uint64_t maxInflated);

    std::shared_ptr<const void> m_mapping; // plain files: the padded mapping
    UniqueFd m_file;                       // plain files, while they are read
    std::shared_ptr<std::string> m_owned;  // inflated text + padding
    std::string_view m_text;
    std::size_t m_capacity = 0;
    TraceContainer m_container = TraceContainer::Plain;
    std::uint64_t m_inputSize = 0;
    bool m_truncated = false;
};

} // namespace xt::timeline
