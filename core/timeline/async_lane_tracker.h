#pragma once
// Async slices (b/e nestable, S/F legacy): a begin stays open per (process, category, id) until
// an end of the same kind closes the latest one. At the end of the trace the spans of each
// process are grouped by name and each group is laid on lanes, a span on the first lane free
// at its start.

#include "core/timeline/import_report.h"
#include "core/timeline/string_table.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace xt::timeline {

enum class AsyncKind : std::uint8_t { Nestable, Legacy }; // b/e, S/F

struct AsyncSpan {
    std::int64_t start = 0, end = 0; // ns
    StringId name = 0, cat = 0;
    ArgsRef args;
    std::uint32_t order = 0; // arrival (record number)
};

struct AsyncLane {
    StringId name = 0;
    std::vector<AsyncSpan> spans; // sorted by start, never overlapping
};

class AsyncLaneTracker {
public:
    void begin(AsyncKind kind, std::uint32_t process, StringId cat, std::uint64_t id,
               const AsyncSpan& span);
    // Closes the latest open begin of (kind, process, cat, id) at `ts` (not before its start);
    // false when there is none.
    bool end(AsyncKind kind, std::uint32_t process, StringId cat, std::uint64_t id,
             std::int64_t ts);
    // Closes every span still open at traceEnd, each counted as "unterminated-async".
    void closeOpen(std::int64_t traceEnd, std::uint64_t record, const ImportWarn& warn);
    // The lanes of one process: groups by name (in StringId order), lanes in order of first use.
    std::vector<AsyncLane> takeLanes(std::uint32_t process);
    // Spans closed so far, of every process.
    std::size_t spanCount() const;

private:
    using Key = std::tuple<std::uint32_t, StringId, std::uint64_t>; // (process, cat, id)
    struct KeyHash {
        std::size_t operator()(const Key& k) const {
            auto [a, b, c] = k;
            return std::hash<std::uint64_t>()((std::uint64_t(a) << 32 | b) * 0x9E3779B97F4A7C15ull ^
                                              c * 0xC2B2AE3D27D4EB4Full);
        }
    };
    using OpenMap = std::unordered_map<Key, std::vector<AsyncSpan>, KeyHash>;
    OpenMap& open(AsyncKind kind) { return kind == AsyncKind::Nestable ? m_open : m_openLegacy; }
    void finished(std::uint32_t process, const AsyncSpan& span);

    OpenMap m_open, m_openLegacy;
    std::vector<std::vector<AsyncSpan>> m_done; // per process
};

} // namespace xt::timeline
