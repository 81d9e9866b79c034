#include "core/timeline/trace_bytes.h"

#include "core/base/byte_format.h"
#include "core/base/fd_io.h"
#include "core/base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace xt::timeline {

const char* traceContainerName(TraceContainer c) {
    switch (c) {
    case TraceContainer::Plain:
        return "json";
    case TraceContainer::Gzip:
        return "gzip";
    case TraceContainer::Zip:
        return "zip";
    case TraceContainer::StepStats:
        return "stepstats";
    }
    return "?";
}

namespace {

ByteFormat containerOf(std::string_view raw) {
    return sniffBytes(raw.substr(0, kSniffBytes), raw.size());
}

bool isCompressed(std::string_view raw) {
    const ByteFormat f = containerOf(raw);
    return f == ByteFormat::Gzip || f == ByteFormat::Zip;
}

// Inflates every gzip member of `raw` into `out`. Returns false when the stream ends early.
Status tooLarge(const char* what, std::uint64_t limit) {
    return Status(ErrorCode::Unsupported, std::string(what) + " inflates past the " +
                                              std::to_string(limit) +
                                              "-byte limit (ImportOptions::maxInflatedBytes)");
}

Result<bool> inflateGzip(std::string_view raw, std::string& out, const ProgressCallback& progress,
                         std::uint64_t maxInflated) {
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status(ErrorCode::Internal, "inflateInit2");
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(raw.size(), 1u << 30));
    std::size_t consumedBase = 0;
    out.reserve(std::min<std::uint64_t>(raw.size() * 4, maxInflated) + TraceBytes::kPadding);
    bool complete = false;
    std::size_t lastReport = 0;
    for (;;) {
        if (out.size() > maxInflated) {
            inflateEnd(&zs);
            return tooLarge("gzip data", maxInflated);
        }
        // Grow to at most 1 MiB past the limit (saturating: "no limit" is UINT64_MAX).
        const std::uint64_t ceiling = std::max<std::uint64_t>(maxInflated, 1u << 20);
        if (out.capacity() - out.size() < (1u << 20))
            out.reserve(std::min<std::uint64_t>(
                out.capacity() * 2,
                ceiling > UINT64_MAX - (1u << 20) ? UINT64_MAX : ceiling + (1u << 20)));
        const std::size_t before = out.size();
        const std::size_t room = out.capacity() - before;
        out.resize(out.capacity());
        zs.next_out = reinterpret_cast<Bytef*>(out.data() + before);
        zs.avail_out = static_cast<uInt>(std::min<std::size_t>(room, 1u << 30));
        const int rc = inflate(&zs, Z_NO_FLUSH);
        out.resize(before + (std::min<std::size_t>(room, 1u << 30) - zs.avail_out));
        const std::size_t consumed =
            consumedBase + (zs.next_in - reinterpret_cast<const Bytef*>(raw.data() + consumedBase));
        if (zs.avail_in == 0 && consumed < raw.size()) {
            consumedBase = consumed;
            zs.avail_in = static_cast<uInt>(std::min<std::size_t>(raw.size() - consumed, 1u << 30));
        }
        if (consumed - lastReport > (8u << 20)) {
            lastReport = consumed;
            if (!reportProgress(progress, consumed, raw.size(), "inflating")) {
                inflateEnd(&zs);
                return Status(ErrorCode::Cancelled, "cancelled");
            }
        }
        if (rc == Z_STREAM_END) {
            complete = true;
            // Concatenated gzip members: go on when more input follows.
            std::size_t rest = raw.size() - consumed;
            if (rest >= 2 && containerOf(raw.substr(consumed)) == ByteFormat::Gzip) {
                inflateReset(&zs);
                complete = false;
                continue;
            }
            break;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0) break; // input ended mid-stream
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            inflateEnd(&zs);
            if (out.empty()) return Status(ErrorCode::Corrupt, "gzip data is corrupt");
            return false; // keep what was inflated before the damage
        }
    }
    inflateEnd(&zs);
    return complete;
}

Result<std::string> unzipFirstEntry(std::string_view raw, std::uint64_t maxInflated) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(raw.data(), raw.size(), 0, &err);
    if (!src) return Status(ErrorCode::Internal, "zip_source_buffer_create failed");
    zip_t* za = zip_open_from_source(src, ZIP_RDONLY, &err);
    if (!za) {
        zip_source_free(src);
        std::string msg = zip_error_strerror(&err);
        zip_error_fini(&err);
        return Status(ErrorCode::Corrupt, "zip archive: " + msg);
    }
    // The first entry whose name ends in .json, else the first regular entry.
    const zip_int64_t n = zip_get_num_entries(za, 0);
    zip_int64_t pick = -1;
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* name = zip_get_name(za, i, 0);
        if (!name) continue;
        std::string_view nm(name);
        if (!nm.empty() && nm.back() == '/') continue;
        if (pick < 0) pick = i;
        if (nm.size() >= 5 && nm.substr(nm.size() - 5) == ".json") {
            pick = i;
            break;
        }
    }
    if (pick < 0) {
        zip_close(za);
        return Status(ErrorCode::Corrupt, "zip archive holds no file");
    }
    zip_stat_t st;
    zip_stat_init(&st);
    zip_stat_index(za, pick, 0, &st);
    zip_file_t* zf = zip_fopen_index(za, pick, 0);
    if (!zf) {
        zip_close(za);
        return Status(ErrorCode::Corrupt, "cannot open zip entry");
    }
    if ((st.valid & ZIP_STAT_SIZE) && st.size > maxInflated) {
        zip_fclose(zf);
        zip_close(za);
        return tooLarge("zip entry", maxInflated);
    }
    std::string out;
    // The size is the archive's claim: reserve no more than the input could plausibly hold.
    out.reserve(
        std::min<std::uint64_t>(st.valid & ZIP_STAT_SIZE ? st.size : 0, raw.size() * 1032ull) +
        TraceBytes::kPadding);
    char buf[1 << 16];
    for (;;) {
        zip_int64_t got = zip_fread(zf, buf, sizeof buf);
        if (got < 0) {
            zip_fclose(zf);
            zip_close(za);
            return Status(ErrorCode::Corrupt, "zip entry is corrupt");
        }
        if (got == 0) break;
        if (out.size() + static_cast<std::uint64_t>(got) > maxInflated) {
            zip_fclose(zf);
            zip_close(za);
            return tooLarge("zip entry", maxInflated);
        }
        out.append(buf, static_cast<std::size_t>(got));
    }
    zip_fclose(zf);
    zip_close(za);
    return out;
}

} // namespace

