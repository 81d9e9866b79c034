#include "core/recorder/output_sink.h"

#include "core/base/diagnostics.h"
#include "core/summary/summary_builder.h"
#include "core/summary/summary_store.h"

#include <algorithm>

namespace xt::recorder {

namespace {

// The summary of the part being written, record by record, saved beside it.
class PartSummaryWriter {
public:
    explicit PartSummaryWriter(const std::vector<std::string>& keys)
        : m_keys(keys), m_headerLength(4 + xdl::encodeHeader(keys).size()) {}

    // A record was written at `offset` of the part `path` (a new path starts a new part).
    void add(const std::string& path, std::uint64_t offset, xdl::Bytes framed) {
        if (path != m_path) start(path);
        const xdl::Bytes message = framed.subspan(4);
        xdl::RecordHead head;
        (void)xdl::decodeRecordHead(message, head); // our own encoder's bytes: well-formed
        m_summary->records.built().push_back(
            xdl::RecordEntry{offset + 4, std::uint32_t(message.size()), head.columnCount,
                             head.gstep, head.lstep, head.timestamp});
        m_builder->add(m_summary->records.size() - 1, message, m_ignored, path);
        m_summary->scannedTo = offset + framed.size();
        m_ignored.clear();
    }
    // Saves now when `complete`, else when the last save is old enough.
    void save(bool complete) {
        const auto now = std::chrono::steady_clock::now();
        if (m_path.empty() || (!complete && now - m_lastSave < m_interval)) return;
        m_lastSave = now;
        auto id = summary::partIdentity(m_path);
        if (!id || id->size != m_summary->scannedTo) return; // not ours as we know it: skip
        m_summary->identity = std::move(*id);
        (void)summary::saveSummary(*m_summary, summary::besidePath(m_path));
        // A part of many records has a large summary: saving it stays under 5% of the time.
        m_interval = std::max<std::chrono::steady_clock::duration>(
            kSummarySaveInterval, 20 * (std::chrono::steady_clock::now() - now));
    }

private:
    void start(const std::string& path) {
        save(true); // the previous part is complete
        m_path = path;
        m_summary = std::make_unique<summary::PartSummary>();
        m_summary->keys = m_keys;
        m_summary->hasHeader = m_summary->startChecked = true;
        m_summary->headerLength = m_summary->scannedTo = m_headerLength;
        m_builder = std::make_unique<summary::SummaryBuilder>(*m_summary);
        m_lastSave = std::chrono::steady_clock::now();
    }

    std::vector<std::string> m_keys;
    std::uint64_t m_headerLength;
    std::string m_path;
    std::unique_ptr<summary::PartSummary> m_summary; // the builder refers to it
    std::unique_ptr<summary::SummaryBuilder> m_builder;
    std::chrono::steady_clock::time_point m_lastSave;
    std::chrono::steady_clock::duration m_interval = kSummarySaveInterval;
    Diagnostics m_ignored; // the recorder's own records are never damaged
};

class LocalFileSink final : public OutputSink {
public:
    LocalFileSink(std::unique_ptr<xdl::FileSeriesWriter> w, bool summaries)
        : m_writer(std::move(w)) {
        if (summaries) m_summary = std::make_unique<PartSummaryWriter>(m_writer->keys());
    }
    Status write(xdl::Bytes framedRecord, std::int64_t gstep, std::int64_t lstep,
                 std::int64_t timestamp) override {
        XT_RETURN_IF_ERROR(m_writer->write(framedRecord, gstep, lstep, timestamp));
        if (m_summary) {
            m_summary->add(m_writer->currentPath(), m_writer->bytesInPart() - framedRecord.size(),
                           framedRecord);
            m_summary->save(false);
        }
        return Status::ok();
    }
    Status sync() override { return m_writer->sync(); }
    Status close() override {
        Status st = m_writer->close();
        if (m_summary) m_summary->save(true);
        m_summary.reset(); // saved once; close() may be called again
        return st;
    }
    std::uint64_t totalBytes() const override { return m_writer->totalBytes(); }
    std::int64_t partIndex() const override { return m_writer->partIndex(); }

private:
    std::unique_ptr<xdl::FileSeriesWriter> m_writer;
    std::unique_ptr<PartSummaryWriter> m_summary;
};

} // namespace

Result<std::unique_ptr<OutputSink>> openLocalFileSink(const xdl::WriterOptions& options,
                                                      const std::vector<std::string>& keys,
                                                      bool summaries) {
    XT_ASSIGN_OR_RETURN(auto writer, xdl::FileSeriesWriter::create(options, keys));
    return std::unique_ptr<OutputSink>(
        std::make_unique<LocalFileSink>(std::move(writer), summaries));
}

} // namespace xt::recorder
