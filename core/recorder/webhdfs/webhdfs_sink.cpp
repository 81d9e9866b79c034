#include "core/recorder/webhdfs/webhdfs_sink.h"
#include "core/base/fd_io.h"

#include <cerrno>
#include <deque>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace xt::recorder {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kMaxRequestBytes = 32ull << 20;

std::uint64_t fileSize(const std::string& path) {
    struct stat sb {};
    return ::stat(path.c_str(), &sb) == 0 ? static_cast<std::uint64_t>(sb.st_size) : 0;
}

Result<std::string> readRange(const std::string& path, std::uint64_t from, std::uint64_t to) {
    std::string out(to - from, '\0');
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return errnoStatus("open " + path, errno);
    XT_ASSIGN_OR_RETURN(const std::size_t got,
                        readFullyAt(fd.get(), out.data(), out.size(), from, "read " + path));
    if (got < out.size()) return errnoStatus("read " + path, EIO); // the file ends first
    return out;
}

std::string baseName(const std::string& path) {
    return path.substr(path.rfind('/') + 1);
}

class WebHdfsSink final : public OutputSink {
public:
    WebHdfsSink(WebHdfsSinkOptions options, storage::HdfsUrl dir,
                std::unique_ptr<xdl::FileSeriesWriter> writer,
                std::shared_ptr<WebHdfsSinkMonitor> monitor)
        : m_options(std::move(options)), m_dir(std::move(dir)), m_writer(std::move(writer)),
          m_client(m_options.webhdfs), m_monitor(std::move(monitor)) {
        addPart();
    }

    Status write(xdl::Bytes rec, std::int64_t gstep, std::int64_t lstep,
                 std::int64_t timestamp) override {
        if (pending() + rec.size() > m_options.spoolBytes) {
            if (pumpAllowed()) pump();
            if (pending() + rec.size() > m_options.spoolBytes) {
                m_monitor->update([&](WebHdfsSinkStats& s) {
                    ++s.lostRecords;
                    s.lostBytes += rec.size();
                });
                return Status::ok();
            }
        }
        std::int64_t before = m_writer->partIndex();
        XT_RETURN_IF_ERROR(m_writer->write(rec, gstep, lstep, timestamp));
        if (m_writer->partIndex() != before) {
            m_parts.back().finished = true; // its meta is final in the spool
            addPart();
        }
        bool due = pending() >= m_options.batchBytes || m_parts.size() > 1;
        if ((due && pumpAllowed()) || Clock::now() - m_lastPump >= m_options.batchInterval) pump();
        return Status::ok();
    }

    Status sync() override {
        XT_RETURN_IF_ERROR(m_writer->sync());
        pump(); // a failed upload leaves the bytes in the spool for the next batch
        return Status::ok();
    }

    Status close() override {
        if (m_closed) return m_closeStatus;
        m_closed = true;
        m_closeStatus = m_writer->close();
        if (!m_parts.empty()) m_parts.back().finished = true;
        for (int i = 0; i < std::max(1, m_options.closeAttempts) && !m_parts.empty(); ++i) {
            if (i > 0) std::this_thread::sleep_for(m_options.batchInterval);
            pump();
        }
        WebHdfsSinkStats s = m_monitor->stats();
        if (m_closeStatus && !m_parts.empty())
            m_closeStatus = Status(
                ErrorCode::IoError,
                fmt::format("{} byte(s) could not be uploaded to {} and stay in the spool {}: {}",
                            pending(), m_dir.toString(), m_spoolDir, s.lastError));
        if (m_closeStatus && s.lostRecords > 0)
            m_closeStatus = Status(
                ErrorCode::IoError,
                fmt::format("{} record(s) ({} bytes) lost: the spool limit of {} bytes was reached "
                            "while {} was unavailable ({})",
                            s.lostRecords, s.lostBytes, m_options.spoolBytes, m_dir.toString(),
                            s.lastError));
        return m_closeStatus;
    }

    std::uint64_t totalBytes() const override { return m_writer->totalBytes(); }
    std::int64_t partIndex() const override { return m_writer->partIndex(); }

private:
    struct Part {
        std::string localPath;
        std::uint64_t uploaded = 0;
        bool created = false;  // the data file exists on HDFS with `uploaded` bytes
        bool finished = false; // the writer moved on: the local meta is final
        bool resync = false;   // an upload failed: ask HDFS how much arrived
    };

    void addPart() {
        Part p;
        p.localPath = m_writer->currentPath();
        m_spoolDir = p.localPath.substr(0, p.localPath.rfind('/'));
        m_parts.push_back(std::move(p));
    }

