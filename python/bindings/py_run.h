#pragma once
// xtview._core.Run: one XDL run opened for Python through its stored summaries (where valid),
// with the analyses of core returned as numpy columns for the Python layer to frame.

#include "core/base/diagnostics.h"
#include "core/xdl/run_discovery.h"

#include <pybind11/pybind11.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace xt::py {

struct OpenOptions {
    std::string summaryDir; // "": the default summary cache
    std::string mirrorDir;  // "": XT_HDFS_CACHE_DIR or the default HDFS mirror
    // An hdfs:// server that cannot be reached is an error rather than a warning with the
    // (possibly stale) mirror used instead.
    bool strictRemote = false;
};

// The one run of `runs`, found under `path`: NotFound when there is none, InvalidArgument
// (naming them) when there are several.
Result<xdl::RunFiles> oneRun(const std::string& path, std::vector<xdl::RunFiles> runs);

// The mirror folder of an hdfs:// path and its URL, so outputs name remote files by URL.
struct RemoteBase {
    std::string local, url; // both empty for a local run
    // The URL of a path in the mirror folder; any other path unchanged.
    std::string nameOf(const std::string& path) const;
};

// The one run under `path` (a data file, directory, glob or hdfs:// URL, mirrored first).
Result<xdl::RunFiles> locateRun(const std::string& path, const OpenOptions& options,
                                Diagnostics& diag, RemoteBase* remote = nullptr);

// A filter of keys matching `regex` anywhere (ECMAScript, as `xtrace --key`); unset for "".
// Raises InvalidArgumentError for a bad regex.
std::function<bool(std::string_view)> keyFilter(const std::string& regex);

void bindRun(pybind11::module_& m);

} // namespace xt::py
