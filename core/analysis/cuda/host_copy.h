#pragma once
// Host-side copies for the CUDA backend's uploads, compiled by the host compiler (oneTBB is not
// for nvcc): the bytes of a batch go into pinned staging buffers on every core, since they are
// usually pages of mapped part files, and faulting them in and copying them on one thread is what
// bounded an upload (6.5 GB/s for data in memory, 2.2 GB/s from mapped files, on an H100 host).

#include <cstddef>
#include <span>

namespace xt::analysis::cuda {

struct HostCopy {
    unsigned char* dst;
    const unsigned char* src;
    std::size_t len;
};

// Performs every copy (they must not overlap), in parallel when they are large enough to gain.
void copyInParallel(std::span<const HostCopy> copies);

} // namespace xt::analysis::cuda
