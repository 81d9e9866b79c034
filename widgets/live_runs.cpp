#include "widgets/live_runs.h"

#include "core/storage/mirror_poller.h"
#include "core/xdl/run_follower.h"

#include <QDateTime>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace xt::widgets {

// What a follower's watcher thread needs to reach the GUI thread; `target` is cleared (under
// the lock) before the LiveRuns goes away.
struct FollowLink {
    std::mutex mutex;
    LiveRuns* target = nullptr;
    xdl::RunFollower* follower = nullptr; // set once started
    std::size_t diagnosticsSeen = 0;
};

namespace {

// When the newest record of `run` was written, on the steady clock, from its timestamp when that
// reads as milliseconds since the epoch in the past; else now.
std::chrono::steady_clock::time_point lastRecordTime(const LoadedRun& run) {
    std::int64_t newest = 0;
    for (const auto& rank : run.reader->ranks())
        if (rank.recordCount())
            newest = std::max(newest, rank.entry(rank.recordCount() - 1).timestamp);
    const auto now = std::chrono::steady_clock::now();
    const std::int64_t age = QDateTime::currentMSecsSinceEpoch() - newest;
    constexpr std::int64_t kDay = 24 * 3600 * 1000;
    if (newest <= 0 || age < 0 || age > 365 * kDay) return now;
    return now - std::chrono::milliseconds(age);
}

} // namespace

void tuneHeap() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 128 * 1024); // glibc's initial value, no longer adjusted
    mallopt(M_ARENA_MAX, int(std::max(2u, std::thread::hardware_concurrency())));
#endif
}

bool releaseFreeHeap(std::chrono::seconds every) {
#if defined(__GLIBC__)
    using Clock = std::chrono::steady_clock;
    static std::atomic<Clock::rep> last{0};
    const Clock::rep now = Clock::now().time_since_epoch().count();
    Clock::rep before = last.load();
    const Clock::rep interval = std::chrono::duration_cast<Clock::duration>(every).count();
    if (before != 0 && now - before < interval) return false;
    if (!last.compare_exchange_strong(before, now)) return false; // another thread trims now
    malloc_trim(0);
    return true;
#else
    (void)every;
    return false;
#endif
}

QString formatAge(std::chrono::milliseconds age) {
    const double s = double(age.count()) / 1000.0;
    if (s < 10) return QObject::tr("%1 s").arg(s, 0, 'f', 1);
    if (s < 120) return QObject::tr("%1 s").arg(qint64(s));
    if (s < 7200) return QObject::tr("%1 min").arg(qint64(s / 60));
    return QObject::tr("%1 h").arg(qint64(s / 3600));
}

LiveRuns::LiveRuns(QObject* parent) : QObject(parent) {
    m_statusTimer.setInterval(200);
    connect(&m_statusTimer, &QTimer::timeout, this, &LiveRuns::updateStatuses);
}

LiveRuns::~LiveRuns() {
    setRuns({});
}

bool LiveRuns::isFollowed(const RunSnapshot& run) const {
    for (const auto& [id, f] : m_runs)
        if (f.run == run) return true;
    return false;
}

QString LiveRuns::statusOf(const RunSnapshot& run) const {
    for (const auto& [id, f] : m_runs)
        if (f.run == run) return f.status;
    return {};
}

bool LiveRuns::isBusy() const {
    for (const auto& [id, f] : m_runs)
        if (f.jobs->isRunning()) return true;
    return false;
}

