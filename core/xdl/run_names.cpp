#include "core/xdl/run_names.h"

#include <map>
#include <set>
#include <string_view>

namespace xt::xdl {

namespace {

std::vector<std::string> components(std::string_view path) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < path.size()) {
        const std::size_t j = std::min(path.find('/', i), path.size());
        if (j > i && path.substr(i, j - i) != ".") out.emplace_back(path.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

std::string joinLast(const std::vector<std::string>& parts, std::size_t n) {
    std::string out;
    for (std::size_t i = parts.size() - n; i < parts.size(); ++i)
        out += (out.empty() ? "" : "/") + parts[i];
    return out;
}

bool endsWith(const std::vector<std::string>& parts, const std::vector<std::string>& tail,
              std::size_t n) {
    if (parts.size() < n) return false;
    for (std::size_t k = 1; k <= n; ++k)
        if (parts[parts.size() - k] != tail[tail.size() - k]) return false;
    return true;
}

// The shortest suffix of dirs[i] that none of `others` ends with; the whole path otherwise.
std::string distinguishingSuffix(const std::vector<std::vector<std::string>>& dirs, std::size_t i,
                                 const std::vector<std::size_t>& group,
                                 const std::string& directory) {
    const auto& own = dirs[i];
    for (std::size_t n = 1; n <= own.size(); ++n) {
        bool unique = true;
        for (std::size_t j : group)
            if (j != i && endsWith(dirs[j], own, n)) unique = false;
        if (unique) return joinLast(own, n);
    }
    return directory.empty() || directory.front() != '/' ? joinLast(own, own.size())
                                                         : "/" + joinLast(own, own.size());
}

} // namespace

std::vector<std::string> distinctRunNames(const std::vector<RunLocation>& runs) {
    std::vector<std::string> names(runs.size());
    std::vector<std::vector<std::string>> dirs;
    std::map<std::string, std::vector<std::size_t>> localByName;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        dirs.push_back(components(runs[i].directory));
        if (runs[i].host.empty()) localByName[runs[i].name].push_back(i);
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunLocation& r = runs[i];
        if (!r.host.empty()) {
            names[i] = r.host + "/" + joinLast(dirs[i], dirs[i].size());
            continue;
        }
        const auto& group = localByName[r.name];
        names[i] = group.size() == 1 || dirs[i].empty()
                       ? r.name
                       : distinguishingSuffix(dirs, i, group, r.directory);
    }
    // Whatever is still ambiguous: the own name appended where it differs, then a number.
    auto groups = [&] {
        std::map<std::string, std::vector<std::size_t>> byName;
        for (std::size_t i = 0; i < names.size(); ++i)
            byName[names[i]].push_back(i);
        return byName;
    };
    for (const auto& [name, group] : groups()) {
        std::map<std::string, int> ownNames;
        for (std::size_t i : group)
            ++ownNames[runs[i].name];
        for (std::size_t i : group)
            if (group.size() > 1 && ownNames[runs[i].name] == 1 && name != runs[i].name)
                names[i] = name + "/" + runs[i].name;
    }
    std::set<std::string> taken(names.begin(), names.end());
    for (const auto& [name, group] : groups())
        for (std::size_t k = 1, n = 2; k < group.size(); ++k, ++n) {
            while (taken.count(name + " (" + std::to_string(n) + ")"))
                ++n;
            names[group[k]] = name + " (" + std::to_string(n) + ")";
            taken.insert(names[group[k]]);
        }
    return names;
}

} // namespace xt::xdl
