#pragma once
// Statistics and histogram slot counts of one tensor on the calling thread, with the CPU kernels
// (baseline or AVX2, bit-identical). Every CPU path goes through these (the CPU backend per
// chunk, summaries, the recorder), so they all give the same bits: a tensor is cut into
// kStatsChunk-element chunks whose partial statistics merge in chunk order.
// Library xt_kernels: core/xdl + these kernels only (no TBB), so the recorder can embed it.

#include "core/analysis/bin_math.h"
#include "core/analysis/tensor_stats.h"
#include "core/xdl/tensor_view.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace xt::analysis {

inline constexpr std::size_t kStatsChunk = std::size_t(1) << 20;

// Chunks of t (at least one, so an empty tensor has one empty chunk).
std::size_t statsChunkCount(const xdl::TensorView& t);
// The partial statistics of chunk `chunk` of t.
StatsAccumulator chunkStats(const xdl::TensorView& t, std::size_t chunk);
// The statistics of t: its chunks merged in order (what CpuBackend::computeStats gives).
TensorStats tensorStats(const xdl::TensorView& t);
// The same into `out`, for many small tensors in a row: a returned one, copied at once, would
// wait for the stores that made it.
void tensorStats(const xdl::TensorView& t, TensorStats& out);

// The statistics of many small tensors, each of at most kStatsChunk elements, into out[i]: the
// same bits as tensorStats. Float32 tensors of 8, 16, 24 or 32 elements are taken 8 at a time.
struct SmallTensor {
    xdl::Dtype dtype;
    const std::uint8_t* data;
    std::size_t elements;
};
void smallTensorStats(std::span<const SmallTensor> tensors, TensorStats* out);

// Adds the slot counts of t's elements on `bp` (bins + kExtraSlots entries: see bin_math.h) into
// `slots`. An XDL tensor has fewer than 2^32 elements, so uint32 counts cannot overflow.
void addSlotCounts(const xdl::TensorView& t, const BinParams& bp, std::uint32_t* slots);

// The histogram of t added into h (h.layout gives the bins).
void histogramSerial(const xdl::TensorView& t, Histogram& h);

// "avx2" or "baseline": the kernels picked for this CPU.
const char* kernelName();

} // namespace xt::analysis
