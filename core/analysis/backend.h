#pragma once
// The compute backend of the analysis engine: statistics and histograms of batches of tensors
// read straight from mapped trace files. The CPU backend is always built; the CUDA backend
// (core/analysis/cuda) exists when the project is built with CUDA and a device is present.

#include "core/analysis/histogram.h"
#include "core/analysis/tensor_stats.h"
#include "core/base/status.h"
#include "core/xdl/tensor_view.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace xt::analysis {

enum class BackendKind { Cpu, Cuda };
enum class BackendChoice { Auto, Cpu, Cuda };

std::optional<BackendChoice> parseBackendChoice(std::string_view text); // "auto" "cpu" "cuda"
const char* backendKindName(BackendKind kind);

class Backend {
public:
    virtual ~Backend() = default;
    virtual BackendKind kind() const = 0;
    // Human-readable description, e.g. "cpu (2 threads)".
    virtual std::string description() const = 0;

    // out[i] = statistics of batch[i]; out.size() must equal batch.size(). The views must stay
    // valid for the duration of the call.
    virtual Status computeStats(std::span<const xdl::TensorView> batch,
                                std::span<TensorStats> out) = 0;
    // out[i] = histogram of batch[i] on `layout`; out.size() must equal batch.size().
    virtual Status histogram(std::span<const xdl::TensorView> batch, const BinLayout& layout,
                             std::span<Histogram> out) = 0;
    // Forgets device copies kept for re-binning the same tensors (no-op where nothing is kept).
    virtual void releaseCache() {}
};

// `Auto` picks the CUDA backend for at least this many bytes of tensors to re-bin.
inline constexpr std::uint64_t kCudaAutoMinBytes = 256ull << 20;

struct BackendSelection {
    std::unique_ptr<Backend> backend; // never null
    // One informative line when the choice fell back to the CPU (e.g. no CUDA device); else "".
    std::string note;
};

// Picks a backend; `cpuThreads` 0 = all. Never fails: a missing device, driver or CUDA build
// falls back to the CPU with a note. For Auto, `rebinBytes` is the bytes of tensors that will be
// binned again while they stay on the device (a view that re-bins them): from kCudaAutoMinBytes
// on, Auto picks CUDA. One-pass work (statistics, the xtrace commands) passes 0 and stays on the
// CPU: each of its bytes must cross from host memory, and on an H100 host that made the CUDA
// backend as fast as 2 cores and half as fast as 16 (docs/BENCHMARKS.md, CUDA).
BackendSelection selectBackend(BackendChoice choice, std::uint64_t rebinBytes = 0,
                               int cpuThreads = 0);

// Whether a CUDA backend can run here; `why` gets the reason when not.
bool cudaAvailable(std::string* why = nullptr);

} // namespace xt::analysis
