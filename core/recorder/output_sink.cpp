#include "core/recorder/output_sink.h"

namespace xt::recorder {

namespace {

class LocalFileSink final : public OutputSink {
public:
    explicit LocalFileSink(std::unique_ptr<xdl::FileSeriesWriter> w) : m_writer(std::move(w)) {}
    Status write(xdl::Bytes framedRecord, std::int64_t gstep, std::int64_t lstep,
                 std::int64_t timestamp) override {
        return m_writer->write(framedRecord, gstep, lstep, timestamp);
    }
    Status sync() override { return m_writer->sync(); }
    Status close() override { return m_writer->close(); }
    std::uint64_t totalBytes() const override { return m_writer->totalBytes(); }
    std::int64_t partIndex() const override { return m_writer->partIndex(); }

private:
    std::unique_ptr<xdl::FileSeriesWriter> m_writer;
};

} // namespace

Result<std::unique_ptr<OutputSink>> openLocalFileSink(const xdl::WriterOptions& options,
                                                      const std::vector<std::string>& keys) {
    XT_ASSIGN_OR_RETURN(auto writer, xdl::FileSeriesWriter::create(options, keys));
    return std::unique_ptr<OutputSink>(std::make_unique<LocalFileSink>(std::move(writer)));
}

} // namespace xt::recorder
