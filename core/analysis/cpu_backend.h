#pragma once
// The CPU backend: per-dtype vectorisable kernels over the unaligned mapped bytes, run on an
// explicit oneTBB arena. Large tensors are split into chunks whose partial results are merged
// in a fixed order, so results do not depend on the thread count or scheduling.

#include "core/analysis/backend.h"

#include <memory>

namespace xt::analysis {

class CpuBackend final : public Backend {
public:
    // threads 0 = every core.
    explicit CpuBackend(int threads = 0);
    ~CpuBackend() override;

    BackendKind kind() const override { return BackendKind::Cpu; }
    std::string description() const override;
    Status computeStats(std::span<const xdl::TensorView> batch,
                        std::span<TensorStats> out) override;
    Status histogram(std::span<const xdl::TensorView> batch, const BinLayout& layout,
                     std::span<Histogram> out) override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The single-threaded forms of computeStats and histogram are in tensor_kernels.h.

} // namespace xt::analysis
