#include "core/xdl/run_discovery.h"

#include "core/base/diagnostic_codes.h"
#include "core/base/mapped_file.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <glob.h>
#include <map>
#include <set>
#include <tuple>

namespace fs = std::filesystem;

namespace xt::xdl {

namespace {

constexpr std::string_view kMetaSuffix = ".meta";
constexpr std::string_view kSummarySuffix = ".xts"; // a part's summary (docs/SUMMARY-FORMAT.md)

template <class T> bool parseNonNegative(std::string_view s, T& out) {
    if (s.empty() || s.size() > 18) return false;
    auto res = std::from_chars(s.data(), s.data() + s.size(), out);
    return res.ec == std::errc() && res.ptr == s.data() + s.size() && out >= 0;
}

bool hasGlobChars(const std::string& s) {
    return s.find_first_of("*?[") != std::string::npos;
}

using RunKey = std::tuple<std::string, std::string, std::string>; // directory, prefix, name

struct Collector {
    Diagnostics& diag;
    std::map<RunKey, std::map<int, std::map<std::int64_t, PartFile>>> runs;
    std::set<std::string> seen;

    // Adds one data file; `explicitly` means the user named it, so an odd name is still opened.
    bool addFile(const fs::path& path, bool explicitly) {
        std::string file = path.filename().string();
        const bool meta = file.ends_with(kMetaSuffix);
        if (meta || file.ends_with(kSummarySuffix)) { // stands for its data file
            // By name, not replace_extension(): ".meta" has no extension and would stand for
            // itself. A companion of a companion ("x.meta.meta") stands for nothing.
            const std::string dataName =
                file.substr(0, file.size() - (meta ? kMetaSuffix : kSummarySuffix).size());
            const fs::path data = path.parent_path() / dataName;
            const bool standsForData = !dataName.empty() && !dataName.ends_with(kMetaSuffix) &&
                                       !dataName.ends_with(kSummarySuffix);
            std::error_code ec;
            if (standsForData && fs::is_regular_file(data, ec)) return addFile(data, explicitly);
            if (explicitly)
                diag.add(meta ? codes::kOrphanMeta : codes::kOrphanSummary, path.string(),
                         Diagnostic::kNoOffset, -1,
                         std::string(meta ? "meta" : "summary") + " file without its data file");
            return false;
        }
        auto parsed = parsePartFileName(file);
        if (!parsed) {
            if (!explicitly) return false;
            diag.add(codes::kUnrecognisedName, path.string(), Diagnostic::kNoOffset, -1,
                     "name does not follow {prefix}.{name}.{rank}.{index}; read as rank 0 part 1");
            parsed = PartName{"", file, 0, 1};
        }
        std::string canonical = fs::absolute(path).lexically_normal().string();
        if (!seen.insert(canonical).second) return true;
        PartFile part;
        part.path = path.string();
        part.index = parsed->index;
        std::error_code ec;
        part.size = fs::file_size(path, ec);
        readMeta(part, diag);
        std::string dir = path.parent_path().string();
        runs[{dir.empty() ? "." : dir, parsed->prefix, parsed->name}][parsed->rank][part.index] =
            std::move(part);
        return true;
    }

    int addDirectory(const fs::path& dir, int depth) {
        int found = 0;
        std::vector<fs::path> subdirs;
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            std::error_code ec2;
            if (entry.is_regular_file(ec2)) {
                found += addFile(entry.path(), false) ? 1 : 0;
            } else if (entry.is_directory(ec2)) {
                subdirs.push_back(entry.path());
            }
        }
        if (ec)
            diag.add(codes::kUnreadableDirectory, dir.string(), Diagnostic::kNoOffset, -1,
                     ec.message());
        if (found == 0 && depth == 0) {
            std::sort(subdirs.begin(), subdirs.end());
            for (const auto& sub : subdirs)
                found += addDirectory(sub, depth + 1);
        }
        return found;
    }
};

} // namespace

std::optional<PartName> parsePartFileName(std::string_view file) {
    if (file.ends_with(kMetaSuffix) || file.ends_with(kSummarySuffix)) return std::nullopt;
    auto lastDot = file.rfind('.');
    if (lastDot == std::string_view::npos) return std::nullopt;
    auto rankDot = file.rfind('.', lastDot - 1);
    if (rankDot == std::string_view::npos || rankDot == 0) return std::nullopt;
    auto prefixDot = file.find('.');
    if (prefixDot >= rankDot) return std::nullopt; // needs prefix.name.rank.index
    PartName p;
    if (!parseNonNegative(file.substr(lastDot + 1), p.index) ||
        !parseNonNegative(file.substr(rankDot + 1, lastDot - rankDot - 1), p.rank))
        return std::nullopt;
    p.prefix = std::string(file.substr(0, prefixDot));
    p.name = std::string(file.substr(prefixDot + 1, rankDot - prefixDot - 1));
    if (p.prefix.empty() || p.name.empty()) return std::nullopt;
    return p;
}

