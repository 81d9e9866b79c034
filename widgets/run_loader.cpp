#include "widgets/run_loader.h"

#include "core/analysis/backend.h"
#include "core/analysis/parallel_loop.h"
#include "core/base/diagnostic_codes.h"
#include "core/base/file_arena.h"
#include "core/base/parallel_for.h"
#include "core/storage/remote_runs.h"
#include "core/summary/overview.h"
#include "core/xdl/run_follower.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <map>
#include <string_view>
#include <unordered_map>

namespace xt::widgets {

namespace {

xdl::ReaderOptions readerOptions(const summary::StoreOptions& store) {
    xdl::ReaderOptions o;
    o.live = true; // an unfinalised part may still grow: its tail is awaited
    // A large part's index is kept where its summary's columns are built, not in memory.
    if (store.save) o.index.spillDir = summary::cacheDirectory(store);
    return o;
}

bool isCancelled(const Status& s) {
    return s.code() == ErrorCode::Cancelled;
}

// The first key with data records, or "".
std::string firstKeyWithData(const std::vector<xdl::KeySummary>& keys) {
    for (const auto& k : keys)
        if (k.records > 0) return k.key;
    return {};
}

// Per rank, the record where the next stage of reading a key ends: after `from` (the records
// read so far per rank), about max(minBytes, the bytes of those records) more bytes of records,
// shared evenly by the ranks, and at least one record. So the stages double: a key read from n
// times the first stage's bytes takes about log2(n) + 1 stages.
std::map<int, std::size_t> stageEnd(const xdl::RunReader& run,
                                    const std::map<int, std::size_t>& from,
                                    std::uint64_t minBytes) {
    const auto start = [&](const xdl::RankReader& rank) {
        const auto f = from.find(rank.rank());
        return f == from.end() ? std::size_t(0) : std::min(f->second, rank.recordCount());
    };
    std::uint64_t done = 0;
    for (const auto& rank : run.ranks())
        done += rank.recordBytes(0, start(rank));
    const std::uint64_t share = std::max<std::uint64_t>(
        1, std::max(minBytes, done) / std::max<std::size_t>(1, run.ranks().size()));
    std::map<int, std::size_t> to;
    for (const auto& rank : run.ranks())
        to[rank.rank()] = rank.recordAfterBytes(start(rank), share);
    return to;
}

bool coversEveryRecord(const xdl::RunReader& run, const std::map<int, std::size_t>& until) {
    for (const auto& rank : run.ranks())
        if (auto u = until.find(rank.rank()); u == until.end() || u->second < rank.recordCount())
            return false;
    return true;
}

// Appends the records of `fresh` to the series of the same (rank, key) in `series`; series of
// pairs first seen are inserted after the last series of their rank.
void appendSeries(std::vector<analysis::KeySeries>& series,
                  std::vector<analysis::KeySeries> fresh) {
    for (auto& f : fresh) {
        if (f.records.empty()) continue;
        auto same = std::find_if(series.begin(), series.end(), [&](const analysis::KeySeries& s) {
            return s.rank == f.rank && s.key == f.key;
        });
        if (same != series.end()) {
            same->records.append(f.records.begin(), f.records.end());
            continue;
        }
        auto after = std::find_if(series.begin(), series.end(),
                                  [&](const analysis::KeySeries& s) { return s.rank > f.rank; });
        series.insert(after, std::move(f));
    }
}

// Statistics of what `options` asks for, from the summaries where they cover a part and from
// the tensor bytes elsewhere.
Result<std::vector<analysis::KeySeries>> statistics(const LoadedRun& run,
                                                    analysis::KeyStatsOptions options,
                                                    std::string& backendName, Diagnostics& diag,
                                                    const ProgressCallback& progress) {
    options.summaries = run.summaries.get();
    auto sel = analysis::selectBackend(analysis::BackendChoice::Auto); // one pass: the CPU
    backendName = sel.backend->description();
    return analysis::computeKeyStats(*run.reader, *sel.backend, options, diag, progress);
}

// The run's series in computeKeyStats's order: by rank, then in the rank's key order.
void sortSeries(LoadedRun& run) {
    std::map<int, const std::vector<std::string>*> keysOf;
    for (const auto& r : run.reader->ranks())
        keysOf[r.rank()] = &r.keys();
    const auto place = [&](const analysis::KeySeries& s) {
        const auto& keys = *keysOf.at(s.rank);
        return std::pair(s.rank, std::find(keys.begin(), keys.end(), s.key) - keys.begin());
    };
    std::stable_sort(run.series.begin(), run.series.end(),
                     [&](const auto& a, const auto& b) { return place(a) < place(b); });
}

void setNonFinite(LoadedRun& run) {
    run.nonFinite.clear();
    const auto found = run.seriesOnDemand
                           ? analysis::findFirstNonFinite(*run.reader, *run.summaries)
                           : analysis::findFirstNonFinite(run.series);
    for (auto& nf : analysis::firstNonFiniteByKey(found))
        run.nonFinite.emplace(nf.key, nf);
}

// The run's key records: what every key's series would hold.
std::uint64_t keyRecords(const xdl::RunReader& run) {
    std::uint64_t n = 0;
    for (const auto& rank : run.ranks())
        for (const auto& part : rank.parts())
            n += part->index().records().size() * std::max<std::size_t>(1, part->keys().size());
    return n;
}

// Whether `run`, every part summarised, has series on demand.
bool onDemand(const LoadedRun& run) {
    return !run.live && run.summaries->covers(*run.reader) &&
           keyRecords(*run.reader) > run.onDemandAbove;
}

bool contains(const std::vector<std::string>& keys, std::string_view key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// The extents of the parts of `reader`: a part that `before` has (by path, with no more records)
// continues from there, with only the records added since.
std::vector<PartExtent> partExtents(const xdl::RunReader& reader,
                                    const std::vector<PartExtent>& before = {}) {
    std::unordered_map<std::string_view, const PartExtent*> earlier;
    for (const PartExtent& e : before)
        earlier.emplace(e.path, &e);
    std::vector<const xdl::PartReader*> parts;
    for (const auto& rank : reader.ranks())
        for (const auto& part : rank.parts())
            parts.push_back(part.get());
    std::vector<PartExtent> out(parts.size());
    // A pass over each part's new records, several parts at a time.
    analysis::ParallelLoop(parts.size() > 1 ? 0 : 1)
        .run(parts.size(), [&](std::size_t p, unsigned) {
            const auto records = parts[p]->index().records();
            const auto it = earlier.find(parts[p]->part().path);
            PartExtent e = it != earlier.end() && it->second->records <= records.size()
                               ? *it->second
                               : PartExtent{parts[p]->part().path};
            std::size_t released = e.records;
            for (std::size_t i = e.records; i < records.size(); ++i) {
                e.include(records[i].gstep, records[i].lstep, records[i].timestamp);
                parts[p]->index().releaseBehind(i, released);
            }
            parts[p]->index().releaseBehind(records.size(), released);
            e.records = records.size();
            out[p] = std::move(e);
        });
    return out;
}

// The records of each rank whose keys a large run without summaries counts on opening.
constexpr std::size_t kKeysPrefixRecords = 4096;

// The summaries of `run` read from files written before the overview section, large enough to
// have their records left in those files (the ones to write again, where they are).
std::vector<const summary::PartSummary*> summariesWithoutOverview(const LoadedRun& run) {
    std::vector<const summary::PartSummary*> out;
    for (const auto& rank : run.reader->ranks())
        for (const auto& part : rank.parts())
            if (const auto* s = run.summaries->find(*part); s && !s->overview && s->records.file())
                out.push_back(s);
    return out;
}

// Opens one run summary first; null (with a diagnostic) when it cannot be opened.
Result<std::shared_ptr<LoadedRun>> openOne(const xdl::RunFiles& files, const LoadOptions& options,
                                           Diagnostics& diag, const ProgressCallback& progress) {
    // The first key's statistics are taken as the summaries are read, not in a second pass.
    auto opened =
        summary::openRun(files, options.store, diag, progress, readerOptions(options.store),
                         analysis::takeKeyStats(options.firstKey));
    if (!opened.isOk()) return opened.status();
    auto run = newSnapshot();
    run->options = options;
    run->reader = std::make_shared<const xdl::RunReader>(std::move(opened->reader));
    run->partExtents = partExtents(*run->reader);
    auto summaries = std::make_shared<summary::RunSummaries>(std::move(opened->summaries));
    run->summaries = summaries;
    // With every part summarised, every key's statistics cost no tensor byte; a large run
    // without summaries gets only the key asked for now.
    std::uint64_t unsummarised = 0;
    for (const auto& rank : run->reader->ranks())
        for (const auto& part : rank.parts())
            if (!summaries->find(*part)) unsummarised += part->part().size;
    for (const auto& rank : run->reader->ranks())
        for (const auto& part : rank.parts())
            run->live = run->live || !part->finished();
    // A live run gets every key now: its snapshots are extended record by record (extendRun),
    // which a summarising job in the background would keep starting over.
    run->complete = run->live || unsummarised <= options.lazyAboveBytes;
    // The keys of a run still to be summarised are counted with it (completeRun).
    run->keysCounted = run->complete;
    std::map<int, std::size_t> keysPrefix;
    if (!run->keysCounted)
        for (const auto& rank : run->reader->ranks())
            keysPrefix[rank.rank()] = kKeysPrefixRecords;
    auto keys = run->keysCounted ? summary::summarizeKeys(*run->reader, *summaries, diag, progress)
                                 : xdl::summarizeKeyPrefix(*run->reader, keysPrefix, diag);
    if (!keys.isOk()) {
        if (isCancelled(keys.status())) return keys.status();
        diag.add(codes::kSummaryFailed, files.label(), Diagnostic::kNoOffset, -1,
                 keys.status().toString());
    } else {
        run->keys = std::move(keys.value());
    }
    run->onDemandAbove = options.seriesOnDemandAbove;
    run->seriesOnDemand = onDemand(*run);
    analysis::KeyStatsOptions stats;
    if (!run->complete || run->seriesOnDemand) {
        std::string first = options.firstKey;
        if (first.empty() || !run->summaryOf(first)) first = firstKeyWithData(run->keys);
        stats.keyFilter = [first](std::string_view k) { return k == first; };
        // From the summaries a key costs no tensor byte: no stages.
        if (!run->seriesOnDemand)
            stats.toRecord = stageEnd(*run->reader, {}, options.firstStageBytes);
        if (run->seriesOnDemand || coversEveryRecord(*run->reader, stats.toRecord)) {
            stats.toRecord.clear();
            run->computedKeys.push_back(first);
        } else {
            run->partialKey = first;
            run->partialUntil = stats.toRecord;
        }
    }
    auto series = statistics(*run, std::move(stats), run->backend, diag, progress);
    if (!series.isOk()) {
        if (isCancelled(series.status())) return series.status();
        diag.add(codes::kStatisticsFailed, files.label(), Diagnostic::kNoOffset, -1,
                 series.status().toString());
    } else {
        run->series = std::move(series.value());
    }
    setNonFinite(*run);
    run->overviewsToWrite = !run->live && keyRecords(*run->reader) > options.overviewAbove &&
                            !summariesWithoutOverview(*run).empty();
    return run;
}

// The two records that stand for block `b` of a part in a key's envelope (LoadedRun::overview):
// the least and the greatest value of each statistic, at the block's middle step.
void appendEnvelope(analysis::RecordSeries& out, const summary::Overview& o, std::size_t column,
                    std::size_t b, std::size_t partStart) {
    const summary::OverviewCell& cell = o.cell(column, b);
    if (!cell.data) return;
    const summary::OverviewBlock& block = o.blocks[b];
    const bool finite = cell.hasFinite();
    const std::size_t first = partStart + b * o.blockRecords;
    const std::size_t last =
        partStart + std::min<std::uint64_t>(o.records, (b + 1) * o.blockRecords) - 1;
    for (const auto* side : {&cell.lo, &cell.hi}) {
        const auto& v = *side;
        analysis::RecordStats r;
        r.record = side == &cell.lo ? first : last;
        r.gstep = block.gFirst + (block.gLast - block.gFirst) / 2;
        r.lstep = block.l0 + (block.l1 - block.l0) / 2;
        r.timestamp = block.t0 + (block.t1 - block.t0) / 2;
        auto& st = r.stats;
        st.count = std::uint64_t(v[0]), st.nan = std::uint64_t(v[1]), st.inf = std::uint64_t(v[2]);
        st.zeros = std::uint64_t(v[3]), st.finite = std::uint64_t(v[4]);
        // min to l2 are drawn for a record with a finite element (analysis::statValue).
        if (finite) {
            st.finite = std::max<std::uint64_t>(st.finite, 1);
            st.min = v[5], st.max = v[6], st.mean = v[7], st.std = v[8], st.l2 = v[9];
        }
        out.push_back(r);
    }
}

// A large run shown at once from its summaries' overviews (LoadedRun::overview), or null when
// it is small, still written, remote, or a part has no peeked summary of its identity without
// damage: it is then opened in full.
std::shared_ptr<LoadedRun> openFromOverviews(const xdl::RunFiles& files,
                                             const LoadOptions& options) {
    std::vector<const xdl::PartFile*> todo;
    for (const auto& rank : files.ranks)
        for (const auto& p : rank.parts)
            todo.push_back(&p);
    // Four parts at a time, as openRun: a large run's summaries are mostly not in the page cache.
    constexpr int kThreads = 4;
    std::vector<std::shared_ptr<const summary::PartSummary>> peeked(todo.size());
    std::atomic<std::uint64_t> keyRecords{0};
    if (!parallelFor(todo.size(), kThreads,
                     [&](std::size_t i) {
                         auto s = summary::peekValidSummary(*todo[i], options.store);
                         if (!s || !s->damagedRecords.empty() || !s->indexDiagnostics.empty())
                             return false;
                         for (const auto& t : s->totals)
                             if (t.damaged) return false;
                         keyRecords +=
                             s->recordCount() * std::max<std::size_t>(1, s->totals.size());
                         peeked[i] = std::move(s);
                         return true;
                     }) ||
        keyRecords <= options.overviewAbove)
        return nullptr;
    std::vector<std::shared_ptr<xdl::PartReader>> readers(todo.size());
    std::vector<Diagnostics> unreported(todo.size()); // the full open reports what there is
    if (!parallelFor(todo.size(), kThreads, [&](std::size_t i) {
            auto part = xdl::PartReader::open(*todo[i], peeked[i]->indexState(), unreported[i], {},
                                              readerOptions(options.store));
            if (!part || !(*part)->finished() ||
                (*part)->index().records().size() != peeked[i]->recordCount())
                return false;
            readers[i] = std::move(*part);
            return true;
        }))
        return nullptr;
    summary::RunSummaries overviews;
    std::vector<xdl::RankReader> ranks;
    std::size_t i = 0;
    Diagnostics unreportedToo; // as the parts'
    for (const auto& rank : files.ranks) {
        std::vector<std::shared_ptr<xdl::PartReader>> parts;
        for (std::size_t p = 0; p < rank.parts.size(); ++p, ++i) {
            overviews.add(readers[i]->part().path, peeked[i]);
            parts.push_back(std::move(readers[i]));
        }
        ranks.emplace_back(rank.rank, std::move(parts), unreportedToo, false);
    }
    auto run = newSnapshot();
    run->reader =
        std::make_shared<const xdl::RunReader>(xdl::RunReader::fromRanks(files, std::move(ranks)));
    run->summaries = std::make_shared<summary::RunSummaries>();
    run->overview = true;
    run->options = options;
    run->backend = "the summaries' overviews (approximate)";
    auto keys = summary::summarizeKeys(*run->reader, overviews, unreportedToo);
    if (!keys) return nullptr;
    run->keys = std::move(*keys);
    for (auto& nf :
         analysis::firstNonFiniteByKey(analysis::findFirstNonFinite(*run->reader, overviews)))
        run->nonFinite.emplace(nf.key, nf);
    for (const auto& rank : run->reader->ranks()) {
        for (const auto& key : rank.keys()) {
            analysis::KeySeries series{rank.rank(), key, {}};
            for (std::size_t p = 0; p < rank.parts().size(); ++p) {
                const xdl::PartReader& part = *rank.parts()[p];
                const summary::Overview& o = *overviews.find(part)->overview;
                const int column = part.columnOf(key);
                if (column < 0 || std::size_t(column) >= o.columns()) continue;
                for (std::size_t b = 0; b < o.blocks.size(); ++b)
                    appendEnvelope(series.records, o, std::size_t(column), b, rank.partStart(p));
            }
            if (!series.records.empty()) run->series.push_back(std::move(series));
        }
        for (const auto& part : rank.parts()) {
            const summary::Overview& o = *overviews.find(*part)->overview;
            PartExtent e{part->part().path};
            for (const auto& b : o.blocks) {
                e.include(b.g0, b.l0, b.t0);
                e.include(b.g1, b.l1, b.t1);
            }
            e.records = o.records;
            run->partExtents.push_back(std::move(e));
        }
    }
    return run;
}

// A large finished local run whose first part has no summary, shown at once from the first
// records of each rank (LoadedRun::preview), or null: it is then opened in full.
Result<std::shared_ptr<LoadedRun>> openPreview(const xdl::RunFiles& files,
                                               const LoadOptions& options,
                                               const ProgressCallback& progress) {
    std::uint64_t bytes = 0;
    for (const auto& rank : files.ranks)
        for (const auto& p : rank.parts) {
            if (p.metaState != xdl::MetaState::Finalised)
                return std::shared_ptr<LoadedRun>(); // it may be growing
            bytes += p.size;
        }
    if (bytes <= options.previewAboveBytes || !files.source.empty() || files.ranks.empty() ||
        summary::peekValidSummary(files.ranks.front().parts.front(), options.store))
        return std::shared_ptr<LoadedRun>();
    // A quarter of the first stage's bytes, shared by the ranks: whole parts, then the start of
    // the next.
    struct Prefix {
        const xdl::PartFile* part;
        std::uint64_t scanBytes;
    };
    std::vector<std::vector<Prefix>> prefixes(files.ranks.size());
    std::vector<Prefix*> todo;
    const std::uint64_t share =
        std::max<std::uint64_t>(1, options.firstStageBytes / 4 / files.ranks.size());
    for (std::size_t r = 0; r < files.ranks.size(); ++r) {
        std::uint64_t left = share;
        for (const auto& p : files.ranks[r].parts) {
            prefixes[r].push_back({&p, left});
            if (p.size >= left) break;
            left -= p.size;
        }
        for (auto& p : prefixes[r])
            todo.push_back(&p);
    }
    std::vector<std::shared_ptr<xdl::PartReader>> readers(todo.size());
    std::vector<Diagnostics> unreported(todo.size()); // the full open reports what there is
    if (!parallelFor(todo.size(), 0, [&](std::size_t i) {
            xdl::ReaderOptions reading = readerOptions(options.store);
            reading.scanBytes = todo[i]->scanBytes;
            auto part = xdl::PartReader::open(*todo[i]->part, unreported[i], {}, reading);
            if (!part) return false;
            readers[i] = std::move(*part);
            return true;
        }))
        return std::shared_ptr<LoadedRun>();
    std::vector<xdl::RankReader> ranks;
    Diagnostics unreportedToo;
    std::map<int, std::size_t> keysPrefix;
    for (std::size_t r = 0, i = 0; r < files.ranks.size(); ++r) {
        std::vector<std::shared_ptr<xdl::PartReader>> parts;
        for (std::size_t p = 0; p < prefixes[r].size(); ++p)
            parts.push_back(std::move(readers[i++]));
        ranks.emplace_back(files.ranks[r].rank, std::move(parts), unreportedToo, false);
        keysPrefix[files.ranks[r].rank] = kKeysPrefixRecords;
    }
    auto run = newSnapshot();
    run->reader =
        std::make_shared<const xdl::RunReader>(xdl::RunReader::fromRanks(files, std::move(ranks)));
    run->summaries = std::make_shared<summary::RunSummaries>();
    run->options = options;
    run->preview = true;
    run->complete = run->keysCounted = false;
    auto keys = xdl::summarizeKeyPrefix(*run->reader, keysPrefix, unreportedToo);
    if (!keys) return std::shared_ptr<LoadedRun>();
    run->keys = std::move(*keys);
    std::string first = options.firstKey;
    if (first.empty() || !run->summaryOf(first)) first = firstKeyWithData(run->keys);
    if (first.empty()) return std::shared_ptr<LoadedRun>(); // no record in the preview
    analysis::KeyStatsOptions stats;
    stats.keyFilter = [first](std::string_view k) { return k == first; };
    auto series = statistics(*run, std::move(stats), run->backend, unreportedToo, progress);
    if (!series) {
        if (isCancelled(series.status())) return series.status();
        return std::shared_ptr<LoadedRun>();
    }
    run->series = std::move(*series);
    run->computedKeys.push_back(first);
    run->partExtents = partExtents(*run->reader);
    setNonFinite(*run);
    return run;
}

void destroySnapshot(LoadedRun* run) {
    const QCoreApplication* app = QCoreApplication::instance();
    if (!app || QThread::currentThread() != app->thread()) {
        delete run;
        return;
    }
    // One thread, not the jobs' pool: a release does not wait for a job to end.
    static QThreadPool* releases = [] {
        auto* p = new QThreadPool; // lives as long as the process, done before the application
        p->setObjectName(QStringLiteral("xtview releases"));
        p->setMaxThreadCount(1);
        qAddPostRoutine([] { releases->waitForDone(); });
        return p;
    }();
    releases->start([run] { delete run; });
}

} // namespace

xdl::ReaderOptions followedReaderOptions(const summary::StoreOptions& store) {
    xdl::ReaderOptions o = readerOptions(store);
    o.index.spillAbove = 4096;
    return o;
}

std::shared_ptr<LoadedRun> newSnapshot() {
    return {new LoadedRun, destroySnapshot};
}

std::shared_ptr<LoadedRun> newSnapshot(const LoadedRun& from) {
    return {new LoadedRun(from), destroySnapshot};
}

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
    return (complete && !seriesOnDemand) || key == partialKey || contains(computedKeys, key);
}

std::uint64_t LoadedRun::recordCount() const {
    std::uint64_t n = 0;
    for (const auto& rank : reader->ranks())
        n += rank.recordCount();
    return n;
}

double LoadedRun::partialFraction() const {
    if (partialKey.empty()) return 1.0;
    std::uint64_t until = 0, records = 0;
    for (const auto& rank : reader->ranks()) {
        records += rank.recordCount();
        if (auto u = partialUntil.find(rank.rank()); u != partialUntil.end()) until += u->second;
    }
    return records ? double(until) / double(records) : 1.0;
}

LoadResult loadRuns(const std::vector<std::string>& paths, const ProgressCallback& progress,
                    const LoadOptions& options) {
    LoadResult result;
    Diagnostics& diag = result.diagnostics;
    try {
        // hdfs:// URLs: metas and summaries are mirrored whole, data bytes are fetched by range
        // when a reader asks for them (storage::RemoteRuns).
        auto opened =
            storage::RemoteRuns::open(paths, storage::mirrorOptionsFromEnvironment(), progress);
        if (!opened.isOk()) {
            result.status = opened.status();
            result.cancelled = isCancelled(opened.status());
            return result;
        }
        auto remote = std::make_shared<storage::RemoteRuns>(std::move(opened.value()));
        for (const auto& st : remote->statuses())
            if (st.offline)
                diag.add(codes::kHdfsOffline, st.url, Diagnostic::kNoOffset, -1,
                         "offline (" + st.offlineReason + "); showing what the local mirror " +
                             st.localPath + " holds");
        auto runs = xdl::discoverRuns(remote->localPaths(), diag);
        if (!runs.isOk()) {
            result.status = runs.status();
            return result;
        }
        if (runs->empty()) {
            result.status = Status(ErrorCode::NotFound, "no XDL run found in the given paths");
            return result;
        }
        for (auto& files : *runs) {
            remote->attach(files, diag); // a remote run: its URL, and its parts' fetchers
            if (auto shown = openFromOverviews(files, options)) {
                result.runs.push_back(std::move(shown));
                continue;
            }
            auto preview = openPreview(files, options, progress);
            if (!preview.isOk()) {
                result.cancelled = true;
                return result;
            }
            if (*preview) {
                result.runs.push_back(std::move(*preview));
                continue;
            }
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
            run.value()->sourceUrl = files.source;
            if (!files.source.empty()) run.value()->remote = remote;
            result.runs.push_back(std::move(run.value()));
        }
        if (result.runs.empty())
            result.status = Status(ErrorCode::Corrupt, "none of the runs could be opened");
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

CompleteResult openExact(const RunSnapshot& run, const std::string& key,
                         const ProgressCallback& progress) {
    CompleteResult result;
    result.before = run;
    try {
        LoadOptions options = run->options;
        if (!key.empty()) options.firstKey = key;
        auto opened = openOne(run->reader->files(), options, result.diagnostics, progress);
        if (!opened) {
            result.status = opened.status();
            return result;
        }
        result.after = std::move(*opened);
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

CompleteResult writeOverviews(const RunSnapshot& run, const ProgressCallback& progress) {
    CompleteResult result;
    result.before = run;
    try {
        const auto todo = summariesWithoutOverview(*run);
        for (std::size_t i = 0; i < todo.size(); ++i) {
            if (!reportProgress(progress, i, todo.size(), "writing overviews")) {
                result.status = Status(ErrorCode::Cancelled, "writing overviews cancelled");
                return result;
            }
            // Renamed over the file the snapshot maps, which it keeps reading.
            const std::string& path = todo[i]->records.file()->path();
            if (Status st = summary::saveSummary(*todo[i], path); !st)
                result.diagnostics.add(codes::kSummaryNotSaved, path, Diagnostic::kNoOffset, -1,
                                       st.message());
        }
        auto after = newSnapshot(*run);
        after->overviewsToWrite = false;
        result.after = std::move(after);
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

RunSnapshot shownSnapshotOf(const std::vector<RunSnapshot>& open, const RunSnapshot& before) {
    for (const auto& r : open)
        if (r == before || (before->preview && r->preview && r->reader == before->reader)) return r;
    return nullptr;
}

CompleteResult addKeySeries(const RunSnapshot& run, const std::string& key,
                            const ProgressCallback& progress,
                            const std::vector<std::string>& keep) {
    CompleteResult result;
    result.before = run;
    try {
        auto next = newSnapshot(*run);
        analysis::KeyStatsOptions options;
        options.keyFilter = [&key](std::string_view k) { return k == key; };
        const bool staged = run->partialKey == key;
        if (staged) {
            options.fromRecord = run->partialUntil;
            options.toRecord = stageEnd(*run->reader, run->partialUntil, 0);
        }
        std::string backend;
        auto series = statistics(*next, options, backend, result.diagnostics, progress);
        if (!series.isOk()) {
            result.status = series.status();
            return result;
        }
        if (staged) {
            appendSeries(next->series, std::move(series.value()));
            next->partialUntil = options.toRecord;
        } else {
            for (auto& s : series.value())
                next->series.push_back(std::move(s));
        }
        if (!staged || coversEveryRecord(*next->reader, next->partialUntil)) {
            if (staged) { // another key read whole leaves the staged one staged
                next->partialKey.clear();
                next->partialUntil.clear();
            }
            next->computedKeys.push_back(key);
        }
        if (next->seriesOnDemand) { // only the keys on screen keep their series
            const auto kept = [&](std::string_view k) { return k == key || contains(keep, k); };
            std::erase_if(next->series, [&](const auto& s) { return !kept(s.key); });
            std::erase_if(next->computedKeys, [&](const auto& k) { return !kept(k); });
        } else {
            setNonFinite(*next);
        }
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
        auto next = newSnapshot(*run);
        next->summaries = summaries;
        next->seriesOnDemand = onDemand(*next);
        // Its parts read their records from the summaries' files, as on a re-open: the index
        // each part's first scan built goes with the snapshots that still hold `run`.
        if (auto reread =
                summary::rereadFromSummaries(*run->reader, *summaries, readerOptions(store)))
            next->reader = std::make_shared<const xdl::RunReader>(std::move(*reread));
        if (!next->keysCounted) {
            Diagnostics again; // the damage met was reported by the summaries' builds
            auto keys = summary::summarizeKeys(*next->reader, *summaries, again, progress);
            if (!keys.isOk()) {
                result.status = keys.status();
                return result;
            }
            next->keys = std::move(keys.value());
            next->keysCounted = true;
        }
        // Whole series are kept as they are (their chunks shared, not read again), the partial
        // key's goes on from where it stopped, and the keys wanted without one are read.
        const std::string partial = run->partialKey;
        std::vector<std::string> whole = run->computedKeys;
        if (run->complete && !run->seriesOnDemand)
            for (const auto& s : run->series)
                if (!contains(whole, s.key)) whole.push_back(s.key);
        std::vector<std::string> wanted = run->computedKeys; // on demand: the keys shown
        if (!partial.empty()) wanted.push_back(partial);
        if (next->seriesOnDemand)
            std::erase_if(next->series, [&](const auto& s) { return !contains(wanted, s.key); });
        std::string backend;
        auto add = [&](analysis::KeyStatsOptions options) {
            auto series =
                statistics(*next, std::move(options), backend, result.diagnostics, progress);
            if (!series.isOk()) return series.status();
            appendSeries(next->series, std::move(series.value()));
            return Status::ok();
        };
        if (!partial.empty()) {
            analysis::KeyStatsOptions options;
            options.keyFilter = [&partial](std::string_view k) { return k == partial; };
            options.fromRecord = run->partialUntil;
            if (Status st = add(std::move(options)); !st) {
                result.status = st;
                return result;
            }
        }
        const bool onDemand = next->seriesOnDemand;
        const auto missing = [&](std::string_view k) {
            return k != partial && !contains(whole, k) && (!onDemand || contains(wanted, k));
        };
        if (!onDemand || std::any_of(wanted.begin(), wanted.end(), missing)) {
            analysis::KeyStatsOptions options;
            options.keyFilter = missing;
            if (Status st = add(std::move(options)); !st) {
                result.status = st;
                return result;
            }
        }
        sortSeries(*next);
        next->computedKeys = onDemand ? wanted : std::vector<std::string>{};
        next->complete = true;
        next->partialKey.clear();
        next->partialUntil.clear();
        setNonFinite(*next);
        result.after = std::move(next);
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

namespace {

std::size_t finalisedParts(const xdl::RunReader& run) {
    std::size_t n = 0;
    for (const auto& rank : run.ranks())
        for (const auto& p : rank.parts())
            n += p->finished();
    return n;
}

} // namespace

CompleteResult extendRun(const RunSnapshot& run, const ProgressCallback& progress) {
    CompleteResult result;
    result.before = run;
    try {
        const xdl::RunReader& old = *run->reader;
        Diagnostics indexing; // appended bytes: reported by the run's follower
        auto found = xdl::discoverRuns({old.files().directory}, indexing);
        if (!found.isOk()) {
            result.status = found.status();
            return result;
        }
        auto files = std::find_if(found->begin(), found->end(), [&](const xdl::RunFiles& f) {
            return f.prefix == old.files().prefix && f.name == old.files().name;
        });
        if (files == found->end()) return result; // the files went away: nothing new
        xdl::ReaderOptions options = followedReaderOptions(run->options.store);
        // What the run gains goes to one file of the cache folder, not the heap: its finished
        // parts' records (a day of small parts held ~40 B a record)...
        if (!options.index.spillDir.empty())
            options.index.finishedArena = FileArena::inFolder(options.index.spillDir);
        std::vector<xdl::RankReader> ranks;
        std::map<int, std::size_t> from; // records per rank already in the snapshot
        std::size_t parts = 0;
        for (const auto& rankFiles : files->ranks) {
            const xdl::RankReader* oldRank = old.rank(rankFiles.rank);
            if (oldRank) from[rankFiles.rank] = oldRank->recordCount();
            std::map<std::string_view, std::shared_ptr<xdl::PartReader>> oldParts;
            if (oldRank)
                for (const auto& p : oldRank->parts())
                    oldParts.emplace(p->part().path, p);
            std::vector<std::shared_ptr<xdl::PartReader>> readers;
            for (const auto& part : rankFiles.parts) {
                const auto found = oldParts.find(part.path);
                std::shared_ptr<xdl::PartReader> oldPart =
                    found == oldParts.end() ? nullptr : found->second;
                // A finished part does not change: the snapshots share it (a run of many parts
                // was opened again, part by part, on every update).
                if (oldPart && oldPart->finished() && oldPart->part().size == part.size) {
                    readers.push_back(std::move(oldPart));
                    continue;
                }
                // A remote part keeps its URL and fetcher; a new one gets them from the mirror.
                xdl::PartFile file = part;
                if (oldPart) {
                    file.source = oldPart->part().source;
                    file.fetcher = oldPart->part().fetcher;
                } else if (run->remote) {
                    if (Status st = run->remote->mirror().attach(file); !st)
                        indexing.add(codes::kUnreadablePart, file.displayPath(),
                                     Diagnostic::kNoOffset, -1, st.message());
                }
                auto opened = oldPart
                                  ? xdl::PartReader::open(std::move(file), oldPart->index().state(),
                                                          indexing, {}, options)
                                  : xdl::PartReader::open(std::move(file), indexing, {}, options);
                if (opened.isOk()) readers.push_back(std::move(opened.value()));
            }
            parts += readers.size();
            ranks.emplace_back(rankFiles.rank, std::move(readers), indexing);
        }
        files->source = old.files().source;
        auto reader =
            std::make_shared<xdl::RunReader>(xdl::RunReader::fromRanks(*files, std::move(ranks)));
        std::size_t recordsBefore = 0, recordsAfter = 0, partsBefore = 0;
        for (const auto& r : old.ranks()) {
            recordsBefore += r.recordCount();
            partsBefore += r.parts().size();
        }
        for (const auto& r : reader->ranks())
            recordsAfter += r.recordCount();
        if (recordsAfter == recordsBefore && parts == partsBefore &&
            finalisedParts(*reader) == finalisedParts(old))
            return result; // nothing new

        auto next = newSnapshot(*run);
        next->reader = reader;
        next->partExtents = partExtents(*reader, run->partExtents);
        next->live = !xdl::allPartsFinalised(*reader);
        if (Status st = xdl::extendKeySummaries(next->keys, *reader, from, result.diagnostics);
            !st) {
            result.status = st;
            return result;
        }
        analysis::KeyStatsOptions statsOptions;
        statsOptions.fromRecord = from;
        if (!run->complete || run->seriesOnDemand) {
            const auto computed = run->computedKeys;
            statsOptions.keyFilter = [computed](std::string_view k) {
                return std::find(computed.begin(), computed.end(), k) != computed.end();
            };
        }
        auto backend = analysis::selectBackend(analysis::BackendChoice::Cpu).backend;
        auto fresh = analysis::computeKeyStats(*reader, *backend, statsOptions, result.diagnostics,
                                               progress);
        if (!fresh.isOk()) {
            result.status = fresh.status();
            return result;
        }
        // And so do the chunks its series seal: they grow as long as it is watched (~10 B a
        // record and key).
        for (auto* series : {&next->series, &fresh.value()})
            for (auto& s : *series)
                s.records.keepChunksIn(options.index.finishedArena);
        appendSeries(next->series, std::move(fresh.value()));
        setNonFinite(*next);
        result.after = std::move(next);
    } catch (const std::exception& e) {
        result.status = Status(ErrorCode::Internal, e.what());
    }
    return result;
}

} // namespace xt::widgets
