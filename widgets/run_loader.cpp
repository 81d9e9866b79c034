#include "widgets/run_loader.h"

#include "core/analysis/backend.h"
#include "core/base/diagnostic_codes.h"
#include "core/storage/hdfs_mirror.h"

#include <algorithm>

namespace xt::widgets {

namespace {

bool isCancelled(const Status& s) {
    return s.code() == ErrorCode::Cancelled;
}

// The first key with data records, or "".
std::string firstKeyWithData(const std::vector<xdl::KeySummary>& keys) {
    for (const auto& k : keys)
        if (k.records > 0) return k.key;
    return {};
}

// Statistics of the keys `filter` accepts (every key when unset), from the summaries where
// they cover a part and from the tensor bytes elsewhere.
Result<std::vector<analysis::KeySeries>> statistics(const LoadedRun& run,
                                                    std::function<bool(std::string_view)> filter,
                                                    std::string& backendName, Diagnostics& diag,
                                                    const ProgressCallback& progress) {
    analysis::KeyStatsOptions options;
    options.keyFilter = std::move(filter);
    options.summaries = run.summaries.get();
    auto sel = analysis::selectBackend(analysis::BackendChoice::Auto,
                                       analysis::estimateWorkBytes(*run.reader, options));
    backendName = sel.backend->description();
    return analysis::computeKeyStats(*run.reader, *sel.backend, options, diag, progress);
}

void setNonFinite(LoadedRun& run) {
    run.nonFinite.clear();
    for (auto& nf : analysis::firstNonFiniteByKey(analysis::findFirstNonFinite(run.series)))
        run.nonFinite.emplace(nf.key, nf);
}

// Opens one run summary first; null (with a diagnostic) when it cannot be opened.
Result<std::shared_ptr<LoadedRun>> openOne(const xdl::RunFiles& files, const LoadOptions& options,
                                           Diagnostics& diag, const ProgressCallback& progress) {
    auto opened = summary::openRun(files, options.store, diag, progress);
    if (!opened.isOk()) return opened.status();
    auto run = std::make_shared<LoadedRun>();
    run->reader = std::make_shared<const xdl::RunReader>(std::move(opened->reader));
    auto summaries = std::make_shared<summary::RunSummaries>(std::move(opened->summaries));
    run->summaries = summaries;
    auto keys = summary::summarizeKeys(*run->reader, *summaries, diag, progress);
    if (!keys.isOk()) {
        if (isCancelled(keys.status())) return keys.status();
        diag.add(codes::kSummaryFailed, files.label(), Diagnostic::kNoOffset, -1,
                 keys.status().toString());
    } else {
        run->keys = std::move(keys.value());
    }
    // With every part summarised, every key's statistics cost no tensor byte; a large run
    // without summaries gets only the key asked for now.
    std::uint64_t unsummarised = 0;
    for (const auto& rank : run->reader->ranks())
        for (const auto& part : rank.parts())
            if (!summaries->find(*part)) unsummarised += part->part().size;
    run->complete = unsummarised <= options.lazyAboveBytes;
    std::function<bool(std::string_view)> filter;
    if (!run->complete) {
        std::string first = options.firstKey;
        if (first.empty() || !run->summaryOf(first)) first = firstKeyWithData(run->keys);
        run->computedKeys.push_back(first);
        filter = [first](std::string_view k) { return k == first; };
    }
    auto series = statistics(*run, std::move(filter), run->backend, diag, progress);
    if (!series.isOk()) {
        if (isCancelled(series.status())) return series.status();
        diag.add(codes::kStatisticsFailed, files.label(), Diagnostic::kNoOffset, -1,
                 series.status().toString());
    } else {
        run->series = std::move(series.value());
    }
    setNonFinite(*run);
    return run;
}

} // namespace

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

bool LoadedRun::hasSeries(const std::string& key) const {
    return complete ||
           std::find(computedKeys.begin(), computedKeys.end(), key) != computedKeys.end();
}

LoadResult loadRuns(const std::vector<std::string>& paths, const ProgressCallback& progress,
                    const LoadOptions& options) {
    LoadResult result;
    Diagnostics& diag = result.diagnostics;
    try {
        // hdfs:// URLs are read through the local mirror (only what changed is fetched).
        std::vector<storage::MirrorStatus> mirrored;
        auto local = storage::mirrorPaths(paths, storage::mirrorOptionsFromEnvironment(), progress,
                                          &mirrored);
        if (!local.isOk()) {
            result.status = local.status();
            result.cancelled = isCancelled(local.status());
            return result;
        }
        for (const auto& st : mirrored)
            if (st.offline)
                diag.add(codes::kHdfsOffline, st.url, Diagnostic::kNoOffset, -1,
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
            auto run = openOne(files, options, diag, progress);
            if (!run.isOk()) {
                if (isCancelled(run.status())) {
                    result.cancelled = true;
                    return result;
                }
                diag.add(codes::kOpenFailed, files.label(), Diagnostic::kNoOffset, -1,
                         run.status().toString());
                continue;
            }
            run.value()->sourceUrl = storage::remoteUrlOf(files.directory, mirrored);
            result.runs.push_back(std::move(run.value()));
        }
        if (result.runs.empty())
            result.status = Status(ErrorCode::Corrupt, "none of the runs could be opened");
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

CompleteResult addKeySeries(const RunSnapshot& run, const std::string& key,
                            const ProgressCallback& progress) {
    CompleteResult result;
    result.before = run;
    try {
        auto next = std::make_shared<LoadedRun>(*run);
        std::string backend;
        auto series = statistics(
            *next, [&key](std::string_view k) { return k == key; }, backend, result.diagnostics,
            progress);
        if (!series.isOk()) {
            result.status = series.status();
            return result;
        }
        for (auto& s : series.value())
            next->series.push_back(std::move(s));
        next->computedKeys.push_back(key);
        setNonFinite(*next);
        result.after = std::move(next);
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

CompleteResult completeRun(const RunSnapshot& run, const summary::StoreOptions& store,
                           const ProgressCallback& progress) {
    CompleteResult result;
    result.before = run;
    try {
        auto summaries = std::make_shared<summary::RunSummaries>(*run->summaries);
        Status st =
            summary::summarizeRun(*run->reader, *summaries, store, result.diagnostics, progress);
        if (!st.isOk()) {
            result.status = st;
            return result;
        }
        auto next = std::make_shared<LoadedRun>(*run);
        next->summaries = summaries;
        std::string backend;
        auto series = statistics(*next, {}, backend, result.diagnostics, progress);
        if (!series.isOk()) {
            result.status = series.status();
            return result;
        }
        next->series = std::move(series.value());
        next->complete = true;
        next->computedKeys.clear();
        setNonFinite(*next);
        result.after = std::move(next);
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

} // namespace xt::widgets
