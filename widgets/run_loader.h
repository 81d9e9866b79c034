#pragma once
// Loading runs for the viewer, off the GUI thread, summary first: a run opens from its stored
// part summaries (record index, key dtypes and per-record statistics) without reading tensor
// bytes. A large run without (complete) summaries opens with the statistics of one key only,
// the one the user asked for; completeRun() then summarises the rest in the background (saving
// the summaries for the next open) and gives a complete snapshot. Snapshots are immutable.

#include "core/analysis/key_stats.h"
#include "core/analysis/non_finite.h"
#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/summary/run_summary.h"
#include "core/xdl/key_summary.h"
#include "core/xdl/trace_reader.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace xt::storage {
class RemoteRuns;
}

namespace xt::widgets {

// A part's records and the ranges of their steps and times (-1 when it has none), computed with
// the snapshot off the GUI thread (a pass over the index; the meta summary table shows them).
struct PartExtent {
    std::string path; // the part's
    std::size_t records = 0;
    std::int64_t g0 = -1, g1 = -1, l0 = -1, l1 = -1, t0 = -1, t1 = -1;

    void include(std::int64_t gstep, std::int64_t lstep, std::int64_t timestamp) {
        widen(g0, g1, gstep);
        widen(l0, l1, lstep);
        widen(t0, t1, timestamp);
    }
    bool operator==(const PartExtent&) const = default;
    // Another part's records and ranges (a rank's total).
    void include(const PartExtent& o) {
        records += o.records;
        if (o.g0 < 0) return;
        include(o.g0, o.l0, o.t0);
        include(o.g1, o.l1, o.t1);
    }

private:
    static void widen(std::int64_t& lo, std::int64_t& hi, std::int64_t v) {
        if (lo < 0 || v < lo) lo = v;
        if (hi < 0 || v > hi) hi = v;
    }
};

struct LoadOptions {
    // A run whose parts without a summary hold more than this many bytes opens with the
    // statistics of `firstKey` only (see completeRun); smaller ones get every key at once.
    std::uint64_t lazyAboveBytes = UINT64_MAX;
    // The key computed first; "" = the run's first key with data. On a run opened with one key,
    // its first stage covers about this many bytes of records (each next stage as many as all
    // before), so its first curves show before the whole key is read.
    std::string firstKey;
    std::uint64_t firstStageBytes = 256'000'000;
    // A summarised run with more key records than this has series on demand (seriesOnDemand).
    std::uint64_t seriesOnDemandAbove = 4'000'000;
    // A run with more key records than this whose parts all have valid summaries is shown at
    // once from their overviews (LoadedRun::overview), then opened in full in the background.
    std::uint64_t overviewAbove = 4'000'000;
    // A finished local run of more bytes than this, its first part without a summary, is shown
    // at once from its first records (LoadedRun::preview), then opened in full.
    std::uint64_t previewAboveBytes = UINT64_MAX;
    summary::StoreOptions store;
};

struct LoadedRun {
    std::shared_ptr<const xdl::RunReader> reader; // keeps the files mapped
    std::shared_ptr<const summary::RunSummaries> summaries;
    std::vector<xdl::KeySummary> keys;
    // False while `keys` count the first records of each rank only (a large run opened without
    // summaries: counting every record first took half the time to its first plot); their
    // dtypes and shapes are those of the records counted. completeRun() counts them all.
    bool keysCounted = true;
    std::vector<analysis::KeySeries> series;                   // by rank, then key
    std::vector<PartExtent> partExtents;                       // every part, rank by rank
    std::map<std::string, analysis::NonFiniteByKey> nonFinite; // keys with a NaN or an Inf
    std::string backend; // analysis backend that computed the statistics
    // False while only some keys have series (see hasSeries); completeRun() fills the rest.
    bool complete = true;
    // A summarised run with more key records (records x keys) than onDemandAbove: holding every
    // key's series would cost ~100 B each, so only the keys on screen have them (computedKeys),
    // read from the summaries by addKeySeries, which lets go of the others. nonFinite comes from
    // the summaries.
    bool seriesOnDemand = false;
    std::uint64_t onDemandAbove = UINT64_MAX; // LoadOptions::seriesOnDemandAbove, for completeRun
    std::vector<std::string> computedKeys;    // the keys with series while !complete or on demand
    // The key whose statistics are being read in stages (the first key of a large run opened
    // without summaries), and per rank the records its series cover so far: [0, n). Its views
    // draw what is there (hasSeries is true); addKeySeries reads the next stage.
    std::string partialKey;
    std::map<int, std::size_t> partialUntil;
    // The URL of the run's directory when it was read through the HDFS mirror, else "".
    std::string sourceUrl;
    // For such a run, the mirror its parts fetch their bytes through (new snapshots of a
    // followed run attach their new parts to it).
    std::shared_ptr<storage::RemoteRuns> remote;
    // A part's meta was not finalised when this snapshot was read: the run may be growing
    // (LiveRuns follows it; extendRun gives newer snapshots).
    bool live = false;
    // A large run whose parts all have valid summaries is shown at once from their overviews
    // (docs/SUMMARY-FORMAT.md, section 9): every key's series is then an envelope, two records
    // per block of 4096 (each statistic's least, then its greatest, at the block's middle step),
    // nothing is reported yet and the records are unchecked. openExact() opens it in full, with
    // `options`, and gives the run a full open gives.
    bool overview = false;
    // A large run without summaries is shown at once from the first records of each rank (about
    // a quarter of LoadOptions::firstStageBytes in all): its reader indexes only those, its keys
    // are counted over them and the first key's series covers them; nothing is reported yet.
    // openExact() opens it in full.
    bool preview = false;
    LoadOptions options;
    // Some of its parts' summaries were written before the overview section: writeOverviews()
    // writes them again with one, so that the next open shows the run at once.
    bool overviewsToWrite = false;

