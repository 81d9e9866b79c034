#pragma once
// Transparent huge pages for large buffers about to be filled: the kernel then faults them in
// 2 MiB at a time instead of 4 KiB. On a VM whose page faults are dear, each 4 KiB fault of fresh
// memory cost ~12 us, and a 1 GB trace import spent about half its time in them
// (docs/BENCHMARKS.md, P4). Advice only: where the system gives no huge pages, nothing changes.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace xt {

inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;

// Address space for `size` bytes starting `shift` bytes past a 2 MiB boundary, reserved (no
// access, nothing committed) for the caller to map over with MAP_FIXED and to unmap; nullptr
// where there is none. allocateHugePageBlock places memory with it, mapFileReadOnly files.
void* reserveOnHugePageBoundary(std::size_t size, std::size_t shift);

// Blocks of kHugePageBlockBytes and more are mapped on their own, on a 2 MiB boundary, and
// advised before anything touches them; smaller ones come from operator new. Throws
// std::bad_alloc.
inline constexpr std::size_t kHugePageBlockBytes = std::size_t(4) << 20;
void* allocateHugePageBlock(std::size_t bytes);
void freeHugePageBlock(void* block, std::size_t bytes) noexcept;

// For large lists filled as they grow (an import's columns, an index's records):
// std::vector<T, HugePageAllocator<T>>.
template <class T> struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() noexcept = default;
    template <class U> HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(allocateHugePageBlock(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { freeHugePageBlock(p, n * sizeof(T)); }
    friend bool operator==(HugePageAllocator, HugePageAllocator) noexcept { return true; }
};

template <class T> using HugePageVector = std::vector<T, HugePageAllocator<T>>;

} // namespace xt
