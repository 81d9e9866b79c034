#include "core/timeline/trace_store_builder.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>
#include <charconv>
#include <tuple>

namespace xt::timeline {

namespace {

bool parseNumberText(std::string_view t, double& out) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), out);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Numeric ordering key for pid/tid text: numbers sort numerically before names.
std::tuple<int, double, std::string_view> idSortKey(std::string_view t) {
    double d = 0;
    if (!t.empty() && parseNumberText(t, d)) return {0, d, t};
    return {1, 0.0, t};
}

std::vector<std::uint32_t> identity(std::size_t n) {
    std::vector<std::uint32_t> v(n);
    for (std::uint32_t i = 0; i < n; ++i)
        v[i] = i;
    return v;
}

} // namespace

std::size_t TraceStoreBuilder::ObjectKeyHash::operator()(
    const std::tuple<std::uint32_t, StringId, std::uint64_t>& k) const {
    auto [a, b, c] = k;
    return std::hash<std::uint64_t>()((std::uint64_t(a) << 32 | b) * 0x9E3779B97F4A7C15ull ^
                                      c * 0xC2B2AE3D27D4EB4Full);
}

TraceStoreBuilder::TraceStoreBuilder(std::string file, const ImportOptions& options)
    : m_options(options), m_flows(options.chromeCompatibleFlows) {
    m_report.file = std::move(file);
}

void TraceStoreBuilder::setText(TraceBytes bytes) {
    m_store.m_bytes = std::move(bytes);
    m_report.container = traceContainerName(m_store.m_bytes.container());
    m_report.inputBytes = m_store.m_bytes.inputSize();
    m_report.jsonBytes = m_store.m_bytes.text().size();
}

ArgsRef TraceStoreBuilder::addArgs(std::string_view jsonObject) {
    ArgsRef a{m_args.size(), static_cast<std::uint32_t>(jsonObject.size())};
    m_args.append(jsonObject);
    return a;
}

std::uint64_t TraceStoreBuilder::idKey(std::string_view t) {
    std::uint64_t v = 0;
    std::uint64_t tag = 0;
    std::string_view d = t;
    int base = 10;
    if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
        d.remove_prefix(2);
        base = 16;
        tag = 1ull << 62;
    }
    if (!d.empty() && d.size() <= 15) {
        auto r = std::from_chars(d.data(), d.data() + d.size(), v, base);
        if (r.ec == std::errc() && r.ptr == d.data() + d.size() &&
            (base == 16 || d[0] != '0' || d.size() == 1))
            return tag | v;
    }
    return (2ull << 62) | intern(t);
}

bool TraceStoreBuilder::admit(StringId pid, StringId tid, bool threaded) {
    if (!m_processByPid.count(pid) && m_processes.size() >= m_options.maxProcesses) {
        warn(codes::kTooManyProcesses,
             "more than " + std::to_string(m_options.maxProcesses) +
                 " processes (ImportOptions::maxProcesses): event skipped");
        return false;
    }
    if (threaded && m_threads.size() >= m_options.maxThreads &&
        !(pid == m_lastPid && tid == m_lastTid) &&
        !m_threadByKey.count((std::uint64_t(pid) << 32) | tid)) {
        warn(codes::kTooManyThreads, "more than " + std::to_string(m_options.maxThreads) +
                                         " threads (ImportOptions::maxThreads): event skipped");
        return false;
    }
    return true;
}

std::uint32_t TraceStoreBuilder::process(StringId pid) {
    auto [it, inserted] =
        m_processByPid.try_emplace(pid, static_cast<std::uint32_t>(m_processes.size()));
    if (inserted) m_processes.push_back(RawProcess{pid, 0, 0, 0});
    return it->second;
}