    std::string label() const { return reader->files().label(); }
    std::uint64_t recordCount() const; // of every rank
    // The series of `key` on every rank that holds it, in rank order.
    std::vector<const analysis::KeySeries*> seriesOf(const std::string& key) const;
    const xdl::KeySummary* summaryOf(const std::string& key) const;
    // Whether the statistics of `key` are there (always, once complete).
    bool hasSeries(const std::string& key) const;
    // The share of the records that partialKey's series cover so far (1 when none is partial).
    double partialFraction() const;
};
using RunSnapshot = std::shared_ptr<const LoadedRun>;
// A new snapshot, empty or a copy of `from`. When its last reference goes on the GUI thread, it
// is destroyed on a thread of its own: a snapshot can hold the last references to a run's
// mappings and indexes, whose release took 40-50 ms (a first open of 5.2 M records).
std::shared_ptr<LoadedRun> newSnapshot();
std::shared_ptr<LoadedRun> newSnapshot(const LoadedRun& from);

struct LoadResult {
    std::vector<RunSnapshot> runs;
    Diagnostics diagnostics;
    Status status;          // first fatal error (no run could be opened), or Ok
    bool cancelled = false; // the progress callback asked to stop
};

// Never throws; everything that goes wrong ends in `diagnostics` or `status`.
LoadResult loadRuns(const std::vector<std::string>& paths, const ProgressCallback& progress,
                    const LoadOptions& options = {});

struct CompleteResult {
    RunSnapshot before, after; // after is null when cancelled or failed
    Diagnostics diagnostics;
    Status status;
};

// `run` with the statistics of `key` added (read from the tensor bytes of parts without a
// summary): what a view needs before completeRun() is done. For the run's partialKey, only the
// next stage is read (as many bytes of records as all stages before): call again while
// `after->partialKey` is still that key. On a run with series on demand, the series of keys
// other than `key` and those in `keep` are let go.
CompleteResult addKeySeries(const RunSnapshot& run, const std::string& key,
                            const ProgressCallback& progress,
                            const std::vector<std::string>& keep = {});
// Summarises the parts of `run` that have no summary (saved per `store`) and returns the run
// with the statistics of every key (of the keys it had, when it is then large enough to have
// series on demand). Cancelled when `progress` says stop.
CompleteResult completeRun(const RunSnapshot& run, const summary::StoreOptions& store,
                           const ProgressCallback& progress);
// `run`, shown from its overviews or a preview, opened in full (its summaries parsed and checked,
// every part indexed, what they and the records hold reported) with the statistics of `key` first.
CompleteResult openExact(const RunSnapshot& run, const std::string& key,
                         const ProgressCallback& progress);
// What the snapshot `before` is among the `open` ones now: itself, or, for a preview, the preview
// that another key's series were added to since (addKeySeries: the same reader), which a job's
// result for `before` (openExact) replaces as well. Null when it is no longer shown.
RunSnapshot shownSnapshotOf(const std::vector<RunSnapshot>& open, const RunSnapshot& before);
// Writes again, with an overview, the summaries of `run` that have none (overviewsToWrite);
// `after` is `run` with nothing left to write.
CompleteResult writeOverviews(const RunSnapshot& run, const ProgressCallback& progress);
// `run` (a live one) as its files are now: part indexes continue from the snapshot's, so only
// appended bytes are read; statistics and key summaries are computed for the new records only
// and appended; new parts, ranks and keys are added. `after` is null when nothing changed.
// Problems in the appended bytes are the follower's to report (RunFollower), not this.
CompleteResult extendRun(const RunSnapshot& run, const ProgressCallback& progress = {});
// How the parts of a followed run are read: their tails awaited (they may still grow), indexes of
// 4096 records and more spilled to the cache folder of `store`, so that its snapshots, extended
// many times a second, share one spill rather than copy their records.
xdl::ReaderOptions followedReaderOptions(const summary::StoreOptions& store);

} // namespace xt::widgets
