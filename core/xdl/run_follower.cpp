#include "core/xdl/run_follower.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <mutex>
#include <poll.h>
#include <sys/inotify.h>
#include <thread>
#include <unistd.h>

namespace xt::xdl {

namespace {

using Clock = std::chrono::steady_clock;

struct FoundPart {
    int rank;
    std::int64_t index;
    std::string path;
    bool operator<(const FoundPart& o) const {
        return rank != o.rank ? rank < o.rank : index < o.index;
    }
};

} // namespace

struct RunFollower::Impl {
    std::string directory, prefix, name;
    Callback callback;
    FollowOptions options;

    mutable std::mutex mutex; // guards reader, diag, lastIndex
    RunReader reader;
    Diagnostics diag;
    std::map<int, std::int64_t> lastIndex;       // highest part index opened per rank
    std::map<int, Clock::time_point> lastGrowth; // when each rank last grew
    std::size_t letGo = 0, letGoFinalised = 0;   // records and parts of the parts let go
    std::uint64_t generation = 0;

    int inotifyFd = -1;
    int stopPipe[2] = {-1, -1};
    std::thread thread;
    bool stopped = false;

    ~Impl() {
        if (inotifyFd >= 0) ::close(inotifyFd);
        for (int fd : stopPipe)
            if (fd >= 0) ::close(fd);
    }

    std::string filePrefix() const { return prefix + "." + name + "."; }

    std::vector<FoundPart> scan() const {
        std::vector<FoundPart> found;
        std::error_code ec;
        for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end;
             it.increment(ec)) {
            std::string file = it->path().filename().string();
            auto p = parsePartFileName(file);
            if (!p || p->prefix != prefix || p->name != name) continue;
            found.push_back({p->rank, p->index, it->path().string()});
        }
        std::sort(found.begin(), found.end());
        return found;
    }

    std::size_t totalRecords() const {
        std::size_t n = letGo;
        for (const auto& rank : reader.ranks())
            n += rank.recordCount();
        return n;
    }

    std::size_t finalisedParts() const {
        std::size_t n = letGoFinalised;
        for (const auto& rank : reader.ranks())
            for (const auto& p : rank.parts())
                n += p->finished();
        return n;
    }

    // FollowOptions::keepFinishedParts off: each rank keeps its parts from its first one not
    // finished with every record its meta names (an idle part's late records are still
    // awaited), and at least from its last one with records: the steps of new records are checked
    // against it, and a part without a header borrows its key names.
    void letGoOfFinishedParts(Diagnostics& diag) {
        for (auto& rank : reader.ranks()) {
            const auto& parts = rank.parts();
            std::size_t keep = parts.empty() ? 0 : parts.size() - 1;
            while (keep > 0 && parts[keep]->index().records().empty())
                --keep;
            std::size_t drop = 0;
            while (drop < keep && parts[drop]->finished() && parts[drop]->reachesMeta())
                ++drop;
            if (drop == 0) continue;
            letGo += rank.partStart(drop);
            letGoFinalised += drop;
            rank = RankReader(rank.rank(), {parts.begin() + std::ptrdiff_t(drop), parts.end()},
                              diag, false);
        }
    }

    // Extends the reader; returns what changed. Called with the lock held.
    FollowUpdate refresh() {
        std::size_t recordsBefore = totalRecords();
        std::size_t finalisedBefore = finalisedParts();
        const std::uint64_t diagBefore = diag.total();
        const auto now = Clock::now();
        FollowUpdate u;
        for (auto& rank : reader.ranks()) {
            auto r = rank.refresh(diag);
            if (!r)
                diag.add(codes::kRefreshFailed, directory, Diagnostic::kNoOffset, -1,
                         "rank " + std::to_string(rank.rank()) + ": " + r.status().message());
            else if (*r || !lastGrowth.count(rank.rank()))
                lastGrowth[rank.rank()] = now;
        }
        ReaderOptions readerOptions = options.reader;
        readerOptions.live = true;
        for (const FoundPart& f : scan()) {
            auto last = lastIndex.find(f.rank);
            if (last != lastIndex.end() && f.index <= last->second) continue;
            PartFile part;
            part.path = f.path;
            part.index = f.index;
            readMeta(part, diag);
            if (options.preparePart) options.preparePart(part);
            auto opened = PartReader::open(std::move(part), diag, {}, readerOptions);
            if (!opened) {
                diag.add(codes::kUnreadablePart, f.path, Diagnostic::kNoOffset, -1,
                         opened.status().message());
                continue;
            }
            lastIndex[f.rank] = f.index;
            ++u.newParts;
            auto& ranks = reader.ranks();
            auto it = std::find_if(ranks.begin(), ranks.end(),
                                   [&](const RankReader& r) { return r.rank() >= f.rank; });
            if (it != ranks.end() && it->rank() == f.rank) {
                it->addPart(std::move(*opened), diag);
            } else {
                std::vector<std::shared_ptr<PartReader>> parts;
                parts.push_back(std::move(*opened));
                ranks.insert(it, RankReader(f.rank, std::move(parts), diag));
            }
            lastGrowth[f.rank] = now;
        }
        for (const auto& rank : reader.ranks()) {
            if (rank.parts().empty() || now - lastGrowth[rank.rank()] < options.idleAfter) continue;
            rank.parts().back()->finishIdle(diag);
        }
        if (!options.keepFinishedParts) letGoOfFinishedParts(diag);
        std::size_t recordsAfter = totalRecords();
        std::size_t finalisedAfter = finalisedParts();
        u.totalRecords = recordsAfter;
        u.newRecords = recordsAfter > recordsBefore ? recordsAfter - recordsBefore : 0;
        u.finalisedParts = finalisedAfter > finalisedBefore ? finalisedAfter - finalisedBefore : 0;
        u.rankCount = reader.ranks().size();
        u.newDiagnostics = static_cast<std::size_t>(diag.total() - diagBefore);
        u.finalised = allPartsFinalised(reader);
        return u;
    }

