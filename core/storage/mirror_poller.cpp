#include "core/storage/mirror_poller.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace xt::storage {

struct MirrorPoller::Impl {
    HdfsMirror mirror;
    std::string url;
    std::string localPath;
    std::chrono::milliseconds interval;
    Callback callback;
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    std::atomic<bool> stopping{false};

    Impl(MirrorOptions o, std::string u, std::chrono::milliseconds i, Callback c)
        : mirror(std::move(o)), url(std::move(u)), interval(i), callback(std::move(c)) {}

    void loop() {
        ProgressCallback cancel = [this](const ProgressReport&) { return !stopping.load(); };
        for (;;) {
            {
                std::unique_lock lock(mutex);
                if (wake.wait_for(lock, interval, [&] { return stopping.load(); })) return;
            }
            auto st = mirror.refresh(url, cancel);
            if (stopping) return;
            if (callback) callback(st);
        }
    }
};

MirrorPoller::MirrorPoller(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Result<std::unique_ptr<MirrorPoller>> MirrorPoller::start(MirrorOptions options, std::string url,
                                                          std::chrono::milliseconds interval,
                                                          Callback callback) {
    auto impl =
        std::make_unique<Impl>(std::move(options), std::move(url), interval, std::move(callback));
    XT_ASSIGN_OR_RETURN(const MirrorStatus first, impl->mirror.mirror(impl->url));
    impl->localPath = first.localPath;
    std::unique_ptr<MirrorPoller> p(new MirrorPoller(std::move(impl)));
    Impl* d = p->m_impl.get();
    d->thread = std::thread([d] { d->loop(); });
    return p;
}

MirrorPoller::~MirrorPoller() {
    stop();
}

void MirrorPoller::stop() {
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->stopping = true;
    }
    m_impl->wake.notify_all();
    if (m_impl->thread.joinable()) m_impl->thread.join();
}

const std::string& MirrorPoller::localPath() const {
    return m_impl->localPath;
}

std::function<void(xdl::PartFile&)> MirrorPoller::preparePart() const {
    const HdfsMirror* mirror = &m_impl->mirror;
    return [mirror](xdl::PartFile& part) { (void)mirror->attach(part); };
}

} // namespace xt::storage
