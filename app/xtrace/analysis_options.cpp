#include "app/xtrace/analysis_options.h"

#include <cstdio>
#include <memory>
#include <regex>

namespace xt::cli {

bool makeKeyFilter(const std::string& regex, std::function<bool(std::string_view)>& out) {
    if (regex.empty()) {
        out = nullptr;
        return true;
    }
    try {
        auto re = std::make_shared<std::regex>(regex, std::regex::ECMAScript);
        out = [re](std::string_view key) { return std::regex_search(key.begin(), key.end(), *re); };
        return true;
    } catch (const std::regex_error& e) {
        std::fprintf(stderr, "xtrace: invalid --key regex '%s': %s\n", regex.c_str(), e.what());
        return false;
    }
}

std::unique_ptr<analysis::Backend> chooseBackend(const std::string& name) {
    const auto choice = analysis::parseBackendChoice(name).value_or(analysis::BackendChoice::Auto);
    analysis::BackendSelection sel = analysis::selectBackend(choice);
    if (!sel.note.empty()) std::fprintf(stderr, "xtrace: %s\n", sel.note.c_str());
    return std::move(sel.backend);
}

} // namespace xt::cli