std::uint32_t TraceStoreBuilder::findThread(StringId pid, StringId tid) {
    const std::uint64_t key = (std::uint64_t(pid) << 32) | tid;
    auto it = m_threadByKey.find(key);
    std::uint32_t idx;
    if (it != m_threadByKey.end()) {
        idx = it->second;
    } else {
        idx = static_cast<std::uint32_t>(m_threads.size());
        RawThread t;
        t.process = process(pid);
        t.tid = tid;
        m_threads.push_back(std::move(t));
        m_threadByKey.emplace(key, idx);
    }
    m_lastPid = pid;
    m_lastTid = tid;
    m_lastThread = idx;
    return idx;
}

void TraceStoreBuilder::setProcessName(std::uint32_t process, StringId name) {
    m_processes[process].name = name;
}
void TraceStoreBuilder::setProcessLabels(std::uint32_t process, StringId labels) {
    m_processes[process].labels = labels;
}
void TraceStoreBuilder::setProcessSortIndex(std::uint32_t process, std::int64_t sortIndex) {
    m_processes[process].sortIndex = sortIndex;
}
void TraceStoreBuilder::setThreadName(std::uint32_t thread, StringId name) {
    m_threads[thread].name = name;
}
void TraceStoreBuilder::setThreadSortIndex(std::uint32_t thread, std::int64_t sortIndex) {
    m_threads[thread].sortIndex = sortIndex;
}

void TraceStoreBuilder::addBegin(std::uint32_t thread, const SliceEvent& s) {
    seeTime(s.ts);
    m_threads[thread].slices.begin(sliceRecord(s), m_offset);
}

void TraceStoreBuilder::addEnd(std::uint32_t thread, std::int64_t ts) {
    seeTime(ts);
    m_threads[thread].slices.end(ts, order(), m_offset);
}

void TraceStoreBuilder::addInstant(std::uint32_t process, std::uint32_t thread, Instant in) {
    seeTime(in.ts);
    m_instants.push_back(RawInstant{in, process, thread});
}

void TraceStoreBuilder::addCounter(std::uint32_t process, StringId series, std::string_view key,
                                   std::int64_t ts, double value) {
    seeTime(ts);
    auto [it, inserted] = m_counterIndex.try_emplace({process, series},
                                                     static_cast<std::uint32_t>(m_counters.size()));
    if (inserted) {
        CounterSeries cs;
        cs.process = process;
        cs.name = series;
        cs.key = intern(key);
        m_counters.push_back(std::move(cs));
    }
    m_counters[it->second].ts.push_back(ts);
    m_counters[it->second].values.push_back(value);
}

void TraceStoreBuilder::asyncBegin(AsyncKind kind, std::uint32_t process, StringId cat,
                                   std::uint64_t id, StringId name, std::int64_t ts, ArgsRef args) {
    seeTime(ts);
    m_async.begin(kind, process, cat, id, AsyncSpan{ts, kNoTime, name, cat, args, order()});
}

bool TraceStoreBuilder::asyncEnd(AsyncKind kind, std::uint32_t process, StringId cat,
                                 std::uint64_t id, std::int64_t ts) {
    seeTime(ts);
    if (m_async.end(kind, process, cat, id, ts)) return true;
    warn(codes::kUnmatchedAsyncEnd, std::string("async '") +
                                        (kind == AsyncKind::Nestable ? 'e' : 'F') +
                                        "' without an open begin: skipped");
    return false;
}

void TraceStoreBuilder::addFlowPoint(std::uint32_t thread, char ph, StringId cat, StringId name,
                                     std::uint64_t id, std::int64_t ts, bool enclosing) {
    seeTime(ts);
    m_flows.point(FlowPoint{cat, name, id, ts, thread, ph, enclosing, order()});
}

void TraceStoreBuilder::objectCreated(std::uint32_t process, StringId name, std::uint64_t id,
                                      StringId idText, std::int64_t ts) {
    seeTime(ts);
    const auto key = std::make_tuple(process, name, id);
    auto it = m_liveObjects.find(key);
    if (it != m_liveObjects.end()) {
        m_objects[it->second].destroyed = ts;
        warn(codes::kObjectRecreated, "N for a live object: the old one ends here");
    }
    m_liveObjects[key] = static_cast<std::uint32_t>(m_objects.size());
    m_objects.push_back(RawObject{process, name, idText, ts, kNoTime, 0, {}});
}

