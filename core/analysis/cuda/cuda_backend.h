#pragma once
// The CUDA backend (built only with XT_CUDA_ENABLED). Plain C++ interface: callers never see a
// CUDA header. Any CUDA error, missing driver or missing device means "not available".

#include "core/analysis/backend.h"

#include <memory>
#include <string>

namespace xt::analysis::cuda {

// Whether device 0 exists and can run this build's kernels; `why` gets the reason when not.
bool deviceAvailable(std::string* why = nullptr);

// A backend on device 0, or null (with `why`) when none can be made. Tensors it uploads stay
// resident (within a memory budget) so that re-binning the same views needs no new transfer;
// they are recognised by address, size and a sample of their bytes, so call releaseCache()
// when the memory behind earlier views is unmapped or rewritten.
std::unique_ptr<Backend> makeCudaBackend(std::string* why = nullptr);

} // namespace xt::analysis::cuda
