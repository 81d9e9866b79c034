#pragma once
// Short names that tell the open runs apart, for a viewer's lists, tabs and legends.

#include <string>
#include <vector>

namespace xt::xdl {

struct RunLocation {
    std::string host;      // "namenode:8020" for a run read from a URL; empty for a local run
    std::string directory; // the run's directory (the URL's path for a remote run)
    std::string name;      // the run's own name: "prefix.name", e.g. "train.trace"
};

// One name per run, in order. A local run whose own name no other local run has is called by
// it ("train.trace"). Local runs sharing their own name are called by the shortest suffix of
// their directory that no other of them ends with ("a/run" and "b/run" for /tmp/a/run and
// /tmp/b/run), or by the whole directory when one is a suffix of another ("/run" next to
// "x/run"). A remote run is called by its host and directory ("nn:8020/user/me/exp").
// Runs still named alike get their own name appended where it differs ("nn/exp/train.trace"),
// and then " (2)", " (3)" ... in order, so the names are always distinct.
std::vector<std::string> distinctRunNames(const std::vector<RunLocation>& runs);

} // namespace xt::xdl
