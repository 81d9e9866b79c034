#include "core/base/huge_pages.h"

#include <new>
#include <sys/mman.h>
#include <unistd.h>

namespace xt {

namespace {

std::size_t mappedBytes(std::size_t bytes) {
    return (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
}

} // namespace

void* reserveOnHugePageBoundary(std::size_t size, std::size_t shift) {
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t pages = (size + page - 1) / page * page;
    const std::uintptr_t span = pages + kHugePageBytes + shift;
    if (pages < size || span < pages) return nullptr;
    // Room to slide onto the boundary; what lies outside the reservation is unmapped again.
    void* reserved =
        ::mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) return nullptr;
    const auto base = reinterpret_cast<std::uintptr_t>(reserved);
    const std::uintptr_t at = ((base + kHugePageBytes - 1) & ~(kHugePageBytes - 1)) + shift;
    if (at > base) ::munmap(reserved, at - base);
    if (base + span > at + pages)
        ::munmap(reinterpret_cast<void*>(at + pages), base + span - at - pages);
    return reinterpret_cast<void*>(at);
}

void* allocateHugePageBlock(std::size_t bytes) {
    if (bytes < kHugePageBlockBytes) return ::operator new(bytes);
    const std::size_t size = mappedBytes(bytes);
    void* at = size < bytes ? nullptr : reserveOnHugePageBoundary(size, 0);
    if (!at) throw std::bad_alloc();
    if (::mmap(at, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
        MAP_FAILED) {
        ::munmap(at, size);
        throw std::bad_alloc();
    }
    (void)::madvise(at, size, MADV_HUGEPAGE); // before anything touches it
    return at;
}

void freeHugePageBlock(void* block, std::size_t bytes) noexcept {
    if (!block) return;
    if (bytes < kHugePageBlockBytes)
        ::operator delete(block);
    else
        ::munmap(block, mappedBytes(bytes));
}

} // namespace xt