void TraceStoreBuilder::objectSnapshot(std::uint32_t process, StringId name, std::uint64_t id,
                                       ArgsRef args) {
    auto it = m_liveObjects.find(std::make_tuple(process, name, id));
    if (it == m_liveObjects.end()) {
        warn(codes::kObjectSnapshotWithoutCreate, "'O' for an object never created: skipped");
        return;
    }
    ++m_objects[it->second].snapshots;
    m_objects[it->second].last = args;
}

void TraceStoreBuilder::objectDeleted(std::uint32_t process, StringId name, std::uint64_t id,
                                      std::int64_t ts) {
    seeTime(ts);
    auto it = m_liveObjects.find(std::make_tuple(process, name, id));
    if (it == m_liveObjects.end()) {
        warn(codes::kObjectDeleteWithoutCreate, "'D' for an object never created: skipped");
        return;
    }
    m_objects[it->second].destroyed = ts;
    m_liveObjects.erase(it);
}

// ---------------------------------------------------------------------------------------------
// finish: everything collected is sorted, matched and resolved into the store's tables.

ImportWarn TraceStoreBuilder::warnFn() {
    return [this](const DiagnosticCode& code, std::uint64_t offset, std::uint64_t record,
                  std::string message) {
        m_record = record;
        warnAt(code, offset, std::move(message));
    };
}

// Processes by (sort_index, pid), threads by (process, sort_index, tid).
TraceStoreBuilder::DisplayOrder TraceStoreBuilder::displayOrder() const {
    const StringTable& strs = m_store.m_strings;
    DisplayOrder o;
    o.procOrder = identity(m_processes.size());
    std::stable_sort(o.procOrder.begin(), o.procOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto &pa = m_processes[a], &pb = m_processes[b];
        if (pa.sortIndex != pb.sortIndex) return pa.sortIndex < pb.sortIndex;
        return idSortKey(strs.view(pa.pid)) < idSortKey(strs.view(pb.pid));
    });
    o.procRank.resize(m_processes.size());
    for (std::uint32_t i = 0; i < o.procOrder.size(); ++i)
        o.procRank[o.procOrder[i]] = i;
    o.thrOrder = identity(m_threads.size());
    std::stable_sort(o.thrOrder.begin(), o.thrOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto &ta = m_threads[a], &tb = m_threads[b];
        if (ta.process != tb.process) return o.procRank[ta.process] < o.procRank[tb.process];
        if (ta.sortIndex != tb.sortIndex) return ta.sortIndex < tb.sortIndex;
        return idSortKey(strs.view(ta.tid)) < idSortKey(strs.view(tb.tid));
    });
    o.thrRank.resize(m_threads.size());
    for (std::uint32_t i = 0; i < o.thrOrder.size(); ++i)
        o.thrRank[o.thrOrder[i]] = i;
    return o;
}

// Room for `rows` slices in each column, so that none is copied as it grows.
void TraceStoreBuilder::reserveSlices(std::size_t rows) {
    TraceStore& st = m_store;
    st.m_start.reserve(rows);
    st.m_dur.reserve(rows);
    st.m_name.reserve(rows);
    st.m_cat.reserve(rows);
    st.m_depth.reserve(rows);
    st.m_parent.reserve(rows);
    st.m_track.reserve(rows);
    st.m_argsOffset.reserve(rows);
    st.m_argsSize.reserve(rows);
}

void TraceStoreBuilder::appendSlice(const SliceRecord& s, std::uint16_t depth,
                                    std::uint32_t parent) {
    TraceStore& st = m_store;
    const auto idx = static_cast<std::uint32_t>(st.m_start.size());
    st.m_start.push_back(s.start);
    st.m_dur.push_back(s.dur);
    st.m_name.push_back(s.name);
    st.m_cat.push_back(s.cat);
    st.m_depth.push_back(depth);
    st.m_parent.push_back(parent);
    st.m_track.push_back(static_cast<std::uint32_t>(st.m_tracks.size()));
    st.m_argsOffset.push_back(s.args.offset);
    st.m_argsSize.push_back(s.args.size);
    if (s.bindId != 0 && s.flow != 0) m_flows.bindable(idx, s.bindId, s.flow);
}

