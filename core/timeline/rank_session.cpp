#include "core/timeline/rank_session.h"

#include "core/base/diagnostic_codes.h"
#include "core/base/parallel_for.h"
#include "core/timeline/chrome_trace_reader.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <glob.h>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace xt::timeline {

namespace fs = std::filesystem;

const char* rankSourceName(RankSource s) {
    switch (s) {
    case RankSource::DistributedInfo:
        return "distributedInfo";
    case RankSource::FileName:
        return "file name";
    case RankSource::Assigned:
        return "assigned";
    }
    return "?";
}

std::vector<int> RankSession::missingRanks() const {
    int upTo = std::min(worldSize, kMaxRank);
    std::set<int> present;
    for (const RankTrace& r : ranks) {
        present.insert(r.rank);
        upTo = std::max(upTo, std::min(r.rank + 1, kMaxRank));
    }
    std::vector<int> out;
    for (int r = 0; r < upTo; ++r)
        if (!present.count(r)) out.push_back(r);
    return out;
}

namespace {

bool hasGlobChars(const std::string& p) {
    return p.find_first_of("*?[") != std::string::npos;
}

bool isTraceFileName(std::string name) {
    for (char& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view ext : {".json", ".gz", ".zip"})
        if (name.size() > ext.size() && name.ends_with(ext)) return true;
    return false;
}

// The value of the top-level `"key": <integer>` of a small JSON object, skipping nested ones.
std::optional<std::int64_t> topLevelInt(std::string_view json, std::string_view key) {
    int depth = 0;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == '"') {
            std::size_t e = i + 1;
            while (e < json.size() && json[e] != '"')
                e += json[e] == '\\' ? 2 : 1;
            if (e >= json.size()) return std::nullopt;
            const std::string_view s = json.substr(i + 1, e - i - 1);
            i = e;
            if (depth != 1 || s != key) continue;
            std::size_t j = e + 1;
            while (j < json.size() && std::isspace(static_cast<unsigned char>(json[j])))
                ++j;
            if (j >= json.size() || json[j] != ':') continue;
            ++j;
            while (j < json.size() && std::isspace(static_cast<unsigned char>(json[j])))
                ++j;
            bool neg = j < json.size() && json[j] == '-';
            if (neg) ++j;
            if (j >= json.size() || !std::isdigit(static_cast<unsigned char>(json[j])))
                return std::nullopt;
            std::int64_t v = 0;
            for (; j < json.size() && std::isdigit(static_cast<unsigned char>(json[j])); ++j) {
                v = v * 10 + (json[j] - '0');
                if (v > (1ll << 40)) return std::nullopt;
            }
            return neg ? -v : v;
        }
    }
    return std::nullopt;
}

} // namespace

Result<std::vector<std::string>> expandTracePaths(const std::vector<std::string>& paths) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const std::string& p : paths) {
        std::vector<std::string> matches;
        if (hasGlobChars(p) && !fs::exists(p, ec)) {
            glob_t g{};
            if (::glob(p.c_str(), 0, nullptr, &g) == 0)
                for (std::size_t i = 0; i < g.gl_pathc; ++i)
                    matches.emplace_back(g.gl_pathv[i]);
            ::globfree(&g);
            if (matches.empty()) return Status(ErrorCode::NotFound, "no file matches " + p);
        } else if (fs::exists(p, ec)) {
            matches.push_back(p);
        } else {
            return Status(ErrorCode::NotFound, "no such file or directory: " + p);
        }
        for (const std::string& m : matches) {
            if (fs::is_directory(m, ec)) {
                std::vector<std::string> inDir;
                for (const auto& e : fs::directory_iterator(m, ec))
                    if (e.is_regular_file(ec) && isTraceFileName(e.path().filename().string()))
                        inDir.push_back(e.path().string());
                std::sort(inDir.begin(), inDir.end());
                out.insert(out.end(), inDir.begin(), inDir.end());
            } else {
                out.push_back(m);
            }
        }
    }
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (auto& f : out)
        if (seen.insert(fs::weakly_canonical(f, ec).string()).second) unique.push_back(f);
    if (unique.empty()) return Status(ErrorCode::NotFound, "no trace files (.json, .gz, .zip)");
    return unique;
}

