#include "core/storage/range_map.h"
#include "core/base/fd_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xt::storage {

namespace {

// Layout: magic, u64 inode, u64 count, count x (u64 begin, u64 end), u64 FNV-1a of all before.
constexpr char kMagic[8] = {'X', 'T', 'R', 'A', 'N', 'G', 'E', '1'};

std::uint64_t fnv1a(const std::string& bytes, std::size_t n) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ static_cast<std::uint8_t>(bytes[i])) * 0x100000001b3ull;
    return h;
}

void putU64(std::string& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        out += static_cast<char>(v >> (8 * i));
}

std::uint64_t getU64(const std::string& in, std::size_t at) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | static_cast<std::uint8_t>(in[at + static_cast<std::size_t>(i)]);
    return v;
}

} // namespace

// ---- ByteRanges ----

void ByteRanges::add(std::uint64_t begin, std::uint64_t end) {
    if (begin >= end) return;
    // The first range that ends at or after `begin` (touching ranges merge).
    auto it = std::lower_bound(m_ranges.begin(), m_ranges.end(), begin,
                               [](const Range& r, std::uint64_t b) { return r.second < b; });
    auto last = it;
    while (last != m_ranges.end() && last->first <= end) {
        begin = std::min(begin, last->first);
        end = std::max(end, last->second);
        ++last;
    }
    it = m_ranges.erase(it, last);
    m_ranges.insert(it, {begin, end});
}

void ByteRanges::add(const ByteRanges& other) {
    for (const auto& [b, e] : other.m_ranges)
        add(b, e);
}

bool ByteRanges::covers(std::uint64_t begin, std::uint64_t end) const {
    if (begin >= end) return true;
    auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), begin,
                               [](std::uint64_t b, const Range& r) { return b < r.first; });
    if (it == m_ranges.begin()) return false;
    --it;
    return it->first <= begin && end <= it->second;
}

std::vector<ByteRanges::Range> ByteRanges::missing(std::uint64_t begin, std::uint64_t end) const {
    std::vector<Range> out;
    std::uint64_t pos = begin;
    for (const auto& [b, e] : m_ranges) {
        if (e <= pos) continue;
        if (b >= end) break;
        if (b > pos) out.emplace_back(pos, b);
        pos = std::max(pos, e);
        if (pos >= end) break;
    }
    if (pos < end) out.emplace_back(pos, end);
    return out;
}

std::uint64_t ByteRanges::bytes() const {
    std::uint64_t n = 0;
    for (const auto& [b, e] : m_ranges)
        n += e - b;
    return n;
}

// ---- LockedRangeMap ----

Result<LockedRangeMap> LockedRangeMap::open(const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (fd.get() < 0) return errnoStatus("cannot open the range map " + path, errno);
    while (::flock(fd.get(), LOCK_EX) != 0)
        if (errno != EINTR) return errnoStatus("cannot lock the range map " + path, errno);
    return LockedRangeMap(std::move(fd), path);
}

RangeMap LockedRangeMap::read() const {
    RangeMap map;
    struct stat st {};
    if (::fstat(m_fd.get(), &st) != 0 || st.st_size < 32 || st.st_size > (1 << 30)) return map;
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    const Result<std::size_t> done = readFullyAt(m_fd.get(), bytes.data(), bytes.size(), 0, m_path);
    if (!done.isOk() || done.value() < bytes.size()) return map;
    const std::uint64_t count = getU64(bytes, 16);
    if (std::memcmp(bytes.data(), kMagic, 8) != 0 || count > (bytes.size() - 32) / 16 ||
        bytes.size() != 32 + count * 16 ||
        getU64(bytes, bytes.size() - 8) != fnv1a(bytes, bytes.size() - 8))
        return map;
    RangeMap out;
    out.inode = getU64(bytes, 8);
    for (std::uint64_t i = 0; i < count; ++i)
        out.ranges.add(getU64(bytes, 24 + i * 16), getU64(bytes, 32 + i * 16));
    return out;
}

Status LockedRangeMap::write(const RangeMap& map) const {
    std::string bytes(kMagic, 8);
    putU64(bytes, map.inode);
    putU64(bytes, map.ranges.ranges().size());
    for (const auto& [b, e] : map.ranges.ranges()) {
        putU64(bytes, b);
        putU64(bytes, e);
    }
    putU64(bytes, fnv1a(bytes, bytes.size()));
    XT_RETURN_IF_ERROR(writeFullyAt(m_fd.get(), bytes.data(), bytes.size(), 0,
                                    "cannot write the range map " + m_path));
    if (::ftruncate(m_fd.get(), static_cast<off_t>(bytes.size())) != 0)
        return errnoStatus("cannot write the range map " + m_path, errno);
    return Status::ok();
}

std::string rangeMapPath(const std::string& cacheDir, const std::string& rel) {
    return cacheDir + "/.ranges/" + rel;
}

} // namespace xt::storage
