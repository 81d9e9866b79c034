#include "core/analysis/backend.h"

#include "core/analysis/cpu_backend.h"

#if defined(XT_HAVE_CUDA)
#include "core/analysis/cuda/cuda_backend.h"
#endif

namespace xt::analysis {

std::optional<BackendChoice> parseBackendChoice(std::string_view text) {
    if (text == "auto") return BackendChoice::Auto;
    if (text == "cpu") return BackendChoice::Cpu;
    if (text == "cuda") return BackendChoice::Cuda;
    return std::nullopt;
}

const char* backendKindName(BackendKind kind) {
    return kind == BackendKind::Cuda ? "cuda" : "cpu";
}

bool cudaAvailable(std::string* why) {
#if defined(XT_HAVE_CUDA)
    return cuda::deviceAvailable(why);
#else
    if (why) *why = "this build has no CUDA backend";
    return false;
#endif
}

BackendSelection selectBackend(BackendChoice choice, std::uint64_t rebinBytes, int cpuThreads) {
    BackendSelection sel;
    if (choice == BackendChoice::Cpu) {
        sel.backend = std::make_unique<CpuBackend>(cpuThreads);
        return sel;
    }
#if defined(XT_HAVE_CUDA)
    const bool wantCuda = choice == BackendChoice::Cuda || rebinBytes >= kCudaAutoMinBytes;
    if (wantCuda) {
        std::string why;
        sel.backend = cuda::makeCudaBackend(&why);
        if (sel.backend) return sel;
        sel.note = "CUDA backend unavailable (" + why + "); using the CPU backend";
    }
#else
    (void)rebinBytes;
    if (choice == BackendChoice::Cuda)
        sel.note = "CUDA backend unavailable (this build has no CUDA backend); using the CPU "
                   "backend";
#endif
    sel.backend = std::make_unique<CpuBackend>(cpuThreads);
    return sel;
}

} // namespace xt::analysis
