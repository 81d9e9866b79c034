#pragma once
// Run discovery: files, directories and glob patterns become runs -> ranks -> ordered part
// files with their .meta. Data files are named {prefix}.{name}.{rank}.{index}; the name may
// contain dots, so names are parsed from the right.

#include "core/base/diagnostics.h"
#include "core/base/range_fetcher.h"
#include "core/base/status.h"
#include "core/xdl/wire.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xt::xdl {

struct PartName {
    std::string prefix; // "train" or "test" as written by upstream
    std::string name;   // output_file_name, may contain dots
    int rank = 0;
    std::int64_t index = 1; // starts at 1
};

// Parses a file name (no directory); nullopt when it does not follow the pattern.
std::optional<PartName> parsePartFileName(std::string_view fileName);
std::string partFileName(const PartName& p);

enum class MetaState {
    Missing,     // no .meta file
    Unfinalised, // .meta exists but is empty: a live file, or a writer that never closed it
    Finalised,   // .meta holds a Meta message
    Corrupt,     // .meta does not parse
};
const char* metaStateName(MetaState s);

struct PartFile {
    std::string path; // the local file (for a remote part: its sparse copy in a mirror)
    std::int64_t index = 1;
    std::uint64_t size = 0;
    MetaState metaState = MetaState::Missing;
    MetaInfo meta;      // valid when metaState == Finalised
    std::string source; // the URL of a remote part; empty for a local file
    // Remote parts: brings byte ranges of `path` in before they are read (see PartReader).
    std::shared_ptr<RangeFetcher> fetcher;
    // What to show users: the URL of a remote part, else its path.
    const std::string& displayPath() const { return source.empty() ? path : source; }
};

struct RankFiles {
    int rank = 0;
    std::vector<PartFile> parts;              // ordered by index
    std::vector<std::int64_t> missingIndices; // gaps in 1..max index
};

struct RunFiles {
    std::string directory;
    std::string prefix;
    std::string name;
    std::vector<RankFiles> ranks; // ordered by rank
    std::string source;           // the URL of `directory` for a remote run; empty when local
    // "directory/prefix.name" (the URL's for a remote run): a stable, readable identity.
    std::string label() const;
};

// Reads path + ".meta" into part.metaState / part.meta; problems go to diag.
void readMeta(PartFile& part, Diagnostics& diag);

// Expands paths (data files, .meta files, directories, glob patterns) into runs. A directory
// contributes every run directly inside it, or inside its immediate subdirectories when it has
// none itself. A path that does not exist is an error; damaged metas and gaps are diagnostics.
Result<std::vector<RunFiles>> discoverRuns(const std::vector<std::string>& paths,
                                           Diagnostics& diag);

} // namespace xt::xdl
