#include "core/timeline/step_breakdown.h"

#include <algorithm>
#include <cctype>

namespace xt::timeline {

const char* stepCategoryName(StepCategory c) {
    switch (c) {
    case StepCategory::DeviceCompute:
        return "device_compute";
    case StepCategory::DeviceCollectives:
        return "device_collectives";
    case StepCategory::Memcpy:
        return "memcpy";
    case StepCategory::KernelLaunch:
        return "kernel_launch";
    case StepCategory::HostCompute:
        return "host_compute";
    case StepCategory::Other:
        return "other";
    case StepCategory::Idle:
        return "idle";
    }
    return "?";
}

namespace {
std::string lower(std::string_view s) {
    std::string r(s);
    for (char& c : r)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
}
} // namespace

SliceClass classifySlice(std::string_view cat, std::string_view name, StepCategory& out) {
    const std::string c = lower(cat);
    if (c.find("annotation") != std::string::npos || c == "trace" || c.empty())
        return SliceClass::Ignored;
    if (c == "kernel") {
        const std::string n = lower(name);
        out = n.find("nccl") != std::string::npos || n.find("rccl") != std::string::npos
                  ? StepCategory::DeviceCollectives
                  : StepCategory::DeviceCompute;
    } else if (c == "gpu_memcpy" || c == "gpu_memset" || c == "memcpy" || c == "memset") {
        out = StepCategory::Memcpy;
    } else if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime" || c == "driver") {
        out = StepCategory::KernelLaunch;
    } else if (c == "cpu_op" || c == "operator" || c == "python_function" ||
               c == "python function") {
        out = StepCategory::HostCompute;
    } else {
        out = StepCategory::Other;
    }
    return SliceClass::Counted;
}

std::vector<std::uint32_t> stepMarkers(const TraceStore& store, std::string_view prefix) {
    // Which interned names are markers, decided once per name rather than once per slice.
    std::vector<char> isMarker(store.strings().size());
    for (StringId id = 0; id < isMarker.size(); ++id)
        isMarker[id] = store.str(id).starts_with(prefix);
    const auto name = store.sliceName();
    const auto start = store.sliceStart();
    std::vector<std::uint32_t> markers;
    for (std::uint32_t s = 0; s < store.sliceCount(); ++s)
        if (isMarker[name[s]]) markers.push_back(s);
    std::sort(markers.begin(), markers.end(),
              [&](std::uint32_t a, std::uint32_t b) { return start[a] < start[b]; });
    return markers;
}

std::vector<StepBreakdown> stepBreakdown(const TraceStore& store, const StepOptions& options) {
    const auto start = store.sliceStart();
    const auto dur = store.sliceDuration();
    const auto name = store.sliceName();
    const auto cat = store.sliceCategory();

    const std::vector<std::uint32_t> markers = stepMarkers(store, options.markerPrefix);

    // Class of each distinct (cat, name) pair, computed once.
    std::vector<std::int8_t> classOf(store.sliceCount());
    {
        std::vector<std::int8_t> catClass(store.strings().size(), -2);
        for (std::uint32_t s = 0; s < store.sliceCount(); ++s) {
            StepCategory sc = StepCategory::Other;
            if (store.str(cat[s]) == "kernel" || store.str(cat[s]) == "Kernel") {
                classOf[s] = static_cast<std::int8_t>(
                    classifySlice(store.str(cat[s]), store.str(name[s]), sc) == SliceClass::Counted
                        ? static_cast<int>(sc)
                        : -1);
                continue;
            }
            std::int8_t& cc = catClass[cat[s]];
            if (cc == -2)
                cc = static_cast<std::int8_t>(classifySlice(store.str(cat[s]), "", sc) ==
                                                      SliceClass::Counted
                                                  ? static_cast<int>(sc)
                                                  : -1);
            classOf[s] = cc;
        }
        for (std::uint32_t m : markers)
            classOf[m] = -1;
    }
    // Longest slice per track, to bound the search for slices overlapping a window.
    std::vector<std::int64_t> maxDur(store.tracks().size(), 0);
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& tr = store.tracks()[t];
        for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s)
            maxDur[t] = std::max(maxDur[t], dur[s]);
    }

    std::vector<StepBreakdown> out;
    struct Edge {
        std::int64_t t;
        int cat;
        int delta;
    };
    std::vector<Edge> edges;
    for (std::uint32_t m : markers) {
        StepBreakdown sb;
        sb.name = std::string(store.str(name[m]));
        sb.start = start[m];
        sb.end = start[m] + dur[m];
        edges.clear();
        for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
            const Track& tr = store.tracks()[t];
            auto first = start.begin() + tr.sliceBegin, last = start.begin() + tr.sliceEnd;
            auto it = std::lower_bound(first, last, sb.start - maxDur[t]);
            for (; it != last && *it < sb.end; ++it) {
                const auto s = static_cast<std::uint32_t>(it - start.begin());
                if (classOf[s] < 0) continue;
                const std::int64_t b = std::max(start[s], sb.start);
                const std::int64_t e = std::min(start[s] + dur[s], sb.end);
                if (e <= b) continue;
                edges.push_back({b, classOf[s], +1});
                edges.push_back({e, classOf[s], -1});
            }
        }
        std::sort(edges.begin(), edges.end(),
                  [](const Edge& a, const Edge& b) { return a.t < b.t; });
        std::array<int, kStepCategoryCount> active{};
        std::int64_t prev = sb.start;
        auto attribute = [&](std::int64_t upTo) {
            if (upTo <= prev) return;
            std::size_t c = static_cast<std::size_t>(StepCategory::Idle);
            for (std::size_t k = 0; k < static_cast<std::size_t>(StepCategory::Idle); ++k)
                if (active[k] > 0) {
                    c = k;
                    break;
                }
            sb.ns[c] += upTo - prev;
            prev = upTo;
        };
        for (const Edge& e : edges) {
            attribute(e.t);
            active[e.cat] += e.delta;
        }
        attribute(sb.end);
        std::size_t best = 0;
        for (std::size_t k = 1; k < kStepCategoryCount; ++k)
            if (sb.ns[k] > sb.ns[best]) best = k;
        sb.bottleneck = static_cast<StepCategory>(best);
        out.push_back(std::move(sb));
    }
    return out;
}

} // namespace xt::timeline
