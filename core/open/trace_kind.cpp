#include "core/open/trace_kind.h"

#include "core/base/byte_format.h"
#include "core/xdl/run_discovery.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace xt::open {

const char* traceKindName(TraceKind k) {
    switch (k) {
    case TraceKind::Missing:
        return "missing";
    case TraceKind::Directory:
        return "directory";
    case TraceKind::XdlPart:
        return "xdl";
    case TraceKind::XdlSummary:
        return "xdl-summary";
    case TraceKind::ChromeTrace:
        return "chrome";
    case TraceKind::StepStats:
        return "stepstats";
    case TraceKind::Unknown:
        return "unknown";
    }
    return "?";
}

TraceKind detectTraceKind(std::string_view fileName, std::string_view head,
                          std::uint64_t fileSize) {
    if (fileName.ends_with(kSummarySuffix)) return TraceKind::XdlSummary;
    std::string_view data = fileName;
    if (data.ends_with(".meta")) data.remove_suffix(5);
    if (xdl::parsePartFileName(data)) return TraceKind::XdlPart;
    switch (sniffBytes(head, fileSize)) {
    case ByteFormat::Gzip:
    case ByteFormat::Zip:
    case ByteFormat::JsonText:
        return TraceKind::ChromeTrace;
    case ByteFormat::LengthPrefixed:
        return TraceKind::XdlPart;
    case ByteFormat::Protobuf:
        return TraceKind::StepStats;
    case ByteFormat::Empty:
    case ByteFormat::Other:
        break;
    }
    return TraceKind::Unknown;
}

TraceKind detectTraceKind(const std::string& path) {
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) return TraceKind::Missing;
    if (fs::is_directory(st)) return TraceKind::Directory;
    const std::uint64_t size = fs::file_size(path, ec);
    std::string head(kSniffBytes, '\0');
    std::ifstream in(path, std::ios::binary);
    if (!in) return TraceKind::Unknown;
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return detectTraceKind(fs::path(path).filename().string(), head, ec ? head.size() : size);
}

} // namespace xt::open
