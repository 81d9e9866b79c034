#pragma once
// What an import may hold and how it binds flows; shared by the Chrome reader and the
// TraceStoreBuilder that any importer fills.

#include "core/base/progress.h"

#include <cstddef>
#include <cstdint>

namespace xt::timeline {

struct ImportOptions {
    ProgressCallback progress; // stages "inflating" and "parsing"; false cancels
    // Bounds on what one file can make the importer hold (docs/HARDENING.md). Events past a
    // bound are skipped and counted in the report ("too-many-processes", "too-many-threads",
    // "nesting-too-deep"); an input inflating past maxInflatedBytes is refused (Unsupported).
    std::uint32_t maxProcesses = 1u << 16;
    std::uint32_t maxThreads = 1u << 20;
    std::uint32_t maxJsonDepth = 256;   // nesting of arrays and objects inside one event
    std::uint64_t maxInflatedBytes = 0; // gzip / zip output; 0: half of physical memory
    // A v1 flow step or end (t / f) with no start before it binds to the start of its id that
    // follows it: an arrow back in time, counted as "backwards-flow" (info). True drops it as
    // Chrome's importer does ("flow-without-start"), so counts compare with chrome://tracing.
    bool chromeCompatibleFlows = false;
    // A text over twice this size is read in windows of about this many bytes of its events
    // array, cut between events at line breaks, so the parser's index (~4 bytes per JSON token)
    // spans one window and a mapped file's pages are given back behind it. 0 reads the text as
    // one document. Valid JSON gives the same store either way (damaged text may differ where
    // the whole document's read accepted a damaged event because of what followed it).
    std::size_t parseWindowBytes = std::size_t(32) << 20;
};

} // namespace xt::timeline
