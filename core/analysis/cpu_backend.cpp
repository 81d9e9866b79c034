#include "core/analysis/cpu_backend.h"

#include "core/analysis/cpu_kernels.h"
#include "core/analysis/parallel_loop.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>

namespace xt::analysis {

namespace {

// Tensors longer than this are split into chunks worked on in parallel.
constexpr std::size_t kChunk = std::size_t(1) << 20;

void addSlots(Histogram& h, const std::uint32_t* counts) {
    const int bins = h.layout.bins;
    for (int i = 0; i < bins; ++i)
        h.counts[std::size_t(i)] += counts[i];
    h.nan += counts[bins + kSlotNan];
    h.posInf += counts[bins + kSlotPosInf];
    h.negInf += counts[bins + kSlotNegInf];
    h.below += counts[bins + kSlotBelow];
    h.above += counts[bins + kSlotAbove];
}

struct WorkItem {
    std::size_t tensor;
    std::size_t begin, end; // element range
};

std::vector<WorkItem> splitWork(std::span<const xdl::TensorView> batch) {
    std::vector<WorkItem> items;
    for (std::size_t t = 0; t < batch.size(); ++t) {
        const std::size_t n = batch[t].size();
        if (n == 0) items.push_back({t, 0, 0});
        for (std::size_t b = 0; b < n; b += kChunk)
            items.push_back({t, b, std::min(n, b + kChunk)});
    }
    return items;
}

} // namespace

StatsAccumulator tensorStatsSerial(const xdl::TensorView& t) {
    return kernels::bestKernels().stats(t.dtype(), t.bytes().data(), t.size());
}

void histogramSerial(const xdl::TensorView& t, Histogram& h) {
    std::vector<std::uint32_t> counts(std::size_t(h.layout.bins) + kExtraSlots);
    const BinParams bp = BinParams::from(h.layout);
    const std::size_t es = xdl::elementSize(t.dtype());
    for (std::size_t b = 0; b < t.size(); b += kChunk) { // uint32 counts per chunk
        std::fill(counts.begin(), counts.end(), 0);
        kernels::bestKernels().histogram(t.dtype(), t.bytes().data() + b * es,
                                         std::min(kChunk, t.size() - b), bp, counts.data());
        addSlots(h, counts.data());
    }
}

struct CpuBackend::Impl {
    explicit Impl(int threads) : loop(threads) {}
    ParallelLoop loop;
};

CpuBackend::CpuBackend(int threads) : m_impl(std::make_unique<Impl>(threads)) {}
CpuBackend::~CpuBackend() = default;

std::string CpuBackend::description() const {
    return "cpu (" + std::to_string(m_impl->loop.slots()) + " threads, " +
           kernels::bestKernels().name + " kernels)";
}

Status CpuBackend::computeStats(std::span<const xdl::TensorView> batch,
                                std::span<TensorStats> out) {
    if (out.size() != batch.size())
        return Status(ErrorCode::InvalidArgument, "computeStats: output size != batch size");
    try {
        const std::vector<WorkItem> items = splitWork(batch);
        std::vector<StatsAccumulator> partial(items.size());
        m_impl->loop.run(items.size(), [&](std::size_t i, unsigned) {
            const WorkItem& w = items[i];
            const xdl::TensorView& t = batch[w.tensor];
            partial[i] = kernels::bestKernels().stats(
                t.dtype(), t.bytes().data() + w.begin * xdl::elementSize(t.dtype()),
                w.end - w.begin);
        });
        // Fixed merge order: the result does not depend on scheduling.
        std::size_t i = 0;
        for (std::size_t t = 0; t < batch.size(); ++t) {
            StatsAccumulator acc;
            while (i < items.size() && items[i].tensor == t)
                acc.merge(partial[i++]);
            out[t] = acc.finish();
        }
    } catch (const std::exception& e) {
        return Status(ErrorCode::Internal, std::string("cpu statistics failed: ") + e.what());
    }
    return Status::ok();
}

Status CpuBackend::histogram(std::span<const xdl::TensorView> batch, const BinLayout& layout,
                             std::span<Histogram> out) {
    if (out.size() != batch.size())
        return Status(ErrorCode::InvalidArgument, "histogram: output size != batch size");
    if (layout.bins < 1 || layout.bins > kMaxBins || !(layout.lo < layout.hi))
        return Status(ErrorCode::InvalidArgument, "histogram: invalid bin layout");
    try {
        const BinParams bp = BinParams::from(layout);
        const std::size_t slots = std::size_t(layout.bins) + kExtraSlots;
        for (auto& h : out)
            h = Histogram(layout);
        const std::vector<WorkItem> items = splitWork(batch);
        std::vector<std::mutex> locks(batch.size());
        // One count buffer per thread, made on its first use.
        std::vector<std::vector<std::uint32_t>> scratch(m_impl->loop.slots());
        m_impl->loop.run(items.size(), [&](std::size_t i, unsigned thread) {
            const WorkItem& w = items[i];
            if (w.end == w.begin) return;
            const xdl::TensorView& t = batch[w.tensor];
            auto& counts = scratch[thread];
            counts.assign(slots, 0);
            kernels::bestKernels().histogram(
                t.dtype(), t.bytes().data() + w.begin * xdl::elementSize(t.dtype()),
                w.end - w.begin, bp, counts.data());
            std::lock_guard lock(locks[w.tensor]); // integer sums: order-independent
            addSlots(out[w.tensor], counts.data());
        });
    } catch (const std::exception& e) {
        return Status(ErrorCode::Internal, std::string("cpu histogram failed: ") + e.what());
    }
    return Status::ok();
}

} // namespace xt::analysis
