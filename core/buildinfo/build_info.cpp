#include "core/buildinfo/build_info.h"

#include "build_info_config.h"
#include "core/analysis/backend.h"

#include <algorithm>

namespace xt::buildinfo {

const char* version() {
    return XT_BUILD_VERSION;
}

std::vector<Fact> buildFacts() {
    std::vector<Fact> facts = {
        {"version", XT_BUILD_VERSION},
        {"git commit", XT_BUILD_GIT_COMMIT},
        {"build type", XT_BUILD_TYPE},
        {"compiler", XT_BUILD_COMPILER},
        {"system", XT_BUILD_SYSTEM},
        {"CUDA backend",
         XT_CUDA_ENABLED ? std::string("built (") + XT_BUILD_CUDA_COMPILER + ")" : "not built"},
    };
    const std::pair<const char*, const char*> libs[] = {
        {"Qt (build)", XT_BUILD_QT_VERSION}, {"protobuf", XT_BUILD_PROTOBUF_VERSION},
        {"HDF5", XT_BUILD_HDF5_VERSION},     {"simdjson", XT_BUILD_SIMDJSON_VERSION},
        {"oneTBB", XT_BUILD_TBB_VERSION},    {"fmt", XT_BUILD_FMT_VERSION},
        {"CLI11", XT_BUILD_CLI11_VERSION},
    };
    for (const auto& [name, value] : libs)
        if (value[0] != '\0') facts.push_back({name, value});
    return facts;
}

std::string cudaRuntimeStatus() {
    std::string why;
    if (!analysis::cudaAvailable(&why)) return "not available (" + why + ")";
    analysis::BackendSelection s = analysis::selectBackend(analysis::BackendChoice::Cuda);
    if (s.backend->kind() != analysis::BackendKind::Cuda) return "not available (" + s.note + ")";
    return s.backend->description();
}

std::string versionText(std::string_view program, const std::vector<Fact>& extra) {
    std::vector<Fact> facts = buildFacts();
    facts.insert(facts.end(), extra.begin(), extra.end());
    size_t width = 0;
    for (const Fact& f : facts)
        width = std::max(width, f.name.size());
    std::string out = std::string(program) + " " + XT_BUILD_VERSION + "\n";
    for (const Fact& f : facts)
        out += "  " + f.name + ":" + std::string(width - f.name.size() + 1, ' ') + f.value + "\n";
    return out;
}

} // namespace xt::buildinfo
