#pragma once
// Builds a TraceStore from events given one by one, in any order: what the Chrome reader fills
// as it parses, and what other importers (StepStats, XDL steps) fill directly. finish() sorts
// and nests each thread's slices (NestingTracker), lays async spans on lanes
// (AsyncLaneTracker), binds flows (FlowTracker) and orders processes and threads for display.
//
// Strings are interned first (intern, idKey); the order of first interning is the order in
// which equal-time flows and same-named async groups are laid out. Every event is located by
// setPosition (record number and byte offset): equal events keep record order, and the
// diagnostics of the event carry both. The events counted in the report are the caller's to
// count (countEvent), since a reader also counts events it cannot use.

#include "core/timeline/async_lane_tracker.h"
#include "core/timeline/flow_tracker.h"
#include "core/timeline/import_options.h"
#include "core/timeline/nesting_tracker.h"
#include "core/timeline/trace_store.h"

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xt::timeline {

struct SliceEvent {
    std::int64_t ts = 0, dur = 0; // ns; dur is not read for a begin
    StringId name = 0, cat = 0;
    ArgsRef args;
    StringId bindId = 0; // flow v2: with flowIn / flowOut, joins slices of equal bindId
    bool flowIn = false, flowOut = false;
};

class TraceStoreBuilder {
public:
    // `file` labels the diagnostics; options bound processes and threads and choose the flow
    // rule (ImportOptions::chromeCompatibleFlows).
    explicit TraceStoreBuilder(std::string file, const ImportOptions& options = {});

    // The text that ArgsRefs point into (a JSON reader: the whole input). A builder without
    // text keeps args given to addArgs instead.
    void setText(TraceBytes bytes);
    ArgsRef addArgs(std::string_view jsonObject);
    std::string_view text() const { return m_store.m_bytes.text(); }
    // Gives back the resident pages of text()[begin, end) (TraceBytes::releasePages).
    void releaseText(std::size_t begin, std::size_t end) const {
        m_store.m_bytes.releasePages(begin, end);
    }
    // Copies text()[begin, end) to `out` (TraceBytes::copyText).
    void copyText(std::size_t begin, std::size_t end, char* out) const {
        m_store.m_bytes.copyText(begin, end, out);
    }
    ImportReport& report() { return m_report; }

    StringId intern(std::string_view s) { return m_store.m_strings.intern(s); }
    std::string_view str(StringId id) const { return m_store.m_strings.view(id); }
    // A 64-bit key for an async, flow or object id: decimal and 0x-hex numbers below 2^62 are
    // their value (tagged by base), anything else the interned text.
    std::uint64_t idKey(std::string_view text);

    // The record number and byte offset of the event being added (Diagnostic::kNoOffset when
    // it has none). Diagnostics: warn() at that position, warnAt() at another offset.
    void setPosition(std::uint64_t record, std::uint64_t offset = Diagnostic::kNoOffset) {
        m_record = record;
        m_offset = offset;
    }
    void warn(const DiagnosticCode& code, std::string message) {
        warnAt(code, m_offset, std::move(message));
    }
    void warnAt(const DiagnosticCode& code, std::uint64_t offset, std::string message) {
        m_report.diagnostics.add(code, m_report.file, offset, static_cast<std::int64_t>(m_record),
                                 std::move(message));
    }
    // One input event, and its phase as written ("X"; any text).
    void countEvent() { ++m_report.events; }
    void countPhase(std::string_view phase) {
        if (phase.size() == 1)
            ++m_phaseCounts[static_cast<unsigned char>(phase[0])];
        else
            ++m_otherPhases[std::string(phase)];
    }

    // Whether an event of `pid` (and of `tid` when `threaded`) fits ImportOptions::maxProcesses
    // and maxThreads; when not it is counted ("too-many-processes", "too-many-threads").
    bool admit(StringId pid, StringId tid, bool threaded);
    // Index of the process / thread, created on first use.
    std::uint32_t process(StringId pid);
    std::uint32_t thread(StringId pid, StringId tid) {
        return pid == m_lastPid && tid == m_lastTid ? m_lastThread : findThread(pid, tid);
    }
    void setProcessName(std::uint32_t process, StringId name);
    void setProcessLabels(std::uint32_t process, StringId labels);
    void setProcessSortIndex(std::uint32_t process, std::int64_t sortIndex);
    void setThreadName(std::uint32_t thread, StringId name);
    void setThreadSortIndex(std::uint32_t thread, std::int64_t sortIndex);

    // Times (and durations) are kept within +-4.6e15 us (146 years either side of the epoch), so
    // in nanoseconds they stay below 2^62 and any sum or difference of two fits in an int64.
    static constexpr std::int64_t kMaxAbsMicros = 4'600'000'000'000'000;
    static bool microsInRange(std::int64_t us) { return us > -kMaxAbsMicros && us < kMaxAbsMicros; }
    // Widens the trace's time range; the add calls below do it for their own times.
    void seeTime(std::int64_t t) {
        if (m_store.m_begin == kNoTime || t < m_store.m_begin) m_store.m_begin = t;
        if (m_store.m_end == kNoTime || t > m_store.m_end) m_store.m_end = t;
    }

    void addComplete(std::uint32_t thread, const SliceEvent& s) { // X
        seeTime(s.ts);
        seeTime(s.ts + s.dur);
        m_threads[thread].slices.complete(sliceRecord(s));
    }
    void addBegin(std::uint32_t thread, const SliceEvent& s); // B
    void addEnd(std::uint32_t thread, std::int64_t ts);       // E: closes the latest B
    // i / I / R / n: `thread` is kNoIndex unless in.scope is Thread; in.process and in.thread
    // are set here.
    void addInstant(std::uint32_t process, std::uint32_t thread, Instant in);
    // One value of the counter series `series` of a process (C); `key` names the arg.
    void addCounter(std::uint32_t process, StringId series, std::string_view key, std::int64_t ts,
                    double value);
    void asyncBegin(AsyncKind kind, std::uint32_t process, StringId cat, std::uint64_t id,
                    StringId name, std::int64_t ts, ArgsRef args);
    // False, counted as "unmatched-async-end", when no begin of that id is open.
    bool asyncEnd(AsyncKind kind, std::uint32_t process, StringId cat, std::uint64_t id,
                  std::int64_t ts);
    // A v1 flow point (s / t / f); `enclosing` false binds to the next slice.
    void addFlowPoint(std::uint32_t thread, char ph, StringId cat, StringId name, std::uint64_t id,
                      std::int64_t ts, bool enclosing);
    // N / O / D of the object (process, name, id); `idText` is the id as written.
    void objectCreated(std::uint32_t process, StringId name, std::uint64_t id, StringId idText,
                       std::int64_t ts);
    void objectSnapshot(std::uint32_t process, StringId name, std::uint64_t id, ArgsRef args);
    void objectDeleted(std::uint32_t process, StringId name, std::uint64_t id, std::int64_t ts);

    TraceStore finish();

private:
    struct RawProcess {
        StringId pid = 0, name = 0, labels = 0;
        std::int64_t sortIndex = 0;
    };
    struct RawThread {
        std::uint32_t process = 0;
        StringId tid = 0, name = 0;
        std::int64_t sortIndex = 0;
        NestingTracker slices;
    };
    struct RawInstant {
        Instant in;
        std::uint32_t rawProcess, rawThread;
    };
    struct RawObject {
        std::uint32_t process = 0;
        StringId name = 0, id = 0;
        std::int64_t created = kNoTime, destroyed = kNoTime;
        std::uint32_t snapshots = 0;
        ArgsRef last;
    };
    struct ObjectKeyHash {
        std::size_t operator()(const std::tuple<std::uint32_t, StringId, std::uint64_t>& k) const;
    };
    struct DisplayOrder {
        std::vector<std::uint32_t> procOrder, procRank, thrOrder, thrRank;
    };
    class SliceLookup;

    std::uint32_t order() const { return static_cast<std::uint32_t>(m_record); }
    SliceRecord sliceRecord(const SliceEvent& s) const {
        const std::uint8_t flow = (s.flowIn ? kFlowIn : 0) | (s.flowOut ? kFlowOut : 0);
        return SliceRecord{s.ts, s.dur, s.name, s.cat, s.args, order(), s.bindId, flow};
    }
    std::uint32_t findThread(StringId pid, StringId tid);
    ImportWarn warnFn();
    DisplayOrder displayOrder() const;
    void layoutThreads(const DisplayOrder& o, std::int64_t traceEnd,
                       std::vector<std::uint32_t>& threadTrack);
    void reserveSlices(std::size_t rows);
    void appendSlice(const SliceRecord& s, std::uint16_t depth, std::uint32_t parent);
    void layoutAsync(const DisplayOrder& o);
    void finishTables(const DisplayOrder& o);
    void finishReport();

    ImportOptions m_options;
    TraceStore m_store;
    ImportReport m_report;
    std::string m_args; // addArgs text when there is no setText
    std::uint64_t m_record = 0, m_offset = Diagnostic::kNoOffset;
    std::array<std::uint64_t, 256> m_phaseCounts{};
    std::map<std::string, std::uint64_t, std::less<>> m_otherPhases;

    std::vector<RawProcess> m_processes;
    std::unordered_map<StringId, std::uint32_t> m_processByPid;
    std::vector<RawThread> m_threads;
    std::unordered_map<std::uint64_t, std::uint32_t> m_threadByKey;
    StringId m_lastPid = kNoIndex, m_lastTid = kNoIndex;
    std::uint32_t m_lastThread = 0;

    AsyncLaneTracker m_async;
    FlowTracker m_flows;
    std::vector<RawInstant> m_instants;
    std::map<std::pair<std::uint32_t, StringId>, std::uint32_t> m_counterIndex;
    std::vector<CounterSeries> m_counters; // process = raw process index until finish
    std::unordered_map<std::tuple<std::uint32_t, StringId, std::uint64_t>, std::uint32_t,
                       ObjectKeyHash>
        m_liveObjects; // (process, name, id)
    std::vector<RawObject> m_objects;
};

} // namespace xt::timeline
