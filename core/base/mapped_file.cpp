#include "core/base/mapped_file.h"
#include "core/base/huge_pages.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace xt {

MappedFile::~MappedFile() {
    unmap(); // before m_fd closes
}

namespace {

std::int64_t mtimeNsOf(const struct stat& st) {
    return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

} // namespace

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_fd(std::move(other.m_fd)),
      m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)),
      m_mtimeNs(other.m_mtimeNs), m_placement(other.m_placement) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        unmap();
        m_path = std::move(other.m_path);
        m_fd = std::move(other.m_fd);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_mtimeNs = other.m_mtimeNs;
        m_placement = other.m_placement;
    }
    return *this;
}

namespace {
// A run of many ranks maps a file per part and keeps its descriptor (to follow it as it grows):
// 1024 ranks of 3 parts need more than the usual soft limit of 1024 descriptors. The first time
// one runs out, the soft limit is raised to the hard one. True when it was raised now.
bool raiseOpenFileLimit() {
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    rlimit r{};
    if (::getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= r.rlim_max) return false;
    r.rlim_cur = r.rlim_max;
    return ::setrlimit(RLIMIT_NOFILE, &r) == 0;
}
} // namespace

Result<MappedFile> MappedFile::open(const std::string& path, MapPlacement placement) {
    MappedFile f;
    f.m_path = path;
    f.m_placement = placement;
    f.m_fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.m_fd.get() < 0 && errno == EMFILE && raiseOpenFileLimit())
        f.m_fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.m_fd.get() < 0) return errnoStatus("cannot open " + path, errno);
    struct stat st {};
    if (::fstat(f.m_fd.get(), &st) != 0) return errnoStatus("cannot stat " + path, errno);
    if (!S_ISREG(st.st_mode)) return Status(ErrorCode::InvalidArgument, path + " is not a file");
    XT_RETURN_IF_ERROR(f.map(static_cast<std::uint64_t>(st.st_size)));
    f.m_mtimeNs = mtimeNsOf(st);
    return f;
}

Result<bool> MappedFile::refresh() {
    struct stat st {};
    if (::fstat(m_fd.get(), &st) != 0) return errnoStatus("cannot stat " + m_path, errno);
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size == m_size) return false;
    m_mtimeNs = mtimeNsOf(st);
    if (size < m_size)
        return Status(ErrorCode::Corrupt, m_path + " shrank from " + std::to_string(m_size) +
                                              " to " + std::to_string(size) + " bytes");
    unmap();
    XT_RETURN_IF_ERROR(map(size));
    return true;
}

Status MappedFile::place(MapPlacement placement) {
    if (placement == m_placement) return Status::ok();
    m_placement = placement;
    const std::uint64_t size = m_size;
    unmap();
    return map(size);
}

void MappedFile::advise(Access access, std::uint64_t offset) const {
    if (!m_data || offset >= m_size) return;
    static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t first = offset / page * page; // the mapping is page-aligned
    ::madvise(const_cast<std::uint8_t*>(m_data) + first, m_size - first,
              access == Access::Sequential ? MADV_SEQUENTIAL : MADV_RANDOM);
}

void MappedFile::release(std::uint64_t offset, std::uint64_t length) const {
    releaseMappedPages(m_data, m_size, offset, length);
}

void releaseMappedPages(const void* data, std::uint64_t size, std::uint64_t offset,
                        std::uint64_t length) {
    if (!data || offset >= size) return;
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto base = reinterpret_cast<std::uintptr_t>(data);
    const std::uint64_t end = std::min(size, offset + std::min(length, size - offset));
    const std::uintptr_t first = (base + offset + page - 1) / page * page;
    const std::uintptr_t last = end == size ? base + end : (base + end) / page * page;
    if (last <= first) return;
    // A read-only file mapping whose pages were never written: dropping them loses nothing.
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void populateMappedPages(const void* data, std::uint64_t size, std::uint64_t offset,
                         std::uint64_t length) {
#ifdef MADV_POPULATE_READ
    if (!data || offset >= size) return;
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto base = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (base + offset) / page * page;
    const std::uintptr_t last = base + offset + std::min(length, size - offset);
    // EINVAL before 5.14; EFAULT past the file's end (a file truncated under its mapping): the
    // scan's own touches report what they find.
    (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_READ);
#else
    (void)data, (void)size, (void)offset, (void)length;
#endif
}

void* mapFileReadOnly(int fd, std::uint64_t size, MapPlacement placement) {
    static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    void* at = size < kHugePageBytes
                   ? nullptr
                   : reserveOnHugePageBoundary(size, placement == MapPlacement::Lookups ? page : 0);
    if (!at) return ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    void* p = ::mmap(at, size, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        const int err = errno;
        ::munmap(at, size);
        errno = err;
    }
    return p;
}

Status MappedFile::map(std::uint64_t size) {
    m_size = size;
    if (size == 0) return Status::ok();
    void* p = mapFileReadOnly(m_fd.get(), size, m_placement);
    if (p == MAP_FAILED) {
        m_size = 0;
        return errnoStatus("cannot map " + m_path, errno);
    }
    m_data = static_cast<const std::uint8_t*>(p);
    return Status::ok();
}

void MappedFile::unmap() {
    if (m_data) ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
    m_data = nullptr;
}

} // namespace xt
