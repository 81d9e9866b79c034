#pragma once
// What a path holds, for choosing its reader: the XDL part naming first (core/xdl), then the
// content (sniffBytes). Data files named {prefix}.{name}.{rank}.{index} and their .meta files
// are XDL; *.xts files are XDL part summaries, read with their run and never opened alone;
// anything else is told by its first bytes.

#include <cstdint>
#include <string>
#include <string_view>

namespace xt::open {

enum class TraceKind {
    Missing,     // nothing at the path
    Directory,   // see planOpen
    XdlPart,     // an XDL data or .meta file, by name or by a length-prefixed first record
    XdlSummary,  // a *.xts part summary: not a trace
    ChromeTrace, // Chrome trace JSON, plain or in gzip or zip
    StepStats,   // a TensorFlow RunMetadata or StepStats message (binary protobuf)
    Unknown,     // none of these (empty files included)
};
const char* traceKindName(TraceKind k);

inline bool isTimeline(TraceKind k) {
    return k == TraceKind::ChromeTrace || k == TraceKind::StepStats;
}

// The summary files another part of the program writes beside XDL parts.
inline constexpr std::string_view kSummarySuffix = ".xts";

// A file named `fileName` (no directory) of `fileSize` bytes that begins with `head`.
TraceKind detectTraceKind(std::string_view fileName, std::string_view head, std::uint64_t fileSize);
// Reads at most kSniffBytes of `path` (a directory is Directory, a path that does not exist
// Missing; an unreadable file is Unknown).
TraceKind detectTraceKind(const std::string& path);

} // namespace xt::open
