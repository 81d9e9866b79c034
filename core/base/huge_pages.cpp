#include "core/base/huge_pages.h"

#include <new>
#include <sys/mman.h>

namespace xt {

namespace {

constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;

std::size_t mappedBytes(std::size_t bytes) {
    return (bytes + kHuge - 1) & ~(kHuge - 1);
}

} // namespace

void adviseHugePages(void* data, std::uint64_t size) {
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t last = (begin + size) & ~(kHuge - 1);
    if (data && last > first)
        (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

void* allocateHugePageBlock(std::size_t bytes) {
    if (bytes < kHugePageBlockBytes) return ::operator new(bytes);
    const std::size_t size = mappedBytes(bytes);
    if (size < bytes || size + kHuge < size) throw std::bad_alloc();
    // Room to slide the block onto a 2 MiB boundary; what lies outside it is unmapped again.
    void* span =
        ::mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (span == MAP_FAILED) throw std::bad_alloc();
    const auto base = reinterpret_cast<std::uintptr_t>(span);
    const std::uintptr_t at = (base + kHuge - 1) & ~(kHuge - 1);
    if (at > base) ::munmap(span, at - base);
    if (base + kHuge > at) ::munmap(reinterpret_cast<void*>(at + size), base + kHuge - at);
    adviseHugePages(reinterpret_cast<void*>(at), size);
    return reinterpret_cast<void*>(at);
}

void freeHugePageBlock(void* block, std::size_t bytes) noexcept {
    if (!block) return;
    if (bytes < kHugePageBlockBytes)
        ::operator delete(block);
    else
        ::munmap(block, mappedBytes(bytes));
}

} // namespace xt
