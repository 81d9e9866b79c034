#pragma once
// Follows a live XDL run: a watcher thread notices appended bytes, new part files (also of new
// ranks) and metas being finalised, extends the RunReader's indexes and reports what changed
// through a coalesced callback (at most one call per minInterval, 25 Hz by default). inotify is
// used where available, with a periodic rescan as a safety net; otherwise the directory is
// polled. A trailing partial record is ignored until it completes, and reported (once, as a
// located diagnostic) only when its part is finalised or has not grown for idleAfter.
//
// Thread-safety: the follower owns the RunReader. Read it only inside withReader(), which holds
// the follower's lock (the watcher remaps files while refreshing, so views into the reader must
// not be kept after withReader returns). The callback runs on the watcher thread without the
// lock held, so it may call withReader; it must not call stop(). The reader's files() keeps the
// run as first opened; its ranks() and their parts() are what the follower has picked up (with
// FollowOptions::keepFinishedParts off, less the finished parts it let go).

#include "core/base/diagnostics.h"
#include "core/xdl/trace_reader.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace xt::xdl {

struct FollowUpdate {
    std::uint64_t generation = 0;   // increases by one per update
    std::size_t newRecords = 0;     // complete records indexed since the previous update
    std::size_t totalRecords = 0;   // over all ranks
    std::size_t newParts = 0;       // part files picked up since the previous update
    std::size_t finalisedParts = 0; // parts whose meta was filled since the previous update
    std::size_t rankCount = 0;
    std::size_t newDiagnostics = 0; // e.g. a partial record reported once its part went idle
    bool finalised = false;         // every part's meta is finalised (the writers closed)
};

struct FollowOptions {
    std::chrono::milliseconds minInterval{40};      // coalescing: at most 25 updates per second
    std::chrono::milliseconds pollInterval{100};    // without inotify
    std::chrono::milliseconds rescanInterval{1000}; // with inotify, a rescan in case of misses
    // An unfinalised part that has not grown for this long is idle: its trailing partial record
    // (a writer killed mid-record) is reported. Growth after that is still picked up.
    std::chrono::milliseconds idleAfter{10000};
    bool useInotify = true;
    // When false, a rank's leading finished parts (which no longer change) are let go, their
    // index with them: the reader then holds each rank's parts from its first unfinished one (at
    // least from its last one with records), and FollowUpdate still counts every record. For a
    // follower that only watches (the viewer's: its snapshots read the run), so it does not grow
    // with the run.
    bool keepFinishedParts = true;
    ReaderOptions reader; // `live` is forced on
    // Called on each part file found, before it is opened: a remote mirror gives its sparse
    // copies their URL and range fetcher here.
    std::function<void(PartFile&)> preparePart;
};

// Whether every part of `run` is finished (PartReader::finished: a finalised meta and the records
// it names; false when it has no part): its writers closed.
bool allPartsFinalised(const RunReader& run);

class RunFollower {
public:
    using Callback = std::function<void(const FollowUpdate&)>;

    // Follows the run {prefix}.{name}.* in `directory` (which may not hold any file yet). Reads
    // what is there before returning, then starts the watcher thread.
    static Result<std::unique_ptr<RunFollower>> start(std::string directory, std::string prefix,
                                                      std::string name, Callback callback,
                                                      FollowOptions options = {});
    ~RunFollower(); // stop()
    RunFollower(const RunFollower&) = delete;
    RunFollower& operator=(const RunFollower&) = delete;

    // Stops and joins the watcher; safe to call more than once.
    void stop();
    // Runs fn with the reader and the diagnostics gathered so far, under the follower's lock.
    void withReader(const std::function<void(const RunReader&, const Diagnostics&)>& fn) const;
    bool usesInotify() const;

private:
    struct Impl;
    explicit RunFollower(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace xt::xdl
