#include "core/analysis/cpu_backend.h"

#include "core/analysis/cpu_kernels.h"
#include "core/analysis/parallel_loop.h"
#include "core/analysis/tensor_kernels.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>

namespace xt::analysis {

namespace {

struct WorkItem {
    std::size_t tensor;
    std::size_t chunk; // of kStatsChunk elements
};

std::vector<WorkItem> splitWork(std::span<const xdl::TensorView> batch) {
    std::vector<WorkItem> items;
    for (std::size_t t = 0; t < batch.size(); ++t) {
        const std::size_t chunks = statsChunkCount(batch[t]);
        for (std::size_t c = 0; c < chunks; ++c)
            items.push_back({t, c});
    }
    return items;
}

} // namespace

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
        // Batches of small tensors (the rows of small keys) in slices of at most 16 Ki elements,
        // 8 float32 tensors of a size at a time where they can be (smallTensorStats: the same
        // bits as a work item a tensor).
        constexpr std::size_t kSmall = 64, kSlice = 256;
        if (std::all_of(batch.begin(), batch.end(),
                        [](const xdl::TensorView& t) { return t.size() <= kSmall; })) {
            m_impl->loop.run((batch.size() + kSlice - 1) / kSlice, [&](std::size_t s, unsigned) {
                std::array<SmallTensor, kSlice> slice;
                const std::size_t begin = s * kSlice, n = std::min(kSlice, batch.size() - begin);
                for (std::size_t i = 0; i < n; ++i) {
                    const xdl::TensorView& t = batch[begin + i];
                    slice[i] = {t.dtype(), t.bytes().data(), t.size()};
                }
                smallTensorStats({slice.data(), n}, out.data() + begin);
            });
            return Status::ok();
        }
        const std::vector<WorkItem> items = splitWork(batch);
        std::vector<StatsAccumulator> partial(items.size());
        m_impl->loop.run(items.size(), [&](std::size_t i, unsigned) {
            partial[i] = chunkStats(batch[items[i].tensor], items[i].chunk);
        });
        // Fixed merge order (tensorStats's): the result does not depend on scheduling.
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
        std::vector<std::vector<std::uint32_t>> scratch(m_impl->loop.slots());
        m_impl->loop.run(items.size(), [&](std::size_t i, unsigned thread) {
            const WorkItem& w = items[i];
            const xdl::TensorView& t = batch[w.tensor];
            const std::size_t begin = w.chunk * kStatsChunk;
            if (begin >= t.size()) return;
            auto& counts = scratch[thread];
            counts.assign(slots, 0);
            kernels::bestKernels().histogram(
                t.dtype(), t.bytes().data() + begin * xdl::elementSize(t.dtype()),
                std::min(kStatsChunk, t.size() - begin), bp, counts.data());
            std::lock_guard lock(locks[w.tensor]); // integer sums: order-independent
            addSlotsTo(out[w.tensor], counts.data());
        });
    } catch (const std::exception& e) {
        return Status(ErrorCode::Internal, std::string("cpu histogram failed: ") + e.what());
    }
    return Status::ok();
}

} // namespace xt::analysis
