#pragma once
// Options shared by the analysis sub-commands (stats, hist, diff): key filters and backends.

#include "core/analysis/backend.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace xt::cli {

// Keys matching `regex` anywhere (ECMAScript; anchor with ^...$); an empty regex matches all.
// Prints the reason and returns false when the regex is invalid.
bool makeKeyFilter(const std::string& regex, std::function<bool(std::string_view)>& out);

// The backend named `name` ("auto", "cpu", "cuda") for one pass over the data (auto: the CPU). A
// fallback is announced on stderr in one line.
std::unique_ptr<analysis::Backend> chooseBackend(const std::string& name);

} // namespace xt::cli
