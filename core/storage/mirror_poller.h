#pragma once
// Live following over HDFS: a thread refreshes a mirrored URL every interval (fetching appended
// bytes and new part files into the local mirror) and reports each outcome, offline state
// included. A RunFollower (core/xdl) on the local mirror path then picks the changes up as it
// does for any growing local run. Replaced files are re-fetched whole and renamed into place.
// In sparse mode a refresh only grows the copies: the follower's parts, prepared by
// preparePart(), fetch the appended bytes as they index them.

#include "core/storage/hdfs_mirror.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace xt::storage {

class MirrorPoller {
public:
    // Called on the polling thread after every refresh (an error when it failed outright).
    using Callback = std::function<void(const Result<MirrorStatus>&)>;

    // Mirrors `url` once before returning (so the local path is ready), then starts polling.
    static Result<std::unique_ptr<MirrorPoller>> start(MirrorOptions options, std::string url,
                                                       std::chrono::milliseconds interval,
                                                       Callback callback);
    ~MirrorPoller(); // stop()
    MirrorPoller(const MirrorPoller&) = delete;
    MirrorPoller& operator=(const MirrorPoller&) = delete;

    // Stops and joins the thread (an ongoing transfer is cancelled); safe to call again.
    void stop();
    // The local path to follow.
    const std::string& localPath() const;
    // For the follower's FollowOptions::preparePart: gives the parts found under localPath()
    // their URL and, in sparse mode, their range fetcher (HdfsMirror::attach). The poller must
    // outlive the follower.
    std::function<void(xdl::PartFile&)> preparePart() const;

private:
    struct Impl;
    explicit MirrorPoller(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace xt::storage