// Thread tracks: X slices plus matched B/E pairs, sorted, with depth and parent.
void TraceStoreBuilder::layoutThreads(const DisplayOrder& o, std::int64_t traceEnd,
                                      std::vector<std::uint32_t>& threadTrack) {
    TraceStore& st = m_store;
    threadTrack.assign(m_threads.size(), 0);
    const ImportWarn warn = warnFn();
    for (std::uint32_t r = 0; r < o.thrOrder.size(); ++r) {
        RawThread& rt = m_threads[o.thrOrder[r]];
        st.m_threads.push_back(Thread{o.procRank[rt.process], rt.tid, rt.name, rt.sortIndex});
        const HugePageVector<SliceRecord> work = rt.slices.takeSorted(traceEnd, warn);
        Track track;
        track.kind = TrackKind::Thread;
        track.process = o.procRank[rt.process];
        track.thread = r;
        track.sliceBegin = static_cast<std::uint32_t>(st.m_start.size());
        SliceNester nester;
        std::uint64_t overlaps = 0;
        for (const SliceRecord& s : work) {
            const auto idx = static_cast<std::uint32_t>(st.m_start.size());
            const SliceNester::Place p = nester.place(idx, s.start, s.start + s.dur);
            overlaps += p.overlapsParent;
            track.maxDepth = std::max(track.maxDepth, p.depth);
            appendSlice(s, p.depth, p.parent);
        }
        for (std::uint64_t k = 0; k < overlaps; ++k)
            warnAt(codes::kOverlappingSlice, Diagnostic::kNoOffset,
                   "slice overlaps its neighbour on one thread: drawn one row deeper");
        track.sliceEnd = static_cast<std::uint32_t>(st.m_start.size());
        threadTrack[o.thrOrder[r]] = static_cast<std::uint32_t>(st.m_tracks.size());
        st.m_tracks.push_back(track);
    }
}

void TraceStoreBuilder::layoutAsync(const DisplayOrder& o) {
    for (std::uint32_t pr = 0; pr < o.procOrder.size(); ++pr) {
        for (const AsyncLane& lane : m_async.takeLanes(o.procOrder[pr])) {
            Track track;
            track.kind = TrackKind::Async;
            track.process = pr;
            track.name = lane.name;
            track.sliceBegin = static_cast<std::uint32_t>(m_store.m_start.size());
            for (const AsyncSpan& a : lane.spans)
                appendSlice(SliceRecord{a.start, a.end - a.start, a.name, a.cat, a.args, a.order},
                            0, kNoIndex);
            track.sliceEnd = static_cast<std::uint32_t>(m_store.m_start.size());
            m_store.m_tracks.push_back(track);
        }
    }
}

// A flow point's slice: the one enclosing its time on its thread, or the next to start.
class TraceStoreBuilder::SliceLookup : public FlowTracker::SliceLookup {
public:
    SliceLookup(const TraceStore& st, const std::vector<std::uint32_t>& threadTrack)
        : m_st(st), m_threadTrack(threadTrack) {}
    std::uint32_t enclosing(std::uint32_t thread, std::int64_t ts) const override {
        const Range r = range(thread);
        auto it = std::upper_bound(r.first, r.second, ts);
        if (it == r.first) return kNoIndex;
        auto s = static_cast<std::uint32_t>((it - m_st.sliceStart().begin()) - 1);
        while (s != kNoIndex && m_st.sliceEnd(s) < ts)
            s = m_st.sliceParent()[s];
        return s;
    }
    std::uint32_t next(std::uint32_t thread, std::int64_t ts) const override {
        const Range r = range(thread);
        auto it = std::lower_bound(r.first, r.second, ts);
        return it == r.second ? kNoIndex
                              : static_cast<std::uint32_t>(it - m_st.sliceStart().begin());
    }

private:
    using Range =
        std::pair<std::span<const std::int64_t>::iterator, std::span<const std::int64_t>::iterator>;
    Range range(std::uint32_t thread) const {
        const Track& t = m_st.tracks()[m_threadTrack[thread]];
        const auto starts = m_st.sliceStart();
        return {starts.begin() + t.sliceBegin, starts.begin() + t.sliceEnd};
    }

