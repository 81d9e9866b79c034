#include "core/analysis/tensor_kernels.h"

#include "core/analysis/cpu_kernels.h"

#include <algorithm>
#include <array>
#include <vector>

namespace xt::analysis {

std::size_t statsChunkCount(const xdl::TensorView& t) {
    return std::max<std::size_t>(1, (t.size() + kStatsChunk - 1) / kStatsChunk);
}

StatsAccumulator chunkStats(const xdl::TensorView& t, std::size_t chunk) {
    const std::size_t begin = std::min(t.size(), chunk * kStatsChunk);
    const std::size_t end = std::min(t.size(), begin + kStatsChunk);
    return kernels::bestKernels().stats(
        t.dtype(), t.bytes().data() + begin * xdl::elementSize(t.dtype()), end - begin);
}

TensorStats tensorStats(const xdl::TensorView& t) {
    TensorStats s;
    tensorStats(t, s);
    return s;
}

void tensorStats(const xdl::TensorView& t, TensorStats& out) {
    const std::size_t chunks = statsChunkCount(t);
    if (chunks == 1) { // its merge into the empty accumulator, exactly
        kernels::bestKernels().finishedStats(t.dtype(), t.bytes().data(), t.size(), &out);
        return;
    }
    StatsAccumulator acc;
    for (std::size_t c = 0; c < chunks; ++c)
        acc.merge(chunkStats(t, c));
    out = acc.finish();
}

void smallTensorStats(std::span<const SmallTensor> tensors, TensorStats* out) {
    const kernels::KernelTable& k = kernels::bestKernels();
    // Float32 tensors of 8 (g + 1) elements waiting for 8 of their size.
    std::array<std::array<std::size_t, 8>, 4> waiting;
    std::array<unsigned, 4> count{};
    std::array<const std::uint8_t*, 8> data;
    std::array<TensorStats*, 8> to;
    const auto one = [&](std::size_t i) {
        const SmallTensor& t = tensors[i];
        k.finishedStats(t.dtype, t.data, t.elements, &out[i]);
    };
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const SmallTensor& t = tensors[i];
        const std::size_t g = t.elements / 8 - 1; // huge for 0 elements
        if (t.dtype != xdl::Dtype::Float || t.elements % 8 != 0 || g >= waiting.size()) {
            one(i);
            continue;
        }
        waiting[g][count[g]++] = i;
        if (count[g] < 8) continue;
        count[g] = 0;
        for (std::size_t r = 0; r < 8; ++r) {
            data[r] = tensors[waiting[g][r]].data;
            to[r] = &out[waiting[g][r]];
        }
        const unsigned undone = k.finishedFloatStats8(data.data(), t.elements, to.data());
        for (std::size_t r = 0; r < 8; ++r)
            if (undone >> r & 1) one(waiting[g][r]);
    }
    for (std::size_t g = 0; g < waiting.size(); ++g)
        for (std::size_t r = 0; r < count[g]; ++r)
            one(waiting[g][r]);
}

void addSlotCounts(const xdl::TensorView& t, const BinParams& bp, std::uint32_t* slots) {
    if (t.empty()) return;
    kernels::bestKernels().histogram(t.dtype(), t.bytes().data(), t.size(), bp, slots);
}

void histogramSerial(const xdl::TensorView& t, Histogram& h) {
    std::vector<std::uint32_t> counts(std::size_t(h.layout.bins) + kExtraSlots);
    const BinParams bp = BinParams::from(h.layout);
    const std::size_t es = xdl::elementSize(t.dtype());
    for (std::size_t b = 0; b < t.size(); b += kStatsChunk) {
        std::fill(counts.begin(), counts.end(), 0);
        kernels::bestKernels().histogram(t.dtype(), t.bytes().data() + b * es,
                                         std::min(kStatsChunk, t.size() - b), bp, counts.data());
        addSlotsTo(h, counts.data());
    }
}

const char* kernelName() {
    return kernels::bestKernels().name;
}

} // namespace xt::analysis
