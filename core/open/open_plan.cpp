#include "core/open/open_plan.h"

#include "core/base/diagnostic_codes.h"
#include "core/storage/webhdfs_client.h"

#include <algorithm>
#include <filesystem>
#include <glob.h>
#include <optional>

namespace fs = std::filesystem;

namespace xt::open {

std::vector<std::string> OpenPlan::runPaths() const {
    std::vector<std::string> out;
    for (const auto& in : inputs)
        if (in.runs) out.push_back(in.local);
    return out;
}

std::vector<TraceFile> OpenPlan::traces() const {
    std::vector<TraceFile> out;
    for (const auto& in : inputs)
        out.insert(out.end(), in.traces.begin(), in.traces.end());
    return out;
}

namespace {

bool hasGlobChars(const std::string& s) {
    return s.find_first_of("*?[") != std::string::npos;
}

// Names worth reading when a directory is listed (explicit paths are read whatever their name).
bool timelineName(const fs::path& p) {
    std::string n = p.filename().string();
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    return n.ends_with(".json") || n.ends_with(".gz") || n.ends_with(".zip") || n.ends_with(".pb");
}

// Sorts listed files (directory entries, glob matches) into `in`; returns whether any is XDL.
bool sortListed(const std::vector<fs::path>& files, PlannedInput& in) {
    bool xdl = false;
    for (const auto& f : files) {
        const std::string name = f.filename().string();
        if (name.ends_with(kSummarySuffix)) {
            in.skipped.push_back(f.string());
            continue;
        }
        const TraceKind byName = detectTraceKind(name, {}, 0);
        if (byName == TraceKind::XdlPart) {
            xdl = true;
        } else if (timelineName(f)) {
            const TraceKind k = detectTraceKind(f.string());
            if (isTimeline(k)) in.traces.push_back({f.string(), k});
        }
    }
    return xdl;
}

std::vector<fs::path> regularFiles(const fs::path& dir, std::vector<fs::path>* subdirs) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::error_code ec2;
        if (e.is_regular_file(ec2))
            files.push_back(e.path());
        else if (subdirs && e.is_directory(ec2))
            subdirs->push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (subdirs) std::sort(subdirs->begin(), subdirs->end());
    return files;
}

void sortDirectory(const fs::path& dir, PlannedInput& in) {
    std::vector<fs::path> subdirs;
    PlannedInput here, below;
    const bool xdlHere = sortListed(regularFiles(dir, &subdirs), here);
    bool xdlBelow = false;
    if (!xdlHere || here.traces.empty())
        for (const auto& sub : subdirs)
            xdlBelow = sortListed(regularFiles(sub, nullptr), below) || xdlBelow;
    const auto& traces = here.traces.empty() ? below.traces : here.traces;
    in.traces.insert(in.traces.end(), traces.begin(), traces.end());
    in.skipped.insert(in.skipped.end(), here.skipped.begin(), here.skipped.end());
    in.skipped.insert(in.skipped.end(), below.skipped.begin(), below.skipped.end());
    in.runs = xdlHere || xdlBelow || in.traces.empty();
}

Status sortPath(PlannedInput& in) {
    std::error_code ec;
    if (hasGlobChars(in.local) && !fs::exists(in.local, ec)) {
        glob_t g{};
        std::vector<fs::path> matches;
        if (::glob(in.local.c_str(), 0, nullptr, &g) == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i)
                matches.emplace_back(g.gl_pathv[i]);
        ::globfree(&g);
        if (matches.empty()) return Status(ErrorCode::NotFound, "no file matches " + in.local);
        std::vector<fs::path> files;
        bool dirs = false;
        for (const auto& m : matches) {
            if (fs::is_directory(m, ec)) {
                PlannedInput sub;
                sortDirectory(m, sub);
                dirs = dirs || sub.runs;
                in.traces.insert(in.traces.end(), sub.traces.begin(), sub.traces.end());
                in.skipped.insert(in.skipped.end(), sub.skipped.begin(), sub.skipped.end());
            } else {
                files.push_back(m);
            }
        }
        const bool xdl = sortListed(files, in);
        in.runs = xdl || dirs || in.traces.empty();
        return Status::ok();
    }
    switch (const TraceKind k = detectTraceKind(in.local)) {
    case TraceKind::Directory:
        sortDirectory(in.local, in);
        break;
    case TraceKind::XdlSummary:
        in.skipped.push_back(in.local);
        break;
    case TraceKind::ChromeTrace:
    case TraceKind::StepStats:
        in.traces.push_back({in.local, k});
        break;
    case TraceKind::Missing:
    case TraceKind::XdlPart:
    case TraceKind::Unknown:
        in.runs = true;
        break;
    }
    return Status::ok();
}

} // namespace

Result<OpenPlan> planOpen(const std::vector<std::string>& paths, const OpenOptions& options) {
    OpenPlan plan;
    std::optional<storage::HdfsMirror> mirror;
    for (const auto& p : paths) {
        PlannedInput in{p, p, false, {}, {}};
        if (storage::isHdfsUrl(p)) {
            Result<storage::MirrorStatus> st = Status(ErrorCode::Internal, "no mirror");
            if (options.mirror) {
                st = options.mirror(p, options.progress);
            } else {
                if (!mirror) mirror.emplace(storage::mirrorOptionsFromEnvironment());
                st = mirror->mirror(p, options.progress);
            }
            XT_RETURN_IF_ERROR(st.status());
            in.local = st->localPath;
            if (st->offline)
                plan.diagnostics.add(codes::kHdfsOffline, st->url, Diagnostic::kNoOffset, -1,
                                     "offline (" + st->offlineReason +
                                         "); showing the local mirror " + st->localPath);
            plan.mirrored.push_back(std::move(*st));
        }
        XT_RETURN_IF_ERROR(sortPath(in));
        plan.inputs.push_back(std::move(in));
    }
    return plan;
}

} // namespace xt::open
