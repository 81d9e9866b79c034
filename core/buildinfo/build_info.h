#pragma once
// What this build is: version, git commit, build type, compiler and the versions of the
// libraries it was built against (fixed at configure time), plus a run-time probe of the CUDA
// backend. `xtrace --version` and xtview's Help > About print the same facts from here.

#include <string>
#include <string_view>
#include <vector>

namespace xt::buildinfo {

struct Fact {
    std::string name;  // e.g. "git commit"
    std::string value; // e.g. "222701e1c3f0-dirty"
};

// The project version, e.g. "0.1.0".
const char* version();

// The configure-time facts in display order. Libraries the build did not use are left out.
std::vector<Fact> buildFacts();

// Whether the CUDA backend can run here, probed now: "cuda (NAME, compute capability X.Y)",
// or "not available (REASON)". Touches the CUDA driver, so call it off the GUI thread.
std::string cudaRuntimeStatus();

// "PROGRAM VERSION" on the first line, then one "  name: value" line per fact and per extra
// fact (aligned), each line ending in '\n'.
std::string versionText(std::string_view program, const std::vector<Fact>& extra = {});

} // namespace xt::buildinfo
