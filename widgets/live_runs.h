#pragma once
// Follows the open runs that are still being written. A RunFollower per run notices appended
// records, new parts and ranks and finalised metas (inotify, else polling); a background job then
// extends the run's snapshot over the appended bytes only (extendRun) and hands it on through
// runExtended. The GUI thread does no I/O. Each run's status is kept: "live, last record 0.4 s
// ago", "idle for 3 min", "finalised", "writer gone". Runs read through the HDFS mirror are
// followed by polling the remote directory into the mirror (MirrorPoller).

#include "widgets/job_tracker.h"
#include "widgets/run_loader.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <map>

namespace xt::xdl {
class RunFollower;
}
namespace xt::storage {
class MirrorPoller;
}

namespace xt::widgets {

struct FollowLink;

struct LiveTimes {
    // No record for this long: "idle for ..."; for goneAfter: "writer gone" (unless finalised).
    std::chrono::milliseconds idleAfter{10000};
    std::chrono::milliseconds goneAfter{600000};
    // Runs read from HDFS: how often their mirror is refreshed.
    std::chrono::milliseconds hdfsPoll{1000};
};

class LiveRuns : public QObject {
    Q_OBJECT
public:
    explicit LiveRuns(QObject* parent = nullptr);
    ~LiveRuns() override;

    void setTimes(LiveTimes times) { m_times = times; }
    // Follows the live ones among `runs` (and stops following the others).
    void setRuns(const std::vector<RunSnapshot>& runs);
    // `after` replaces `before` (runExtended, or a statistics job): it is followed from now on.
    void replaced(const RunSnapshot& before, const RunSnapshot& after);
    bool isFollowed(const RunSnapshot& run) const;
    // The run's status, "" when it is not followed.
    QString statusOf(const RunSnapshot& run) const;
    bool isBusy() const;

signals:
    // A newer snapshot of a followed run: more records, parts, ranks, keys or finalised metas.
    void runExtended(RunSnapshot before, RunSnapshot after, Diagnostics diagnostics);
    // Problems the followers found in appended bytes (a partial record once its part is idle).
    void diagnosticsFound(Diagnostics diagnostics);
    // Some run's status text changed.
    void statusChanged();

private:
    using Clock = std::chrono::steady_clock;
    // What watches one run: its follower, and for a run on HDFS the poller refreshing its
    // mirror (stopped after the follower).
    struct Watch {
        std::shared_ptr<storage::MirrorPoller> poller;
        std::shared_ptr<xdl::RunFollower> follower;
    };
    struct Followed {
        RunSnapshot run;
        Watch watch;
        JobTracker* jobs = nullptr;
        bool dirty = false; // changed since the running job started
        bool finalised = false;
        Clock::time_point lastRecord;
        QString status;
    };
    void onUpdate(quint64 id, bool grew, bool finalised, Diagnostics diagnostics);
    void startExtend(quint64 id);
    void updateStatuses();

    std::map<quint64, Followed> m_runs;
    std::map<quint64, std::shared_ptr<FollowLink>> m_links; // to the followers' threads
    quint64 m_nextId = 1;
    LiveTimes m_times;
    QTimer m_statusTimer;
};

// "0.4 s", "12 s", "3 min", "2 h"
QString formatAge(std::chrono::milliseconds age);

// glibc's malloc, set for what the viewer does. Call once at start (no-op elsewhere).
// - Following replaces a run's snapshot many times a second with a slightly larger one. glibc
//   then raises its mmap threshold to those sizes and the freed snapshots fragment the heap
//   (measured: 2 KB of lasting growth per followed record). A fixed threshold keeps large
//   blocks mapped, so they go back to the system when freed.
// - Opening a large run builds series on worker threads and frees what they took from the parts.
//   Each thread's arena kept its freed pieces: 8 arenas a core (glibc's default) held 400-460 MB
//   at the end of re-opening 10 GB of 200 B records, one a core 280-340 MB (2 cores).
void tuneHeap();

// Gives the free memory that malloc's arenas keep back to the system (glibc's malloc_trim), at
// most once in `every`; false when it did not (too soon, or not glibc). Following frees each
// replaced snapshot on whichever thread drops it last; under load the arenas kept up to 40 MB of it
// (~1.6x what was in use).
bool releaseFreeHeap(std::chrono::seconds every);

} // namespace xt::widgets