std::optional<int> rankFromDistributedInfo(std::string_view json) {
    const auto v = topLevelInt(json, "rank");
    if (!v || *v < 0 || *v >= kMaxRank) return std::nullopt;
    return static_cast<int>(*v);
}

std::optional<int> worldSizeFromDistributedInfo(std::string_view json) {
    const auto v = topLevelInt(json, "world_size");
    if (!v || *v <= 0 || *v > kMaxRank) return std::nullopt;
    return static_cast<int>(*v);
}

std::optional<int> rankFromFileName(std::string_view path) {
    std::string name(path.substr(
        path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1));
    for (char& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view word : {"rank", "worker"}) {
        for (std::size_t at = name.find(word); at != std::string::npos;
             at = name.find(word, at + 1)) {
            std::size_t i = at + word.size();
            if (i < name.size() &&
                (name[i] == '-' || name[i] == '_' || name[i] == '.' || name[i] == ' '))
                ++i;
            if (i >= name.size() || !std::isdigit(static_cast<unsigned char>(name[i]))) continue;
            long v = 0;
            for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) &&
                   v < kMaxRank;
                 ++i)
                v = v * 10 + (name[i] - '0');
            if (v >= kMaxRank) continue;
            return static_cast<int>(v);
        }
    }
    return std::nullopt;
}

