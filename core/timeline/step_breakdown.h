#pragma once
// Step breakdown (docs/TIMELINE.md): every step window (slices named "ProfilerStep#N", or
// any other name prefix the caller gives) split into time categories. Each instant of a step
// is attributed to the highest-priority category active then, in the order of StepCategory,
// so the categories sum exactly to the step duration; Idle is time no event covers.
// The bottleneck is the category with the largest time.

#include "core/timeline/trace_store.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xt::timeline {

enum class StepCategory {
    DeviceCompute,     // GPU kernels
    DeviceCollectives, // kernels named nccl* / rccl*
    Memcpy,            // gpu_memcpy, gpu_memset
    KernelLaunch,      // cuda_runtime / cuda_driver calls
    HostCompute,       // cpu_op, python_function
    Other,             // any other categorised slice
    Idle,              // nothing running
};
constexpr std::size_t kStepCategoryCount = 7;
const char* stepCategoryName(StepCategory c);

// Category of one slice by its `cat` and name; Ignored for annotations that span other work.
enum class SliceClass { Counted, Ignored };
SliceClass classifySlice(std::string_view cat, std::string_view name, StepCategory& out);

struct StepBreakdown {
    std::string name;
    std::int64_t start = 0, end = 0;
    std::array<std::int64_t, kStepCategoryCount> ns{};
    StepCategory bottleneck = StepCategory::Idle;
};

struct StepOptions {
    std::string markerPrefix = "ProfilerStep#";
};

// The step marker slices (names starting with `prefix`), sorted by start.
std::vector<std::uint32_t> stepMarkers(const TraceStore& store,
                                       std::string_view prefix = "ProfilerStep#");

std::vector<StepBreakdown> stepBreakdown(const TraceStore& store, const StepOptions& options = {});

} // namespace xt::timeline