    // Reads pending inotify events; true when one concerns this run's files.
    bool drainEvents() {
        alignas(inotify_event) char buf[8192];
        bool relevant = false;
        const std::string want = filePrefix();
        for (;;) {
            ssize_t n = ::read(inotifyFd, buf, sizeof buf);
            if (n <= 0) break;
            for (char* p = buf; p < buf + n;) {
                auto* ev = reinterpret_cast<inotify_event*>(p);
                if (ev->mask & IN_Q_OVERFLOW) relevant = true;
                if (ev->len > 0 && std::string_view(ev->name).starts_with(want)) relevant = true;
                p += sizeof(inotify_event) + ev->len;
            }
        }
        return relevant;
    }

    void run() {
        const auto period = inotifyFd >= 0 ? options.rescanInterval : options.pollInterval;
        auto lastRefresh = Clock::now();
        auto nextPeriodic = lastRefresh + period;
        bool dirty = false;
        for (;;) {
            auto now = Clock::now();
            auto deadline = dirty ? lastRefresh + options.minInterval : nextPeriodic;
            auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
            // Round up so a sub-millisecond remainder does not turn into a busy loop.
            if (deadline > now && wait.count() == 0) wait = std::chrono::milliseconds(1);
            pollfd fds[2] = {{stopPipe[0], POLLIN, 0}, {inotifyFd, POLLIN, 0}};
            int n = ::poll(fds, inotifyFd >= 0 ? 2 : 1,
                           static_cast<int>(std::max<std::int64_t>(wait.count(), 0)));
            if (n < 0 && errno != EINTR) break;
            if (n > 0 && (fds[0].revents & (POLLIN | POLLHUP))) break;
            if (n > 0 && inotifyFd >= 0 && (fds[1].revents & POLLIN) && drainEvents()) dirty = true;
            now = Clock::now();
            if (now >= nextPeriodic) dirty = true;
            if (!dirty || now < lastRefresh + options.minInterval) continue;
            FollowUpdate u;
            {
                std::lock_guard lock(mutex);
                u = refresh();
                if (u.newRecords || u.newParts || u.finalisedParts || u.newDiagnostics)
                    u.generation = ++generation;
            }
            lastRefresh = Clock::now();
            nextPeriodic = lastRefresh + period;
            dirty = false;
            if (u.generation && callback) callback(u);
        }
    }
};

bool allPartsFinalised(const RunReader& run) {
    bool any = false;
    for (const auto& rank : run.ranks())
        for (const auto& p : rank.parts()) {
            if (!p->finished()) return false;
            any = true;
        }
    return any;
}

RunFollower::RunFollower(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

RunFollower::~RunFollower() {
    stop();
}

Result<std::unique_ptr<RunFollower>> RunFollower::start(std::string directory, std::string prefix,
                                                        std::string name, Callback callback,
                                                        FollowOptions options) {
    if (prefix.empty() || name.empty())
        return Status(ErrorCode::InvalidArgument, "run prefix and name must not be empty");
    if (options.minInterval.count() < 1) options.minInterval = std::chrono::milliseconds(1);
    if (options.pollInterval.count() < 1) options.pollInterval = std::chrono::milliseconds(1);
    if (options.rescanInterval.count() < 1) options.rescanInterval = std::chrono::milliseconds(1);
    auto impl = std::make_unique<Impl>();
    impl->directory = std::move(directory);
    impl->prefix = std::move(prefix);
    impl->name = std::move(name);
    impl->callback = std::move(callback);
    impl->options = options;
    if (::pipe2(impl->stopPipe, O_CLOEXEC) != 0) return errnoStatus("cannot create a pipe", errno);
    if (options.useInotify) {
        impl->inotifyFd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (impl->inotifyFd >= 0 &&
            ::inotify_add_watch(impl->inotifyFd, impl->directory.c_str(),
                                IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
            ::close(impl->inotifyFd); // e.g. the directory does not exist yet: poll instead
            impl->inotifyFd = -1;
        }
    }
    RunFiles files;
    files.directory = impl->directory;
    files.prefix = impl->prefix;
    files.name = impl->name;
    ReaderOptions readerOptions = options.reader;
    readerOptions.live = true;
    XT_ASSIGN_OR_RETURN(impl->reader, RunReader::open(files, impl->diag, {}, readerOptions));
    impl->refresh();
    Impl* raw = impl.get();
    impl->thread = std::thread([raw] { raw->run(); });
    return std::unique_ptr<RunFollower>(new RunFollower(std::move(impl)));
}

void RunFollower::stop() {
    Impl& d = *m_impl;
    if (d.stopped) return;
    d.stopped = true;
    char c = 1;
    while (::write(d.stopPipe[1], &c, 1) < 0 && errno == EINTR) {
    }
    if (d.thread.joinable()) d.thread.join();
}

void RunFollower::withReader(
    const std::function<void(const RunReader&, const Diagnostics&)>& fn) const {
    std::lock_guard lock(m_impl->mutex);
    fn(m_impl->reader, m_impl->diag);
}

bool RunFollower::usesInotify() const {
    return m_impl->inotifyFd >= 0;
}

} // namespace xt::xdl