RankSession makeRankSession(std::vector<std::pair<std::string, TraceStore>> traces) {
    RankSession session;
    std::vector<RankTrace> pending;
    std::set<int> taken;
    for (auto& [file, store] : traces) {
        RankTrace t;
        t.file = file;
        const std::string& info = store.report().distributedInfo;
        if (auto ws = worldSizeFromDistributedInfo(info))
            session.worldSize = std::max(session.worldSize, *ws);
        std::optional<int> rank = rankFromDistributedInfo(info);
        t.source = RankSource::DistributedInfo;
        if (!rank) {
            rank = rankFromFileName(file);
            t.source = RankSource::FileName;
        }
        if (rank && !taken.insert(*rank).second) {
            session.diagnostics.add(codes::kDuplicateRank, file, Diagnostic::kNoOffset, -1,
                                    "rank " + std::to_string(*rank) +
                                        " is already taken by another trace; given a free rank");
            rank.reset();
        }
        if (rank) {
            t.rank = *rank;
        } else {
            t.rank = -1;
            t.source = RankSource::Assigned;
        }
        t.store = std::make_shared<const TraceStore>(std::move(store));
        pending.push_back(std::move(t));
    }
    int next = 0;
    for (RankTrace& t : pending) {
        if (t.rank >= 0) continue;
        while (taken.count(next))
            ++next;
        t.rank = next;
        taken.insert(next);
    }
    std::sort(pending.begin(), pending.end(),
              [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
    session.ranks = std::move(pending);
    return session;
}

Result<RankSession> importRanks(const std::vector<std::string>& files,
                                const RankImportOptions& options) {
    if (files.empty()) return Status(ErrorCode::NotFound, "no trace files");
    const std::size_t n = files.size();
    std::vector<std::uint64_t> sizes(n, 1);
    std::uint64_t totalBytes = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::error_code ec;
        const auto sz = fs::file_size(files[i], ec);
        sizes[i] = ec || sz == 0 ? 1 : sz;
        totalBytes += sizes[i];
    }
    // Progress: each file's finished fraction of its bytes; reported under one lock.
    std::vector<std::atomic<std::uint64_t>> doneBytes(n);
    std::atomic<bool> cancelled{false};
    std::atomic<std::size_t> finished{0};
    std::mutex progressMutex;
    auto report = [&]() {
        if (!options.progress) return true;
        const std::lock_guard lock(progressMutex);
        std::uint64_t done = 0;
        for (const auto& d : doneBytes)
            done += d.load();
        const std::string stage = "importing " + std::to_string(std::min(finished.load() + 1, n)) +
                                  " of " + std::to_string(n) + " ranks";
        if (!reportProgress(options.progress, done, totalBytes, stage)) cancelled = true;
        return !cancelled.load();
    };

    std::vector<std::optional<Result<TraceStore>>> results(n);
    parallelFor(n, int(options.threads), [&](std::size_t i) {
        if (cancelled) return false;
        ImportOptions o;
        o.progress = [&, i](const ProgressReport& r) {
            if (r.total > 0) {
                const std::uint64_t part = std::min(r.done, r.total) * sizes[i] / r.total;
                if (part > doneBytes[i].load()) doneBytes[i] = part;
            }
            return report();
        };
        results[i] = importChromeTrace(files[i], o);
        doneBytes[i] = sizes[i];
        ++finished;
        report();
        return true;
    });
    if (cancelled) return Status(ErrorCode::Cancelled, "import cancelled");

    std::vector<std::pair<std::string, TraceStore>> ok;
    Diagnostics failures;
    Status firstError;
    for (std::size_t i = 0; i < n; ++i) {
        Result<TraceStore>& r = *results[i];
        if (r) {
            ok.emplace_back(files[i], std::move(r.value()));
            continue;
        }
        if (firstError.isOk()) firstError = r.status();
        failures.add(codes::kUnreadableTrace, files[i], Diagnostic::kNoOffset, -1,
                     r.status().toString());
    }
    if (ok.empty()) return firstError;
    RankSession session = makeRankSession(std::move(ok));
    failures.merge(session.diagnostics);
    session.diagnostics = std::move(failures);
    return session;
}

SessionAnalysis analyzeRanks(const RankSession& session, const RankAnalysisOptions& options,
                             unsigned threads) {
    const std::size_t n = session.ranks.size();
    std::vector<RankAnalysis> perRank(n);
    parallelFor(n, int(threads), [&](std::size_t i) {
        perRank[i] = analyzeRank(*session.ranks[i].store, options);
        return true;
    });
    std::vector<int> ranks;
    for (const RankTrace& r : session.ranks)
        ranks.push_back(r.rank);
    return analyzeSession(std::move(ranks), std::move(perRank));
}

namespace {

// The anchor time of one rank: the start of the earliest step marker named `step`, or the end
// of the N-th GPU event named `kernel`.
std::optional<std::int64_t> anchorOf(const TraceStore& s, const AlignSpec& spec) {
    const std::string& wanted = spec.mode == AlignMode::Step ? spec.step : spec.kernel;
    const StringId id = s.strings().find(wanted);
    if (wanted.empty() || id == StringTable::kNotFound) return std::nullopt;
    const auto name = s.sliceName();
    const auto cat = s.sliceCategory();
    std::vector<char> device(s.strings().size(), 2); // 2: not decided yet
    std::vector<std::pair<std::int64_t, std::int64_t>> hits;
    for (std::uint32_t i = 0; i < s.sliceCount(); ++i) {
        if (name[i] != id) continue;
        char& d = device[cat[i]];
        if (d == 2)
            d = spec.mode == AlignMode::Step ? isDeviceCategory(s.str(cat[i]))
                                             : isGpuEventCategory(s.str(cat[i]));
        const bool want = spec.mode == AlignMode::Step ? !d : d;
        if (want) hits.emplace_back(s.sliceStart()[i], s.sliceEnd(i));
    }
    std::sort(hits.begin(), hits.end());
    if (spec.mode == AlignMode::Step) {
        if (hits.empty()) return std::nullopt;
        return hits.front().first;
    }
    if (spec.occurrence == 0 || hits.size() < spec.occurrence) return std::nullopt;
    return hits[spec.occurrence - 1].second;
}

} // namespace

Alignment alignRanks(const RankSession& session, const AlignSpec& spec) {
    const std::size_t n = session.ranks.size();
    Alignment a;
    a.offsetNs.assign(n, 0);
    a.anchored.assign(n, spec.mode == AlignMode::Recorded ? 1 : 0);
    if (spec.mode == AlignMode::Recorded) return a;
    std::vector<std::optional<std::int64_t>> anchors(n);
    for (std::size_t i = 0; i < n; ++i)
        anchors[i] = anchorOf(*session.ranks[i].store, spec);
    std::optional<std::int64_t> ref;
    for (const auto& t : anchors)
        if (t) {
            ref = t;
            break;
        }
    if (!ref) return a;
    for (std::size_t i = 0; i < n; ++i)
        if (anchors[i]) {
            a.offsetNs[i] = *ref - *anchors[i];
            a.anchored[i] = 1;
        }
    return a;
}

} // namespace xt::timeline
