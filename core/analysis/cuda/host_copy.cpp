#include "core/analysis/cuda/host_copy.h"

#include <algorithm>
#include <cstring>
#include <tbb/parallel_for.h>
#include <vector>

namespace xt::analysis::cuda {

namespace {
constexpr std::size_t kChunk = std::size_t(1) << 20; // each task copies at most this much
} // namespace

void copyInParallel(std::span<const HostCopy> copies) {
    std::size_t total = 0;
    for (const HostCopy& c : copies)
        total += c.len;
    if (total < 2 * kChunk) {
        for (const HostCopy& c : copies)
            std::memcpy(c.dst, c.src, c.len);
        return;
    }
    std::vector<HostCopy> chunks;
    chunks.reserve(copies.size() + total / kChunk);
    for (const HostCopy& c : copies)
        for (std::size_t at = 0; at < c.len; at += kChunk)
            chunks.push_back({c.dst + at, c.src + at, std::min(kChunk, c.len - at)});
    tbb::parallel_for(std::size_t(0), chunks.size(), [&](std::size_t i) {
        std::memcpy(chunks[i].dst, chunks[i].src, chunks[i].len);
    });
}

} // namespace xt::analysis::cuda