std::string partFileName(const PartName& p) {
    return p.prefix + "." + p.name + "." + std::to_string(p.rank) + "." + std::to_string(p.index);
}

const char* metaStateName(MetaState s) {
    switch (s) {
    case MetaState::Missing:
        return "missing";
    case MetaState::Unfinalised:
        return "unfinalised";
    case MetaState::Finalised:
        return "finalised";
    case MetaState::Corrupt:
        return "corrupt";
    }
    return "?";
}

std::string RunFiles::label() const {
    std::string base = prefix.empty() ? name : prefix + "." + name;
    if (!source.empty()) return source + (source.back() == '/' ? "" : "/") + base;
    return directory == "." ? base : (fs::path(directory) / base).string();
}

void readMeta(PartFile& part, Diagnostics& diag) {
    std::string metaPath = part.path + std::string(kMetaSuffix);
    std::error_code ec;
    if (!fs::exists(metaPath, ec)) {
        part.metaState = MetaState::Missing;
        return;
    }
    auto file = MappedFile::open(metaPath);
    if (!file) {
        part.metaState = MetaState::Corrupt;
        diag.add(codes::kUnreadableMeta, metaPath, Diagnostic::kNoOffset, -1,
                 file.status().message());
        return;
    }
    if (file->size() == 0) {
        part.metaState = MetaState::Unfinalised;
        return;
    }
    Status st = decodeMeta(file->bytes(), part.meta);
    if (!st) {
        part.metaState = MetaState::Corrupt;
        part.meta = MetaInfo{};
        diag.add(codes::kCorruptMeta, metaPath, 0, -1, st.message());
        return;
    }
    part.metaState = MetaState::Finalised;
}

Result<std::vector<RunFiles>> discoverRuns(const std::vector<std::string>& paths,
                                           Diagnostics& diag) {
    Collector c{diag, {}, {}};
    for (const auto& p : paths) {
        std::vector<std::string> expanded;
        std::error_code ec;
        if (hasGlobChars(p) && !fs::exists(p, ec)) {
            glob_t g{};
            if (::glob(p.c_str(), 0, nullptr, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc; ++i)
                    expanded.emplace_back(g.gl_pathv[i]);
            ::globfree(&g);
            if (expanded.empty()) return Status(ErrorCode::NotFound, "no file matches " + p);
        } else {
            expanded.push_back(p);
        }
        for (const auto& e : expanded) {
            if (fs::is_directory(e, ec)) {
                if (c.addDirectory(e, 0) == 0)
                    diag.add(codes::kNoRuns, e, Diagnostic::kNoOffset, -1,
                             "no XDL data files ({prefix}.{name}.{rank}.{index}) found");
            } else if (fs::exists(e, ec)) {
                c.addFile(e, !hasGlobChars(p));
            } else {
                return Status(ErrorCode::NotFound, "no such file or directory: " + e);
            }
        }
    }

    std::vector<RunFiles> runs;
    for (auto& [key, ranks] : c.runs) {
        RunFiles run{std::get<0>(key), std::get<1>(key), std::get<2>(key), {}, {}};
        for (auto& [rank, parts] : ranks) {
            RankFiles rf{rank, {}, {}};
            std::int64_t expected = 1;
            for (auto& [index, part] : parts) {
                for (; expected < index && rf.missingIndices.size() < 1000; ++expected)
                    rf.missingIndices.push_back(expected);
                expected = index + 1;
                rf.parts.push_back(std::move(part));
            }
            if (!rf.missingIndices.empty()) {
                std::string list;
                for (auto m : rf.missingIndices)
                    list += (list.empty() ? "" : ", ") + std::to_string(m);
                diag.add(codes::kMissingParts, run.label(), Diagnostic::kNoOffset, -1,
                         "rank " + std::to_string(rank) + " has no part file with index " + list);
            }
            run.ranks.push_back(std::move(rf));
        }
        runs.push_back(std::move(run));
    }
    return runs;
}

} // namespace xt::xdl
