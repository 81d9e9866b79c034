#pragma once
// xtview._core.Run: one XDL run opened for Python through its stored summaries (where valid),
// with the analyses of core returned as numpy columns for the Python layer to frame.

#include "core/base/diagnostics.h"
#include "core/storage/remote_runs.h"
#include "core/xdl/run_discovery.h"

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace xt::py {

struct OpenOptions {
    std::string summaryDir; // "": the default summary cache
    std::string mirrorDir;  // "": XT_HDFS_CACHE_DIR or the default HDFS mirror
    // For a task's run: an hdfs:// server that cannot be reached is an error rather than a
    // warning with the (possibly stale) mirror used instead, and so is a part that cannot be read.
    bool strictRemote = false;
};

// The one run of `runs`, found under `path`: NotFound when there is none, InvalidArgument
// (naming them) when there are several.
Result<xdl::RunFiles> oneRun(const std::string& path, std::vector<xdl::RunFiles> runs);

// The one run under `path` (a data file, directory, glob or hdfs:// URL). An hdfs:// URL is
// mirrored sparsely (storage::RemoteRuns: metas and summaries whole, data bytes as they are
// read); `remote` then receives the mirror, which serves the run's reads and must outlive them.
Result<xdl::RunFiles> locateRun(const std::string& path, const OpenOptions& options,
                                Diagnostics& diag, std::shared_ptr<storage::RemoteRuns>& remote);

// A filter of keys matching `regex` anywhere (ECMAScript, as `xtrace --key`); unset for "".
// Raises InvalidArgumentError for a bad regex.
std::function<bool(std::string_view)> keyFilter(const std::string& regex);

void bindRun(pybind11::module_& m);

} // namespace xt::py
