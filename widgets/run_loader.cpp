#include "widgets/run_loader.h"

#include "core/analysis/backend.h"
#include "core/storage/hdfs_mirror.h"

namespace xt::widgets {

std::vector<const analysis::KeySeries*> LoadedRun::seriesOf(const std::string& key) const {
    std::vector<const analysis::KeySeries*> out;
    for (const auto& s : series)
        if (s.key == key) out.push_back(&s);
    return out;
}

const xdl::KeySummary* LoadedRun::summaryOf(const std::string& key) const {
    for (const auto& k : keys)
        if (k.key == key) return &k;
    return nullptr;
}

LoadResult loadRuns(const std::vector<std::string>& paths, const ProgressCallback& progress) {
    LoadResult result;
    Diagnostics& diag = result.diagnostics;
    try {
        // hdfs:// URLs are read through the local mirror (only what changed is fetched).
        std::vector<storage::MirrorStatus> mirrored;
        auto local = storage::mirrorPaths(paths, storage::mirrorOptionsFromEnvironment(), progress,
                                          &mirrored);
        if (!local.isOk()) {
            result.status = local.status();
            result.cancelled = local.status().code() == ErrorCode::Cancelled;
            return result;
        }
        for (const auto& st : mirrored)
            if (st.offline)
                diag.add(Severity::Warning, "hdfs-offline", st.url, Diagnostic::kNoOffset, -1,
                         "offline (" + st.offlineReason + "); showing the local mirror " +
                             st.localPath);
        auto runs = xdl::discoverRuns(*local, diag);
        if (!runs.isOk()) {
            result.status = runs.status();
            return result;
        }
        if (runs->empty()) {
            result.status = Status(ErrorCode::NotFound, "no XDL run found in the given paths");
            return result;
        }
        for (const auto& files : *runs) {
            auto reader = xdl::RunReader::open(files, diag, progress);
            if (!reader.isOk()) {
                if (reader.status().code() == ErrorCode::Cancelled) {
                    result.cancelled = true;
                    return result;
                }
                diag.add(Severity::Error, "open-failed", files.label(), Diagnostic::kNoOffset, -1,
                         reader.status().toString());
                continue;
            }
            auto run = std::make_shared<LoadedRun>();
            run->reader = std::make_shared<const xdl::RunReader>(std::move(reader.value()));
            run->sourceUrl = storage::remoteUrlOf(files.directory, mirrored);
            auto keys = xdl::summarizeKeys(*run->reader, diag, progress);
            if (!keys.isOk()) {
                if (keys.status().code() == ErrorCode::Cancelled) {
                    result.cancelled = true;
                    return result;
                }
                diag.add(Severity::Error, "summary-failed", files.label(), Diagnostic::kNoOffset,
                         -1, keys.status().toString());
            } else {
                run->keys = std::move(keys.value());
            }
            const analysis::KeyStatsOptions options;
            auto sel = analysis::selectBackend(analysis::BackendChoice::Auto,
                                               analysis::estimateWorkBytes(*run->reader, options));
            run->backend = sel.backend->description();
            auto series =
                analysis::computeKeyStats(*run->reader, *sel.backend, options, diag, progress);
            if (!series.isOk()) {
                if (series.status().code() == ErrorCode::Cancelled) {
                    result.cancelled = true;
                    return result;
                }
                diag.add(Severity::Error, "statistics-failed", files.label(), Diagnostic::kNoOffset,
                         -1, series.status().toString());
            } else {
                run->series = std::move(series.value());
            }
            for (auto& nf :
                 analysis::firstNonFiniteByKey(analysis::findFirstNonFinite(run->series)))
                run->nonFinite.emplace(nf.key, nf);
            result.runs.push_back(std::move(run));
        }
        if (result.runs.empty())
            result.status = Status(ErrorCode::Corrupt, "none of the runs could be opened");
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

} // namespace xt::widgets
