#pragma once
// The columnar, immutable event store a trace is imported into. Times are int64 nanoseconds
// (trace microseconds x 1000). Move-only; built once by a TraceStoreBuilder (filled by the
// Chrome reader, the StepStats import or the XDL steps), then read-only and safe to share
// between threads.
//
// Layout: processes own threads; every thread and every async lane is a Track; the slices of
// all tracks live in one table of parallel columns, grouped by track and sorted by start inside
// a track, each with its nesting depth and parent. Args stay as raw JSON bytes inside the
// imported text (or the builder's own args text) and are decoded on demand.

#include "core/base/huge_pages.h"
#include "core/timeline/import_report.h"
#include "core/timeline/string_table.h"
#include "core/timeline/trace_bytes.h"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xt::timeline {

constexpr std::uint32_t kNoIndex = 0xffffffffu;
constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

struct Process {
    StringId pid = 0;  // pid as written (number text or string)
    StringId name = 0; // from M process_name, else empty
    StringId labels = 0;
    std::int64_t sortIndex = 0;
};

struct Thread {
    std::uint32_t process = 0;
    StringId tid = 0;
    StringId name = 0; // from M thread_name
    std::int64_t sortIndex = 0;
};

enum class TrackKind : std::uint8_t { Thread, Async };

struct Track {
    TrackKind kind = TrackKind::Thread;
    std::uint32_t process = 0;
    std::uint32_t thread = kNoIndex; // kNoIndex for async lanes
    StringId name = 0;               // async lanes: the async event name
    std::uint32_t sliceBegin = 0;    // [sliceBegin, sliceEnd) in the slice table
    std::uint32_t sliceEnd = 0;
    std::uint16_t maxDepth = 0;
};

// Byte range of an `args` object inside TraceStore::text().
struct ArgsRef {
    std::uint64_t offset = 0;
    std::uint32_t size = 0;
    bool empty() const { return size == 0; }
};

struct Flow {
    std::uint32_t fromSlice = kNoIndex;
    std::uint32_t toSlice = kNoIndex;
    StringId name = 0;
    StringId cat = 0;
};

enum class InstantScope : std::uint8_t { Thread, Process, Global };

struct Instant {
    std::int64_t ts = 0;
    StringId name = 0;
    StringId cat = 0;
    std::uint32_t process = 0;
    std::uint32_t thread = kNoIndex;
    InstantScope scope = InstantScope::Thread;
    char phase = 'i';
};

// One counter series: a C event's numeric arg over time ("name" or "name key").
struct CounterSeries {
    std::uint32_t process = 0;
    StringId name = 0;
    StringId key = 0;             // the arg's key (TF: the allocator name)
    std::vector<std::int64_t> ts; // sorted
    std::vector<double> values;
};

// An object's life from N (created) to D (destroyed); O snapshots are counted.
struct ObjectLifetime {
    std::uint32_t process = 0;
    StringId name = 0;
    StringId id = 0;
    std::int64_t created = kNoTime;
    std::int64_t destroyed = kNoTime; // kNoTime: alive at the end of the trace
    std::uint32_t snapshots = 0;
    ArgsRef lastSnapshot;
};

// The top-level key/value pairs of a JSON object (values as JSON text for objects, arrays and
// numbers, unescaped for strings); empty when `json` is not an object.
std::vector<std::pair<std::string, std::string>> decodeJsonObject(std::string_view json);

class TraceStore {
public:
    TraceStore() = default;
    TraceStore(TraceStore&&) noexcept = default;
    TraceStore& operator=(TraceStore&&) noexcept = default;
    TraceStore(const TraceStore&) = delete;
    TraceStore& operator=(const TraceStore&) = delete;

    const StringTable& strings() const { return m_strings; }
    std::string_view str(StringId id) const { return m_strings.view(id); }
    const ImportReport& report() const { return m_report; }

    std::span<const Process> processes() const { return m_processes; }
    std::span<const Thread> threads() const { return m_threads; }
    std::span<const Track> tracks() const { return m_tracks; }

    // Slice columns, all of sliceCount() rows.
    std::size_t sliceCount() const { return m_start.size(); }
    std::span<const std::int64_t> sliceStart() const { return m_start; }
    std::span<const std::int64_t> sliceDuration() const { return m_dur; }
    std::span<const StringId> sliceName() const { return m_name; }
    std::span<const StringId> sliceCategory() const { return m_cat; }
    std::span<const std::uint16_t> sliceDepth() const { return m_depth; }
    std::span<const std::uint32_t> sliceParent() const { return m_parent; }
    std::span<const std::uint32_t> sliceTrack() const { return m_track; }
    ArgsRef sliceArgs(std::uint32_t slice) const {
        return {m_argsOffset[slice], m_argsSize[slice]};
    }
    std::int64_t sliceEnd(std::uint32_t s) const { return m_start[s] + m_dur[s]; }

    std::span<const Flow> flows() const { return m_flows; }
    std::span<const Instant> instants() const { return m_instants; }
    std::span<const CounterSeries> counters() const { return m_counters; }
    std::span<const ObjectLifetime> objects() const { return m_objects; }

    // Earliest and latest time of any timed event; both kNoTime when there is none.
    std::int64_t beginTime() const { return m_begin; }
    std::int64_t endTime() const { return m_end; }

    // The raw JSON text of an args object, and its decoded top-level key/value pairs
    // (values as JSON text for objects/arrays/numbers, unescaped for strings).
    std::string_view argsJson(ArgsRef a) const { return m_bytes.text().substr(a.offset, a.size); }
    std::vector<std::pair<std::string, std::string>> decodeArgs(ArgsRef a) const {
        return decodeJsonObject(argsJson(a));
    }

    // Display name of a process/thread: the M name, else "pid N" / "tid N".
    std::string processLabel(std::uint32_t process) const;
    std::string threadLabel(std::uint32_t thread) const;

    // Bytes held by the store's own tables (not the imported text).
    std::size_t residentBytes() const;

private:
    friend class TraceStoreBuilder;

    TraceBytes m_bytes;
    StringTable m_strings;
    ImportReport m_report;
    std::vector<Process> m_processes;
    std::vector<Thread> m_threads;
    std::vector<Track> m_tracks;
    // Slice columns: one row per slice, of a size known before they are filled.
    HugePageVector<std::int64_t> m_start, m_dur;
    HugePageVector<StringId> m_name, m_cat;
    HugePageVector<std::uint16_t> m_depth;
    HugePageVector<std::uint32_t> m_parent, m_track;
    HugePageVector<std::uint64_t> m_argsOffset;
    HugePageVector<std::uint32_t> m_argsSize;
    HugePageVector<Flow> m_flows;
    std::vector<Instant> m_instants;
    std::vector<CounterSeries> m_counters;
    std::vector<ObjectLifetime> m_objects;
    std::int64_t m_begin = kNoTime, m_end = kNoTime;
};

} // namespace xt::timeline
