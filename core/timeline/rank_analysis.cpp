#include "core/timeline/rank_analysis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

namespace xt::timeline {

namespace {

enum class Role : std::uint8_t { Other, Gpu, Runtime, GpuAnnotation };

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

Role roleOf(std::string_view cat) {
    for (std::string_view g : {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"})
        if (iequals(cat, g)) return Role::Gpu;
    for (std::string_view r : {"cuda_runtime", "cuda_driver", "runtime", "driver"})
        if (iequals(cat, r)) return Role::Runtime;
    if (cat.size() >= 4 && iequals(cat.substr(0, 4), "gpu_")) return Role::GpuAnnotation;
    return Role::Other;
}

} // namespace

const char* kernelTypeName(KernelType t) {
    switch (t) {
    case KernelType::Computation:
        return "COMPUTATION";
    case KernelType::Communication:
        return "COMMUNICATION";
    case KernelType::Memory:
        return "MEMORY";
    case KernelType::Other:
        return "OTHER";
    }
    return "?";
}

KernelType classifyKernel(std::string_view name) {
    // ^nccl.*Kernel
    if (name.starts_with("nccl") && name.find("Kernel", 4) != std::string_view::npos)
        return KernelType::Communication;
    if (name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("dma"))
        return KernelType::Memory;
    // HTA's compute test is the negation of (^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)
    // under re.match: a name holding Memcpy or Sync anywhere is not computation.
    if (name.find("Memcpy") != std::string_view::npos ||
        name.find("Sync") != std::string_view::npos)
        return KernelType::Other;
    return KernelType::Computation;
}

std::string kernelTypeMaskLabel(unsigned mask) {
    std::string out;
    for (unsigned bit = 0; bit < 3; ++bit)
        if (mask & (1u << bit)) {
            if (!out.empty()) out += " overlapping ";
            out += kernelTypeName(static_cast<KernelType>(bit));
        }
    return out;
}

bool isGpuEventCategory(std::string_view cat) {
    return roleOf(cat) == Role::Gpu;
}

bool isDeviceCategory(std::string_view cat) {
    const Role r = roleOf(cat);
    return r == Role::Gpu || r == Role::GpuAnnotation;
}

std::optional<double> RankAnalysis::commCompOverlapPct() const {
    if (commNs <= 0) return std::nullopt;
    return 100.0 * double(commOverlapNs) / double(commNs);
}

namespace {

// The unsigned integer value of a top-level `"key": N` in an args object's JSON text.
std::optional<std::uint64_t> argNumber(std::string_view json, std::string_view quotedKey) {
    const std::size_t at = json.find(quotedKey);
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t i = at + quotedKey.size();
    auto skip = [&] {
        while (i < json.size() &&
               (json[i] == ' ' || json[i] == '\n' || json[i] == '\t' || json[i] == '\r'))
            ++i;
    };
    skip();
    if (i >= json.size() || json[i] != ':') return std::nullopt;
    ++i;
    skip();
    if (i >= json.size() || !std::isdigit(static_cast<unsigned char>(json[i]))) return std::nullopt;
    std::uint64_t v = 0;
    for (; i < json.size() && std::isdigit(static_cast<unsigned char>(json[i])); ++i)
        v = v * 10 + std::uint64_t(json[i] - '0');
    return v;
}

// The first number in a thread id: "7" -> 7, "stream 7" -> 7; -1 when there is none.
std::int64_t streamOf(std::string_view tid) {
    std::size_t i = 0;
    while (i < tid.size() && !std::isdigit(static_cast<unsigned char>(tid[i])))
        ++i;
    if (i == tid.size()) return -1;
    std::int64_t v = 0;
    for (; i < tid.size() && std::isdigit(static_cast<unsigned char>(tid[i])) && v < (1ll << 55);
         ++i)
        v = v * 10 + (tid[i] - '0');
    return v;
}

// HTA reads float timestamps as whole microseconds: starts rounded up, ends down.
struct Rounding {
    bool on = false;
    static std::int64_t floorUs(std::int64_t t) {
        const std::int64_t r = t % 1000;
        return r < 0 ? t - r - 1000 : t - r;
    }
    std::int64_t start(std::int64_t t) const {
        if (!on) return t;
        const std::int64_t f = floorUs(t);
        return f == t ? t : f + 1000;
    }
    std::int64_t end(std::int64_t startNs, std::int64_t endNs) const {
        if (!on) return endNs;
        return std::max(floorUs(endNs), start(startNs)); // never a negative duration
    }
};

bool hasFractionalTimes(const TraceStore& s) {
    for (std::int64_t t : s.sliceStart())
        if (t % 1000 != 0) return true;
    for (const Instant& i : s.instants())
        if (i.ts % 1000 != 0) return true;
    return false;
}

struct GpuEvent {
    std::int64_t start = 0, end = 0;
    std::int64_t runtimeStart = 0, runtimeEnd = 0;
    std::uint32_t slice = 0;
    std::uint32_t stream = 0; // index into streams
    bool launched = false;    // has a correlated runtime call
    KernelType type = KernelType::Computation;
};

double percentile(std::vector<std::int64_t>& v, double p) {
    // numpy's default (linear): position p/100 * (n - 1) between the sorted neighbours.
    const double pos = p / 100.0 * double(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(lo), v.end());
    const double a = double(v[lo]);
    if (hi == lo) return a;
    const double b = double(*std::min_element(v.begin() + std::ptrdiff_t(lo) + 1, v.end()));
    return a + (b - a) * (pos - double(lo));
}

std::int64_t stepNumber(std::string_view name) {
    const std::size_t hash = name.rfind('#');
    if (hash == std::string_view::npos || hash + 1 >= name.size()) return -1;
    std::int64_t v = 0;
    for (std::size_t i = hash + 1; i < name.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
        v = v * 10 + (name[i] - '0');
        if (v > (1ll << 55)) return -1;
    }
    return v;
}

} // namespace

namespace {

constexpr std::uint64_t kNoCorrelation = ~std::uint64_t(0);

// What one pass over the slices finds: GPU events (launches matched), CPU step markers and
// the stream numbers the events' indices refer to.
struct GpuWork {
    std::vector<GpuEvent> events; // by start, then end
    std::vector<std::uint32_t> markers;
    std::vector<std::int64_t> streams;
    bool anyLaunched = false;
};

// GPU events with their correlation ids, runtime calls by correlation id, and step markers.
void collectSlices(const TraceStore& store, const RankAnalysisOptions& options,
                   const Rounding& round, GpuWork& work,
                   std::vector<std::uint64_t>& eventCorrelation,
                   std::vector<std::pair<std::uint64_t, std::uint32_t>>& runtimeByCorrelation) {
    const auto start = store.sliceStart();
    const auto dur = store.sliceDuration();
    const auto name = store.sliceName();
    const auto cat = store.sliceCategory();

    // Role of each category and whether a name is a step marker, decided once per string.
    std::vector<Role> roleOfString(store.strings().size(), Role::Other);
    std::vector<char> isMarkerName(store.strings().size(), 0);
    for (StringId id = 0; id < store.strings().size(); ++id) {
        const std::string_view s = store.str(id);
        roleOfString[id] = roleOf(s);
        isMarkerName[id] = !options.stepPrefix.empty() && s.starts_with(options.stepPrefix);
    }

    std::unordered_map<std::int64_t, std::uint32_t> streamIndex;
    for (const Track& tr : store.tracks()) {
        std::uint32_t stream = 0;
        bool streamKnown = false;
        for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s) {
            const Role role = roleOfString[cat[s]];
            if (role == Role::Gpu) {
                if (!streamKnown) {
                    const std::int64_t number =
                        tr.thread == kNoIndex ? -1
                                              : streamOf(store.str(store.threads()[tr.thread].tid));
                    auto [it, inserted] =
                        streamIndex.try_emplace(number, std::uint32_t(work.streams.size()));
                    if (inserted) work.streams.push_back(number);
                    stream = it->second;
                    streamKnown = true;
                }
                GpuEvent e;
                e.start = round.start(start[s]);
                e.end = round.end(start[s], start[s] + dur[s]);
                e.slice = s;
                e.stream = stream;
                e.type = classifyKernel(store.str(name[s]));
                work.events.push_back(e);
                eventCorrelation.push_back(
                    argNumber(store.argsJson(store.sliceArgs(s)), "\"correlation\"")
                        .value_or(kNoCorrelation));
            } else if (role == Role::Runtime) {
                if (auto c = argNumber(store.argsJson(store.sliceArgs(s)), "\"correlation\""))
                    runtimeByCorrelation.emplace_back(*c, s);
            } else if (role == Role::Other && isMarkerName[name[s]]) {
                work.markers.push_back(s);
            }
        }
    }
}

// The GPU events, each with the runtime call that launched it (same correlation id), by start.
GpuWork collectGpuWork(const TraceStore& store, const RankAnalysisOptions& options,
                       const Rounding& round) {
    const auto start = store.sliceStart();
    const auto dur = store.sliceDuration();
    GpuWork work;
    std::vector<std::uint64_t> eventCorrelation;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> runtimeByCorrelation;
    collectSlices(store, options, round, work, eventCorrelation, runtimeByCorrelation);
    std::sort(runtimeByCorrelation.begin(), runtimeByCorrelation.end());
    std::vector<GpuEvent>& events = work.events;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const std::uint64_t c = eventCorrelation[i];
        if (c == kNoCorrelation) continue;
        auto it = std::lower_bound(runtimeByCorrelation.begin(), runtimeByCorrelation.end(),
                                   std::make_pair(c, std::uint32_t(0)));
        if (it == runtimeByCorrelation.end() || it->first != c) continue;
        const std::uint32_t r = it->second;
        events[i].launched = work.anyLaunched = true;
        events[i].runtimeStart = round.start(start[r]);
        events[i].runtimeEnd = round.end(start[r], start[r] + dur[r]);
    }
    std::sort(events.begin(), events.end(), [](const GpuEvent& a, const GpuEvent& b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    return work;
}

// Steps, and HTA's rule for the last one: with two or more steps, keep only GPU work whose
// launch started before the last step did (which also drops work with no launch). Returns
// which events are used.
std::vector<char> collectSteps(const TraceStore& store, const RankAnalysisOptions& options,
                               const Rounding& round, GpuWork& work, RankAnalysis& out) {
    const auto start = store.sliceStart();
    const auto dur = store.sliceDuration();
    const auto name = store.sliceName();
    std::vector<std::uint32_t>& markers = work.markers;
    std::sort(markers.begin(), markers.end(),
              [&](std::uint32_t a, std::uint32_t b) { return start[a] < start[b]; });
    for (std::uint32_t m : markers) {
        RankStep st;
        st.name = std::string(store.str(name[m]));
        st.start = round.start(start[m]);
        st.end = round.end(start[m], start[m] + dur[m]);
        out.steps.push_back(std::move(st));
    }
    const std::vector<GpuEvent>& events = work.events;
    std::vector<char> used(events.size(), 1);
    if (!options.includeLastStep && markers.size() >= 2 && work.anyLaunched) {
        std::int64_t lastStart = out.steps.front().start;
        for (const RankStep& st : out.steps)
            lastStart = std::max(lastStart, st.start);
        for (std::size_t i = 0; i < events.size(); ++i)
            used[i] = events[i].launched && events[i].runtimeStart < lastStart;
        out.lastStepExcluded = true;
    }
    return used;
}

// One sweep over the used events: busy time, compute, communication and their overlap,
// and the time of every combination of kernel types.
void sweepKernelTypes(const std::vector<GpuEvent>& events, const std::vector<char>& used,
                      RankAnalysis& out) {
    struct Edge {
        std::int64_t t;
        std::int8_t type, delta;
    };
    std::vector<Edge> edges;
    std::int64_t first = 0, last = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (!used[i]) continue;
        const GpuEvent& e = events[i];
        if (out.gpuEventsUsed++ == 0) first = e.start, last = e.end;
        last = std::max(last, e.end);
        edges.push_back({e.start, std::int8_t(e.type), 1});
        edges.push_back({e.end, std::int8_t(e.type), -1});
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
    std::array<int, kKernelTypeCount> active{};
    std::int64_t prev = first, busy = 0;
    for (const Edge& e : edges) {
        const std::int64_t dt = e.t - prev;
        if (dt > 0) {
            unsigned mask = 0;
            for (unsigned k = 0; k < 3; ++k)
                if (active[k] > 0) mask |= 1u << k;
            if (mask || active[3] > 0) busy += dt;
            if (mask & 1) out.temporal.computeNs += dt;
            if (mask & 2) out.commNs += dt;
            if ((mask & 3) == 3) out.commOverlapNs += dt;
            out.kernelTypes[mask] += dt;
            prev = e.t;
        }
        active[std::size_t(e.type)] += e.delta;
    }
    out.kernelTypes[0] = 0;
    out.temporal.windowNs = last - first;
    out.temporal.idleNs = out.temporal.windowNs - busy;
    out.temporal.nonComputeNs =
        out.temporal.windowNs - out.temporal.computeNs - out.temporal.idleNs;
}

// Adds one used event to its kernel's statistics (rows found by name through kernelRow).
void addKernelStat(const TraceStore& store, const GpuEvent& e,
                   std::vector<std::uint32_t>& kernelRow, RankAnalysis& out) {
    const StringId n = store.sliceName()[e.slice];
    if (kernelRow[n] == kNoIndex) {
        kernelRow[n] = std::uint32_t(out.kernels.size());
        KernelStats ks;
        ks.name = std::string(store.str(n));
        ks.type = e.type;
        ks.minNs = ks.maxNs = e.end - e.start;
        out.kernels.push_back(std::move(ks));
    }
    KernelStats& ks = out.kernels[kernelRow[n]];
    ++ks.count;
    ks.sumNs += e.end - e.start;
    ks.minNs = std::min(ks.minNs, e.end - e.start);
    ks.maxNs = std::max(ks.maxNs, e.end - e.start);
}

// Idle gaps per stream by cause, launch statistics and per-kernel statistics.
void streamAndKernelStats(const TraceStore& store, const RankAnalysisOptions& options,
                          const GpuWork& work, const std::vector<char>& used, RankAnalysis& out) {
    const std::vector<std::int64_t>& streams = work.streams;
    const std::vector<GpuEvent>& events = work.events;
    std::vector<std::int64_t> prevEnd(streams.size(), 0);
    std::vector<char> seen(streams.size(), 0);
    std::vector<StreamIdle> idle(streams.size());
    for (std::size_t k = 0; k < streams.size(); ++k)
        idle[k].stream = streams[k];
    std::vector<std::int64_t> delays;
    std::vector<std::uint32_t> kernelRow(store.strings().size(), kNoIndex);
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (!used[i]) continue;
        const GpuEvent& e = events[i];
        // Gaps since the latest end of the earlier events on the stream.
        if (seen[e.stream]) {
            const std::int64_t gap = e.start - prevEnd[e.stream];
            StreamIdle& si = idle[e.stream];
            if (gap > 0) {
                if (e.launched && e.runtimeStart > prevEnd[e.stream])
                    si.hostWaitNs += gap;
                else if (gap < options.kernelWaitNs)
                    si.kernelWaitNs += gap;
                else
                    si.otherNs += gap;
            }
            prevEnd[e.stream] = std::max(prevEnd[e.stream], e.end);
        } else {
            seen[e.stream] = 1;
            prevEnd[e.stream] = e.end;
        }
        if (e.launched) {
            const std::int64_t cpu = e.runtimeEnd - e.runtimeStart, gpu = e.end - e.start;
            const std::int64_t delay = e.start - e.runtimeEnd;
            ++out.launch.kernels;
            if (cpu <= options.runtimeCutoffNs && gpu < cpu) ++out.launch.shortKernels;
            if (cpu > options.runtimeCutoffNs) ++out.launch.runtimeOutliers;
            if (delay > options.launchDelayCutoffNs) ++out.launch.delayOutliers;
            delays.push_back(delay);
        }
        addKernelStat(store, e, kernelRow, out);
    }
    for (std::size_t k = 0; k < streams.size(); ++k)
        if (seen[k]) out.idle.push_back(idle[k]);
    std::sort(out.idle.begin(), out.idle.end(),
              [](const StreamIdle& a, const StreamIdle& b) { return a.stream < b.stream; });
    if (!delays.empty()) {
        out.launch.delayP50Ns = percentile(delays, 50);
        out.launch.delayP95Ns = percentile(delays, 95);
    }
    std::sort(out.kernels.begin(), out.kernels.end(),
              [](const KernelStats& a, const KernelStats& b) {
                  return a.sumNs != b.sumNs ? a.sumNs > b.sumNs : a.name < b.name;
              });
}

// Per step: the step window not covered by any GPU event (all of them, the last step's
// included); and every communication kernel, for matching collectives across ranks.
void stepIdleAndCollectives(const TraceStore& store, const std::vector<GpuEvent>& events,
                            RankAnalysis& out) {
    const auto name = store.sliceName();
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    std::unordered_map<StringId, std::uint32_t> collectiveName;
    for (const GpuEvent& e : events) {
        if (!merged.empty() && e.start <= merged.back().second)
            merged.back().second = std::max(merged.back().second, e.end);
        else
            merged.emplace_back(e.start, e.end);
        if (e.type == KernelType::Communication) {
            auto [it, inserted] = collectiveName.try_emplace(
                name[e.slice], std::uint32_t(out.collectiveNames.size()));
            if (inserted) out.collectiveNames.emplace_back(store.str(name[e.slice]));
            out.collectives.push_back({it->second, e.start, e.end, 0});
        }
    }
    for (RankStep& st : out.steps) {
        std::int64_t busy = 0;
        auto it = std::lower_bound(merged.begin(), merged.end(), st.start,
                                   [](const std::pair<std::int64_t, std::int64_t>& m,
                                      std::int64_t t) { return m.second <= t; });
        for (; it != merged.end() && it->first < st.end; ++it)
            busy += std::min(it->second, st.end) - std::max(it->first, st.start);
        st.idleNs = st.durNs() - busy;
    }
}

} // namespace

RankAnalysis analyzeRank(const TraceStore& store, const RankAnalysisOptions& options) {
    RankAnalysis out;
    const Rounding round{hasFractionalTimes(store)};
    out.roundedToMicros = round.on;
    GpuWork work = collectGpuWork(store, options, round);
    out.gpuEvents = work.events.size();
    const std::vector<char> used = collectSteps(store, options, round, work, out);
    sweepKernelTypes(work.events, used, out);
    streamAndKernelStats(store, options, work, used, out);
    stepIdleAndCollectives(store, work.events, out);
    return out;
}

namespace {

// Collectives: the k-th kernel of a name on every rank that has one; each waits for the time
// it ran longer than the shortest of them. Sums the waits per rank and per step.
void matchCollectives(SessionAnalysis& out, std::size_t n) {
    std::map<std::string, std::vector<std::vector<std::uint32_t>>> byName;
    for (std::size_t r = 0; r < n; ++r) {
        const RankAnalysis& a = out.perRank[r];
        for (std::uint32_t c = 0; c < a.collectives.size(); ++c) {
            auto& lists = byName[a.collectiveNames[a.collectives[c].name]];
            lists.resize(n);
            lists[r].push_back(c);
        }
    }
    for (auto& [collective, lists] : byName) {
        std::size_t most = 0;
        for (const auto& l : lists)
            most = std::max(most, l.size());
        for (std::size_t k = 0; k < most; ++k) {
            std::int64_t shortest = INT64_MAX;
            int ranksWithIt = 0;
            for (std::size_t r = 0; r < n; ++r)
                if (k < lists[r].size()) {
                    const Collective& c = out.perRank[r].collectives[lists[r][k]];
                    shortest = std::min(shortest, c.end - c.start);
                    ++ranksWithIt;
                }
            if (ranksWithIt < 2) continue;
            for (std::size_t r = 0; r < n; ++r)
                if (k < lists[r].size()) {
                    Collective& c = out.perRank[r].collectives[lists[r][k]];
                    c.waitNs = c.end - c.start - shortest;
                }
        }
    }
    for (std::size_t r = 0; r < n; ++r) {
        RankAnalysis& a = out.perRank[r];
        a.collectiveWaitNs = 0;
        for (const Collective& c : a.collectives)
            a.collectiveWaitNs += c.waitNs;
        for (RankStep& st : a.steps) {
            st.collectiveWaitNs = 0;
            auto it =
                std::lower_bound(a.collectives.begin(), a.collectives.end(), st.start,
                                 [](const Collective& c, std::int64_t t) { return c.start < t; });
            for (; it != a.collectives.end() && it->start < st.end; ++it)
                st.collectiveWaitNs += it->waitNs;
        }
    }
}

// Stragglers per step name, ordered by step number.
void stepStragglers(SessionAnalysis& out, std::size_t n) {
    std::map<std::string, StepStraggler> steps;
    for (std::size_t r = 0; r < n; ++r)
        for (const RankStep& st : out.perRank[r].steps) {
            StepStraggler& s = steps[st.name];
            s.name = st.name;
            s.durByRank.emplace_back(out.ranks[r], st.durNs());
        }
    for (auto& [stepName, s] : steps) {
        std::sort(s.durByRank.begin(), s.durByRank.end());
        auto slow = s.durByRank.front(), fast = s.durByRank.front();
        for (const auto& rd : s.durByRank) {
            if (rd.second > slow.second) slow = rd;
            if (rd.second < fast.second) fast = rd;
        }
        s.slowestRank = slow.first;
        s.fastestRank = fast.first;
        s.skewNs = slow.second - fast.second;
        out.steps.push_back(std::move(s));
    }
    std::stable_sort(out.steps.begin(), out.steps.end(),
                     [](const StepStraggler& a, const StepStraggler& b) {
                         const std::int64_t na = stepNumber(a.name), nb = stepNumber(b.name);
                         return na != nb ? na < nb : a.name < b.name;
                     });
}

// Top kernels per type by the time summed over ranks.
void topKernels(SessionAnalysis& out, std::size_t n, std::size_t topPerType) {
    for (KernelType type :
         {KernelType::Computation, KernelType::Communication, KernelType::Memory}) {
        std::map<std::string, TopKernel> byKernel;
        for (std::size_t r = 0; r < n; ++r)
            for (const KernelStats& k : out.perRank[r].kernels) {
                if (k.type != type) continue;
                TopKernel& t = byKernel[k.name];
                t.type = type;
                t.name = k.name;
                t.sumNs += k.sumNs;
                t.ranks.emplace_back(out.ranks[r], k);
            }
        std::vector<TopKernel> list;
        for (auto& [kernelName, t] : byKernel)
            list.push_back(std::move(t));
        std::stable_sort(list.begin(), list.end(),
                         [](const TopKernel& a, const TopKernel& b) { return a.sumNs > b.sumNs; });
        if (list.size() > topPerType) list.resize(topPerType);
        for (auto& t : list)
            out.topKernels.push_back(std::move(t));
    }
}

} // namespace

SessionAnalysis analyzeSession(std::vector<int> ranks, std::vector<RankAnalysis> perRank,
                               std::size_t topPerType) {
    SessionAnalysis out;
    out.ranks = std::move(ranks);
    out.perRank = std::move(perRank);
    const std::size_t n = std::min(out.ranks.size(), out.perRank.size());
    matchCollectives(out, n);
    stepStragglers(out, n);
    topKernels(out, n, topPerType);
    return out;
}

} // namespace xt::timeline