    const TraceStore& m_st;
    const std::vector<std::uint32_t>& m_threadTrack;
};

// Instants by time, counter values by time, objects as created; all with display indices.
void TraceStoreBuilder::finishTables(const DisplayOrder& o) {
    TraceStore& st = m_store;
    for (auto& ri : m_instants) {
        ri.in.process = o.procRank[ri.rawProcess];
        ri.in.thread = ri.rawThread == kNoIndex ? kNoIndex : o.thrRank[ri.rawThread];
        st.m_instants.push_back(ri.in);
    }
    std::stable_sort(st.m_instants.begin(), st.m_instants.end(),
                     [](const Instant& a, const Instant& b) { return a.ts < b.ts; });
    m_instants = std::vector<RawInstant>(); // `= {}` would keep the capacity
    for (auto& cs : m_counters) {
        std::vector<std::uint32_t> idx = identity(cs.ts.size());
        std::stable_sort(idx.begin(), idx.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return cs.ts[a] < cs.ts[b]; });
        CounterSeries sorted;
        sorted.process = o.procRank[cs.process];
        sorted.name = cs.name;
        sorted.key = cs.key;
        for (auto i : idx) {
            sorted.ts.push_back(cs.ts[i]);
            sorted.values.push_back(cs.values[i]);
        }
        st.m_counters.push_back(std::move(sorted));
    }
    m_counters = {};
    for (const auto& ob : m_objects)
        st.m_objects.push_back(ObjectLifetime{o.procRank[ob.process], ob.name, ob.id, ob.created,
                                              ob.destroyed, ob.snapshots, ob.last});
    m_objects = std::vector<RawObject>();
}

// Phase counts as written.
void TraceStoreBuilder::finishReport() {
    for (int c = 0; c < 256; ++c)
        if (m_phaseCounts[c])
            m_report.phases[std::string(1, static_cast<char>(c))] = m_phaseCounts[c];
    for (auto& [k, v] : m_otherPhases)
        m_report.phases[k] += v;
    if (!m_args.empty() && m_store.m_bytes.text().empty()) {
        auto bytes = TraceBytes::fromMemory(std::move(m_args));
        if (bytes) m_store.m_bytes = std::move(bytes.value());
    }
    m_store.m_report = std::move(m_report);
}

TraceStore TraceStoreBuilder::finish() {
    TraceStore& st = m_store;
    st.m_bytes.closeFile(); // the store reads its args from the mapping
    const std::int64_t traceEnd = st.m_end == kNoTime ? 0 : st.m_end;
    m_async.closeOpen(traceEnd, m_record, warnFn());
    const DisplayOrder o = displayOrder();
    for (std::uint32_t i : o.procOrder) {
        const RawProcess& rp = m_processes[i];
        st.m_processes.push_back(Process{rp.pid, rp.name, rp.labels, rp.sortIndex});
    }
    std::size_t rows = m_async.spanCount();
    for (const RawThread& t : m_threads)
        rows += t.slices.sliceBound();
    reserveSlices(rows);
    std::vector<std::uint32_t> threadTrack;
    layoutThreads(o, traceEnd, threadTrack);
    layoutAsync(o);
    m_flows.bind(SliceLookup(st, threadTrack), st.m_start, st.m_name, st.m_flows, m_record,
                 warnFn());
    finishTables(o);
    finishReport();
    return std::move(m_store);
}

} // namespace xt::timeline
