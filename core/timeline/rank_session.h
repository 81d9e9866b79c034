#pragma once
// A multi-rank profile: the Kineto traces of the ranks of one distributed job, one TraceStore
// per rank, imported in parallel. The rank of a trace is its `distributedInfo.rank`, else a
// number in its file name ("rank-3", "rank_3", "rank3", "worker3"), else the lowest free one.
// Alignment puts the ranks' clocks on one axis: as recorded, at a named ProfilerStep, or at the
// N-th communication kernel of a name on every rank.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/timeline/rank_analysis.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xt::timeline {

// Ranks and world sizes at or beyond this are not believed (and missing ranks are not listed
// past it).
constexpr int kMaxRank = 1 << 20;

enum class RankSource : std::uint8_t { DistributedInfo, FileName, Assigned };
const char* rankSourceName(RankSource s); // "distributedInfo", "file name", "assigned"

struct RankTrace {
    int rank = 0;
    RankSource source = RankSource::Assigned;
    std::string file;
    std::shared_ptr<const TraceStore> store;
};

struct RankSession {
    std::vector<RankTrace> ranks; // sorted by rank
    int worldSize = 0;            // distributedInfo.world_size when a trace gives it
    Diagnostics diagnostics;      // unreadable files, duplicate ranks
    // Ranks below max(world size, highest rank + 1) that no trace has.
    std::vector<int> missingRanks() const;
};

// Every trace file named by `paths`: a directory gives its .json, .json.gz, .gz and .zip files
// (not recursive), a glob pattern its matches, a file itself; sorted by path, without repeats.
// NotFound when a path does not exist or a pattern matches nothing.
Result<std::vector<std::string>> expandTracePaths(const std::vector<std::string>& paths);

std::optional<int> rankFromDistributedInfo(std::string_view json);
std::optional<int> worldSizeFromDistributedInfo(std::string_view json);
std::optional<int> rankFromFileName(std::string_view path);

struct RankImportOptions {
    // Bytes of all files together, stages "importing N of M"; false cancels every import.
    ProgressCallback progress;
    unsigned threads = 0; // 0: one per core, at most one per file
};

// Imports `files` in parallel. A file that cannot be read is a diagnostic and a missing rank;
// the result is an error only when no file can be read, or on cancel.
Result<RankSession> importRanks(const std::vector<std::string>& files,
                                const RankImportOptions& options = {});

// Builds a session from stores already imported (tests, other sources), ranks as above.
RankSession makeRankSession(std::vector<std::pair<std::string, TraceStore>> traces);

// Runs analyzeRank on every rank (in parallel) and analyzeSession over them.
SessionAnalysis analyzeRanks(const RankSession& session, const RankAnalysisOptions& options = {},
                             unsigned threads = 0);

enum class AlignMode : std::uint8_t { Recorded, Step, Collective };

struct AlignSpec {
    AlignMode mode = AlignMode::Recorded;
    std::string step;             // AlignMode::Step: a step marker's name ("ProfilerStep#3")
    std::string kernel;           // AlignMode::Collective: a communication kernel's name
    std::uint32_t occurrence = 1; // ... its N-th run on each rank, from 1
};

struct Alignment {
    std::vector<std::int64_t> offsetNs; // per session rank, added to its times
    std::vector<char> anchored;         // the rank has the anchor (else its offset is 0)
};

// Offsets that put the anchor of every rank where it is on the first rank that has it: step
// starts, or collective ends (a collective finishes together on every rank).
Alignment alignRanks(const RankSession& session, const AlignSpec& spec);

} // namespace xt::timeline