Result<TraceBytes> TraceBytes::decode(std::string_view raw, const ProgressCallback& progress,
                                      std::uint64_t maxInflated) {
    TraceBytes tb;
    tb.m_inputSize = raw.size();
    auto owned = std::make_shared<std::string>();
    const ByteFormat format = containerOf(raw);
    if (format == ByteFormat::Gzip) {
        tb.m_container = TraceContainer::Gzip;
        XT_ASSIGN_OR_RETURN(const bool complete, inflateGzip(raw, *owned, progress, maxInflated));
        tb.m_truncated = !complete;
    } else if (format == ByteFormat::Zip) {
        tb.m_container = TraceContainer::Zip;
        XT_ASSIGN_OR_RETURN(*owned, unzipFirstEntry(raw, maxInflated));
    } else {
        return Status(ErrorCode::Internal, "decode called on plain text");
    }
    const std::size_t n = owned->size();
    owned->append(kPadding, '\0');
    tb.m_owned = std::move(owned);
    tb.m_text = std::string_view(tb.m_owned->data(), n);
    tb.m_capacity = tb.m_owned->size();
    return tb;
}

namespace {

// A read-only file mapping followed by at least kPadding zero bytes: an anonymous region is
// reserved first and the file mapped over its start, so the bytes after the file's last page
// are readable zeros instead of SIGBUS.
struct PaddedMapping {
    void* base = MAP_FAILED;
    std::size_t length = 0;
    ~PaddedMapping() {
        if (base != MAP_FAILED) munmap(base, length);
    }
};

} // namespace

Result<TraceBytes> TraceBytes::load(const std::string& path, const ProgressCallback& progress,
                                    std::uint64_t maxInflated) {
    UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    const int fd = file.get();
    if (fd < 0) return errnoStatus("cannot open " + path, errno);
    struct stat st {};
    if (fstat(fd, &st) != 0) return errnoStatus("cannot stat " + path, errno);
    if (S_ISDIR(st.st_mode)) return Status(ErrorCode::InvalidArgument, path + " is a directory");
    const auto size = static_cast<std::size_t>(st.st_size);
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    auto map = std::make_shared<PaddedMapping>();
    map->length = (size + kPadding + page - 1) / page * page;
    map->base = mmap(nullptr, map->length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map->base == MAP_FAILED) return errnoStatus("cannot reserve memory for " + path, errno);
    if (size > 0 && mmap(map->base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
        return errnoStatus("cannot map " + path, errno);
    if (size > 0) madvise(map->base, size, MADV_SEQUENTIAL);
    std::string_view raw(static_cast<const char*>(map->base), size);
    if (isCompressed(raw)) return decode(raw, progress, maxInflated);
    TraceBytes tb;
    tb.m_file = std::move(file);
    tb.m_inputSize = size;
    tb.m_text = raw;
    tb.m_capacity = map->length;
    tb.m_mapping = std::shared_ptr<const void>(map, map->base);
    return tb;
}

void TraceBytes::releasePages(std::size_t begin, std::size_t end) const {
    if (m_mapping && begin < end)
        releaseMappedPages(m_text.data(), m_text.size(), begin, end - begin);
}

void TraceBytes::copyText(std::size_t begin, std::size_t end, char* out) const {
    std::size_t done = 0;
    if (m_file.get() >= 0 && begin < end) {
        const Result<std::size_t> read = readFullyAt(m_file.get(), out, end - begin, begin, "");
        if (read.isOk()) done = read.value();
    }
    // Text in memory, or what the file would not give (a read error, a file cut short since it
    // was mapped): copied from the text, as it was before files were read.
    std::memcpy(out + done, m_text.data() + begin + done, end - begin - done);
}

Result<TraceBytes> TraceBytes::fromMemory(std::string bytes, const ProgressCallback& progress,
                                          std::uint64_t maxInflated) {
    if (isCompressed(bytes)) return decode(bytes, progress, maxInflated);
    TraceBytes tb;
    tb.m_inputSize = bytes.size();
    const std::size_t n = bytes.size();
    bytes.append(kPadding, '\0');
    tb.m_owned = std::make_shared<std::string>(std::move(bytes));
    tb.m_text = std::string_view(tb.m_owned->data(), n);
    tb.m_capacity = tb.m_owned->size();
    return tb;
}

} // namespace xt::timeline
