#pragma once
// One entry point for opening anything: each path (a file, a directory, a glob pattern or an
// hdfs:// / webhdfs:// / swebhdfs:// URL) is sorted into XDL runs, to hand to xdl::discoverRuns,
// and timeline files (Chrome traces, TF StepStats), to import. Used by xtrace and xtview alike.
//
// - A file is what detectTraceKind says. A file of unknown content goes to the XDL reader (which
//   opens an oddly named part when it is named explicitly); a *.xts summary is not opened.
// - A directory holds runs when it has XDL parts directly inside, or else in its immediate
//   subdirectories (the rule of discoverRuns); its timeline files are taken by the same rule,
//   among files named *.json, *.gz, *.zip or *.pb (confirmed by content). A directory with
//   neither still goes to the XDL reader, which reports it.
// - A glob's matches are sorted like directory entries; no match is NotFound.
// - A URL is mirrored to a local copy first (core/storage) and that copy is sorted.
// - A path that does not exist goes to the XDL reader, which reports it as before.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/base/status.h"
#include "core/open/trace_kind.h"
#include "core/storage/hdfs_mirror.h"

#include <functional>
#include <string>
#include <vector>

namespace xt::open {

struct TraceFile {
    std::string path; // local
    TraceKind kind;   // ChromeTrace or StepStats
};

struct PlannedInput {
    std::string input;                // as given
    std::string local;                // where it is read: the input, or its mirror for a URL
    bool runs = false;                // hand `local` to the XDL reader
    std::vector<TraceFile> traces;    // timeline files it is or holds, sorted by path
    std::vector<std::string> skipped; // *.xts summaries it named or held
};

struct OpenPlan {
    std::vector<PlannedInput> inputs; // in the order given
    std::vector<storage::MirrorStatus> mirrored;
    Diagnostics diagnostics; // hdfs-offline for URLs served from a stale mirror

    // The local paths of the inputs with runs, and every timeline file, in input order.
    std::vector<std::string> runPaths() const;
    std::vector<TraceFile> traces() const;
};

// Brings one URL to a local copy (HdfsMirror::mirror, or a stand-in in tests).
using MirrorFunction =
    std::function<Result<storage::MirrorStatus>(const std::string& url, const ProgressCallback&)>;

struct OpenOptions {
    ProgressCallback progress; // mirroring; false cancels
    MirrorFunction mirror;     // empty: an HdfsMirror with mirrorOptionsFromEnvironment()
};

// Errors: NotFound for a glob that matches nothing; a mirror's error (IoError, NotFound,
// Cancelled) for a URL.
Result<OpenPlan> planOpen(const std::vector<std::string>& paths, const OpenOptions& options = {});

} // namespace xt::open