    std::uint64_t pending() const {
        std::uint64_t n = 0;
        for (const auto& p : m_parts)
            n += fileSize(p.localPath) - std::min(fileSize(p.localPath), p.uploaded);
        return n;
    }

    storage::HdfsUrl remote(const std::string& name) const {
        storage::HdfsUrl u = m_dir;
        u.path = (m_dir.path == "/" ? "" : m_dir.path) + "/" + name;
        return u;
    }

    // After a failed batch the next one waits batchInterval, so an unavailable namenode does not
    // slow every record down by the client's retries.
    bool pumpAllowed() const {
        return !m_lastPumpFailed || Clock::now() - m_lastPump >= m_options.batchInterval;
    }

    // Uploads in order until done or the first failure; failures are counted, not returned.
    void pump() {
        Status s = uploadAll();
        m_lastPump = Clock::now();
        m_lastPumpFailed = !s.isOk();
        std::uint64_t left = pending();
        m_monitor->update([&](WebHdfsSinkStats& st) {
            st.pendingBytes = left;
            if (!s) {
                ++st.failedUploads;
                st.lastError = s.message();
            }
        });
    }

    Status uploadAll() {
        if (!m_dirReady) {
            XT_RETURN_IF_ERROR(m_client.mkdirs(m_dir));
            m_dirReady = true;
        }
        while (!m_parts.empty()) {
            Part& p = m_parts.front();
            XT_RETURN_IF_ERROR(upload(p));
            if (!p.finished) return Status::ok();
            XT_ASSIGN_OR_RETURN(const std::string meta, readRange(p.localPath + ".meta", 0,
                                                                  fileSize(p.localPath + ".meta")));
            XT_RETURN_IF_ERROR(
                m_client.create(remote(baseName(p.localPath) + ".meta"), meta, true));
            ::unlink(p.localPath.c_str());
            ::unlink((p.localPath + ".meta").c_str());
            m_parts.pop_front();
        }
        return Status::ok();
    }

    Status upload(Part& p) {
        storage::HdfsUrl data = remote(baseName(p.localPath));
        if (p.resync) {
            auto st = m_client.getFileStatus(data);
            if (!st && st.status().code() != ErrorCode::NotFound) return st.status();
            p.created = st.isOk();
            p.uploaded = st ? st->length : 0;
            p.resync = false;
        }
        std::uint64_t size = fileSize(p.localPath);
        if (p.uploaded > size)
            return Status(ErrorCode::Corrupt,
                          fmt::format("{} holds more bytes than the spool", data.toString()));
        do { // in pieces of at most kMaxRequestBytes, so memory stays bounded
            std::uint64_t end = std::min(size, p.uploaded + kMaxRequestBytes);
            XT_ASSIGN_OR_RETURN(const std::string bytes, readRange(p.localPath, p.uploaded, end));
            Status s;
            if (!p.created) {
                s = m_client.create(data, bytes, true);
                if (s) s = m_client.create(remote(baseName(p.localPath) + ".meta"), "", true);
            } else if (!bytes.empty()) {
                s = m_client.append(data, bytes);
            }
            if (!s) {
                p.resync = true;
                return s;
            }
            p.created = true;
            p.uploaded = end;
            m_monitor->update([&](WebHdfsSinkStats& st) { st.uploadedBytes += bytes.size(); });
        } while (p.uploaded < size);
        return Status::ok();
    }

    WebHdfsSinkOptions m_options;
    storage::HdfsUrl m_dir;
    std::unique_ptr<xdl::FileSeriesWriter> m_writer;
    storage::WebHdfsClient m_client;
    std::shared_ptr<WebHdfsSinkMonitor> m_monitor;
    std::deque<Part> m_parts;
    std::string m_spoolDir;
    Clock::time_point m_lastPump = Clock::now();
    bool m_lastPumpFailed = false;
    bool m_dirReady = false;
    bool m_closed = false;
    Status m_closeStatus;
};

} // namespace

OutputSinkFactory webHdfsSinkFactory(WebHdfsSinkOptions options,
                                     std::shared_ptr<WebHdfsSinkMonitor> monitor) {
    if (!monitor) monitor = std::make_shared<WebHdfsSinkMonitor>();
    return [options = std::move(options),
            monitor](const xdl::WriterOptions& writerOptions,
                     const std::vector<std::string>& keys) -> Result<std::unique_ptr<OutputSink>> {
        XT_ASSIGN_OR_RETURN(const storage::HdfsUrl dir, storage::parseHdfsUrl(options.url));
        XT_ASSIGN_OR_RETURN(auto writer, xdl::FileSeriesWriter::create(writerOptions, keys));
        return std::unique_ptr<OutputSink>(
            std::make_unique<WebHdfsSink>(options, dir, std::move(writer), monitor));
    };
}

} // namespace xt::recorder
