#pragma once
// Holistic Trace Analysis (HTA) style analyses of Kineto traces, per rank and across the ranks of
// a distributed job (docs/TIMELINE.md "Multi-rank analyses" states the definitions and where
// they depart from HTA). Pure functions of TraceStores; times are int64 nanoseconds.
//
// GPU events are slices of category kernel, gpu_memcpy or gpu_memset (also the older Kernel,
// Memcpy, Memset); their stream is the number in their thread id ("7", "stream 7"). A GPU event
// is linked to the CPU runtime call that launched it by the `correlation` arg of both.

#include "core/timeline/trace_store.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xt::timeline {

// HTA's kernel types, by name: COMMUNICATION ^nccl.*Kernel, MEMORY ^Memcpy|^Memset|^dma,
// OTHER names holding Memcpy or Sync elsewhere, COMPUTATION the rest.
enum class KernelType : std::uint8_t { Computation, Communication, Memory, Other };
constexpr std::size_t kKernelTypeCount = 4;
const char* kernelTypeName(KernelType t); // "COMPUTATION", ...
KernelType classifyKernel(std::string_view name);

// Categories of GPU events (kernel, gpu_memcpy, gpu_memset and the older Kernel, Memcpy, Memset),
// and of anything drawn on a GPU (those and gpu_*, e.g. gpu_user_annotation).
bool isGpuEventCategory(std::string_view cat);
bool isDeviceCategory(std::string_view cat);

// Time by the set of kernel types running, as HTA's kernel type breakdown: index = bit mask of
// COMPUTATION (1), COMMUNICATION (2), MEMORY (4); index 0 unused. Label: the names in that order
// joined by " overlapping ".
using KernelTypeTimes = std::array<std::int64_t, 8>;
std::string kernelTypeMaskLabel(unsigned mask);

struct RankAnalysisOptions {
    std::string stepPrefix = "ProfilerStep#";
    // HTA's get_idle_time_breakdown consecutive_kernel_delay (30 trace units = 30 us).
    std::int64_t kernelWaitNs = 30000;
    // HTA's cuda_kernel_launch_stats runtime_cutoff and launch_delay_cutoff.
    std::int64_t runtimeCutoffNs = 50000;
    std::int64_t launchDelayCutoffNs = 100000;
    // HTA leaves out GPU work launched in the last ProfilerStep when there are at least two.
    bool includeLastStep = false;
};

struct TemporalBreakdown {
    std::int64_t windowNs = 0; // first GPU event start to last GPU event end
    std::int64_t idleNs = 0;   // no GPU event running
    std::int64_t computeNs = 0;
    std::int64_t nonComputeNs = 0; // window - compute - idle
};

// Idle gaps of one stream by cause (HTA's idle time breakdown).
struct StreamIdle {
    std::int64_t stream = -1;
    std::int64_t hostWaitNs = 0, kernelWaitNs = 0, otherNs = 0;
    std::int64_t totalNs() const { return hostWaitNs + kernelWaitNs + otherNs; }
};

// GPU events with a correlated launching runtime call.
struct LaunchStats {
    std::uint64_t kernels = 0;
    std::optional<double> delayP50Ns, delayP95Ns; // linear interpolation, as numpy's default
    std::uint64_t shortKernels = 0;    // CPU duration <= runtime cutoff and GPU duration < CPU's
    std::uint64_t runtimeOutliers = 0; // CPU duration > runtime cutoff
    std::uint64_t delayOutliers = 0;   // launch delay > launch delay cutoff
};

struct KernelStats {
    std::string name;
    KernelType type = KernelType::Computation;
    std::uint64_t count = 0;
    std::int64_t sumNs = 0, minNs = 0, maxNs = 0;
    double meanNs() const { return count ? double(sumNs) / double(count) : 0.0; }
};

struct RankStep {
    std::string name; // "ProfilerStep#3"
    std::int64_t start = 0, end = 0;
    std::int64_t idleNs = 0;           // step window not covered by any GPU event
    std::int64_t collectiveWaitNs = 0; // filled by analyzeSession
    std::int64_t durNs() const { return end - start; }
};

// One COMMUNICATION kernel, for matching collectives across ranks.
struct Collective {
    std::uint32_t name = 0; // index into RankAnalysis::collectiveNames
    std::int64_t start = 0, end = 0;
    std::int64_t waitNs = 0; // filled by analyzeSession
};

struct RankAnalysis {
    bool roundedToMicros = false;    // float timestamps: starts rounded up, ends down (as HTA)
    bool lastStepExcluded = false;   // GPU work launched in the last step left out (as HTA)
    std::uint64_t gpuEvents = 0;     // in the trace
    std::uint64_t gpuEventsUsed = 0; // after leaving out the last step
    TemporalBreakdown temporal;
    std::int64_t commNs = 0;        // COMMUNICATION kernels running
    std::int64_t commOverlapNs = 0; // ... while COMPUTATION runs
    KernelTypeTimes kernelTypes{};
    std::vector<StreamIdle> idle; // by stream number
    LaunchStats launch;
    std::vector<KernelStats> kernels; // per kernel name, largest sum first
    std::vector<RankStep> steps;      // every ProfilerStep, by start
    std::vector<std::string> collectiveNames;
    std::vector<Collective> collectives; // every COMMUNICATION kernel, by start
    std::int64_t collectiveWaitNs = 0;   // filled by analyzeSession

    std::optional<double> commCompOverlapPct() const;
};

RankAnalysis analyzeRank(const TraceStore& store, const RankAnalysisOptions& options = {});

// One step across ranks: who was slowest and by how much.
struct StepStraggler {
    std::string name;
    std::vector<std::pair<int, std::int64_t>> durByRank; // ranks that have the step
    int slowestRank = -1, fastestRank = -1;
    std::int64_t skewNs = 0; // slowest - fastest
};

// A kernel among the top ones of its type (by time summed over ranks), per rank.
struct TopKernel {
    KernelType type = KernelType::Computation;
    std::string name;
    std::int64_t sumNs = 0;                         // all ranks
    std::vector<std::pair<int, KernelStats>> ranks; // ranks that ran it
};

struct SessionAnalysis {
    std::vector<int> ranks;            // rank numbers, in session order
    std::vector<RankAnalysis> perRank; // same order
    std::vector<StepStraggler> steps;  // by step number
    std::vector<TopKernel> topKernels; // per type, largest first
};

// Cross-rank figures. Collectives are matched by name and occurrence (the N-th kernel of a name
// on each rank); a collective's wait on a rank is its duration minus the shortest duration of
// the same collective on any rank (the last rank to arrive waits least). Steps are matched by
// name. `topPerType` kernels are kept per type.
SessionAnalysis analyzeSession(std::vector<int> ranks, std::vector<RankAnalysis> perRank,
                               std::size_t topPerType = 10);

} // namespace xt::timeline