void LiveRuns::setRuns(const std::vector<RunSnapshot>& runs) {
    for (auto it = m_runs.begin(); it != m_runs.end();) {
        const bool keep = std::find(runs.begin(), runs.end(), it->second.run) != runs.end();
        if (keep) {
            ++it;
            continue;
        }
        if (auto link = m_links.find(it->first); link != m_links.end()) {
            std::lock_guard lock(link->second->mutex);
            link->second->target = nullptr;
        }
        m_links.erase(it->first);
        delete it->second.jobs; // cancels a starting follower's job: its result is dropped
        it = m_runs.erase(it);  // stops the follower
    }
    for (const auto& run : runs) {
        if (!run || !run->live || isFollowed(run)) continue;
        const quint64 id = m_nextId++;
        Followed& f = m_runs[id];
        f.run = run;
        f.jobs = new JobTracker(this);
        f.lastRecord = lastRecordTime(*run);
        auto link = std::make_shared<FollowLink>();
        link->target = this;
        m_links[id] = link;
        const xdl::RunFiles& files = run->reader->files();
        xdl::FollowOptions options;
        options.idleAfter = m_times.idleAfter;
        options.reader = followedReaderOptions(run->options.store); // its index, spilled as theirs
        options.keepFinishedParts = false; // it only watches: the snapshots read the run
        const std::string url = run->sourceUrl;
        const auto pollInterval = m_times.hdfsPoll;
        // Opening the follower reads the run's indexes: off the GUI thread.
        f.jobs->startJob(
            [link, id, files, options, url, pollInterval](JobContext&) -> Watch {
                Watch watch;
                xdl::FollowOptions follow = options;
                if (!url.empty()) {
                    // A run on HDFS: its mirror is refreshed by polling, metas and summaries
                    // whole; the follower's parts fetch the appended bytes they read by range.
                    storage::MirrorOptions mirror = storage::mirrorOptionsFromEnvironment();
                    mirror.sparse = true;
                    auto poller = storage::MirrorPoller::start(mirror, url, pollInterval, {});
                    if (!poller.isOk()) return watch;
                    watch.poller = std::move(poller.value());
                    follow.preparePart = watch.poller->preparePart();
                }
                auto callback = [link, id](const xdl::FollowUpdate& u) {
                    std::lock_guard lock(link->mutex);
                    if (!link->target) return;
                    Diagnostics found;
                    if (u.newDiagnostics && link->follower)
                        link->follower->withReader(
                            [&](const xdl::RunReader&, const Diagnostics& diag) {
                                for (std::size_t i = link->diagnosticsSeen; i < diag.items().size();
                                     ++i)
                                    found.add(diag.items()[i]);
                                link->diagnosticsSeen = diag.items().size();
                            });
                    const bool grew = u.newRecords || u.newParts;
                    QMetaObject::invokeMethod(
                        link->target,
                        [t = link->target, id, grew, fin = u.finalised, found] {
                            t->onUpdate(id, grew, fin, found);
                        },
                        Qt::QueuedConnection);
                };
                auto follower = xdl::RunFollower::start(files.directory, files.prefix, files.name,
                                                        callback, follow);
                if (!follower.isOk()) return watch;
                watch.follower = std::move(follower.value());
                std::lock_guard lock(link->mutex);
                link->follower = watch.follower.get();
                watch.follower->withReader([&](const xdl::RunReader&, const Diagnostics& diag) {
                    link->diagnosticsSeen = diag.items().size(); // the load reported those
                });
                return watch;
            },
            [this, id](Watch watch) {
                auto it = m_runs.find(id);
                if (it == m_runs.end() || !watch.follower) return;
                it->second.watch = std::move(watch);
                startExtend(id); // what was written while the follower started
            });
    }
    if (m_runs.empty())
        m_statusTimer.stop();
    else if (!m_statusTimer.isActive())
        m_statusTimer.start();
    updateStatuses();
}

void LiveRuns::replaced(const RunSnapshot& before, const RunSnapshot& after) {
    for (auto& [id, f] : m_runs)
        if (f.run == before) f.run = after;
    updateStatuses();
}

void LiveRuns::onUpdate(quint64 id, bool grew, bool finalised, Diagnostics diagnostics) {
    auto it = m_runs.find(id);
    if (it == m_runs.end()) return;
    Followed& f = it->second;
    if (grew) f.lastRecord = Clock::now();
    f.finalised = finalised;
    if (!diagnostics.empty()) emit diagnosticsFound(diagnostics);
    if (f.jobs->isRunning())
        f.dirty = true;
    else
        startExtend(id);
    updateStatuses();
}

void LiveRuns::startExtend(quint64 id) {
    Followed& f = m_runs.at(id);
    f.dirty = false;
    f.jobs->startJob(
        [run = f.run](JobContext& ctx) {
            CompleteResult r = extendRun(run, ctx.callback());
            releaseFreeHeap(std::chrono::seconds(60)); // what the snapshots replaced since freed
            return r;
        },
        [this, id](CompleteResult r) {
            auto it = m_runs.find(id);
            if (it == m_runs.end()) return;
            if (r.after && it->second.run == r.before)
                emit runExtended(r.before, r.after, r.diagnostics);
            it = m_runs.find(id); // the window may have closed the run
            if (it != m_runs.end() && it->second.dirty) startExtend(id);
        });
}

void LiveRuns::updateStatuses() {
    bool changed = false;
    const auto now = Clock::now();
    for (auto& [id, f] : m_runs) {
        const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now - f.lastRecord);
        QString s;
        if (f.finalised || (f.run && !f.run->live))
            s = tr("finalised");
        else if (age >= m_times.goneAfter)
            s = tr("writer gone");
        else if (age >= m_times.idleAfter)
            s = tr("idle for %1").arg(formatAge(age));
        else
            s = tr("live, last record %1 ago").arg(formatAge(age));
        if (s != f.status) {
            f.status = s;
            changed = true;
        }
    }
    if (changed) emit statusChanged();
}

} // namespace xt::widgets
