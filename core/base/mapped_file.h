#pragma once
// A read-only memory-mapped file. Empty files map to an empty span. `refresh()` remaps a file
// that has grown (a live trace being written), keeping the old view valid until it returns.

#include "core/base/fd_io.h"
#include "core/base/status.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace xt {

// Where a file mapping lies (mapFileReadOnly). Where the page cache holds a file in 2 MiB folios
// (files just written or read ahead, on kernels with large folios), a mapping on a 2 MiB boundary
// maps a whole folio at the first touch of any byte in it.
enum class MapPlacement {
    // One page past a 2 MiB boundary: a touch maps the kernel's fault-around piece (64 KiB).
    // Each lookup in a summary or a spilled index held 2 MiB on a boundary.
    Lookups,
    // On a 2 MiB boundary, for a scan of every byte: a folio is mapped by one entry, not 512. On
    // a VM whose page faults are dear, the first pass over 1 GB of small records took half as
    // long (docs/BENCHMARKS.md, P1).
    Scans,
};

class MappedFile {
public:
    MappedFile() = default;
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    static Result<MappedFile> open(const std::string& path,
                                   MapPlacement placement = MapPlacement::Lookups);
    // Maps the file again where `placement` puts it, unless it lies there already (views of the
    // old mapping are then invalid). refresh() keeps the placement.
    Status place(MapPlacement placement);

    // Re-reads the file size and remaps when it grew. Returns true when the size changed.
    // A file that shrank is an error (ErrorCode::Corrupt): trace files only ever grow.
    Result<bool> refresh();

    const std::string& path() const { return m_path; }
    std::uint64_t size() const { return m_size; }
    // The file's modification time (ns since the epoch) when it was mapped at size().
    std::int64_t mtimeNs() const { return m_mtimeNs; }
    std::span<const std::uint8_t> bytes() const { return {m_data, static_cast<size_t>(m_size)}; }

    enum class Access {
        Sequential, // front to back: read ahead
        Sparse,     // a few pages here and there: read only the pages touched
    };
    // Hints the kernel how bytes [offset, size()) will be read.
    void advise(Access access, std::uint64_t offset = 0) const;
    // Drops this process's pages of bytes [offset, offset + length) (the whole pages inside it;
    // the page cache keeps them), so reading a large file front to back does not grow the
    // resident set. The bytes stay readable: a later access maps them in again.
    void release(std::uint64_t offset, std::uint64_t length) const;

private:
    Status map(std::uint64_t size);
    void unmap();

    std::string m_path;
    UniqueFd m_fd;
    const std::uint8_t* m_data = nullptr;
    std::uint64_t m_size = 0;
    std::int64_t m_mtimeNs = 0;
    MapPlacement m_placement = MapPlacement::Lookups;
};

// What MappedFile::release does, for `size` bytes at `data` of any read-only file mapping (the
// Chrome importer maps its text with zero padding after it; an index reads its records inside a
// mapped summary): the whole pages of [offset, offset + length), and the page holding `size`
// when the range reaches it.
void releaseMappedPages(const void* data, std::uint64_t size, std::uint64_t offset,
                        std::uint64_t length);

// Maps the whole pages of [offset, offset + length) of a read-only mapping of `size` bytes at
// `data` in one call (MADV_POPULATE_READ, reading what a touch would read), for a scan about to
// read every byte of them: a touch of an unmapped page faults for a 64 KiB piece at a time (a
// 1 GB scan on a VM whose faults are dear: 80-100 ms less). Nothing before Linux 5.14.
void populateMappedPages(const void* data, std::uint64_t size, std::uint64_t offset,
                         std::uint64_t length);

// mmap(PROT_READ, MAP_SHARED) of `size` bytes of `fd` from offset 0, placed as `placement`
// says; MAP_FAILED when it cannot be mapped.
void* mapFileReadOnly(int fd, std::uint64_t size, MapPlacement placement = MapPlacement::Lookups);

} // namespace xt
