#pragma once
// Every diagnostic code, declared once: its stable kebab-case name, its severity and what it
// means. Emitters pass the constant (`diag.add(codes::kTruncatedRecord, file, offset, record,
// message)`), so the severity comes from here. docs/DIAGNOSTICS.md lists the same table; a test
// compares the two and checks that no code is written as a string literal elsewhere.

#include "core/base/diagnostics.h"

#include <span>
#include <string_view>

namespace xt {

struct DiagnosticCode {
    const char* name;
    Severity severity;
    const char* description;
};

// X(constant, name, severity, description), grouped by the part of the program that emits them.
#define XT_DIAGNOSTIC_CODES(X)                                                                     \
    /* XDL part files (core/xdl record index) */                                                   \
    X(kZeroLength, "zero-length", Warning,                                                         \
      "zero-length records skipped (a zero-filled region of the file)")                            \
    X(kEmptyHeader, "empty-header", Warning, "the header record names no keys")                    \
    X(kBadLength, "bad-length", Error,                                                             \
      "a length prefix over the record limit or past the end of the file; the scan resumes at "    \
      "the next plausible record")                                                                 \
    X(kBadHeader, "bad-header", Error, "the header record does not parse; key names are unknown")  \
    X(kMissingHeader, "missing-header", Warning,                                                   \
      "the file does not start with a header; key names are unknown (or borrowed)")                \
    X(kColumnCountMismatch, "column-count-mismatch", Warning,                                      \
      "a record has a different number of columns than the header has keys")                       \
    X(kUnexpectedHeader, "unexpected-header", Warning,                                             \
      "a header record in the middle of a file was skipped")                                       \
    X(kMalformedRecord, "malformed-record", Error, "a record does not parse and was skipped")      \
    X(kTruncatedRecord, "truncated-record", Warning,                                               \
      "the file ends inside a record (an interrupted writer); earlier records are intact")         \
    /* XDL runs: discovery, metas and reading */                                                   \
    X(kOrphanMeta, "orphan-meta", Warning, "a .meta file without its data file")                   \
    X(kOrphanSummary, "orphan-summary", Warning,                                                   \
      "a .xts part summary named without its data file")                                           \
    X(kUnrecognisedName, "unrecognised-name", Info,                                                \
      "a file name that does not follow {prefix}.{name}.{rank}.{index}; read as rank 0 part 1")    \
    X(kUnreadableDirectory, "unreadable-directory", Error, "a directory could not be listed")      \
    X(kUnreadableMeta, "unreadable-meta", Warning, "a .meta file could not be read")               \
    X(kCorruptMeta, "corrupt-meta", Warning, "a .meta file does not hold a Meta message")          \
    X(kNoRuns, "no-runs", Warning, "a directory or pattern holds no XDL data files")               \
    X(kMissingParts, "missing-parts", Warning, "a rank has gaps in its part indices")              \
    X(kMetaMismatch, "meta-mismatch", Warning,                                                     \
      "a finalised .meta disagrees with the steps or record count of its data file")               \
    X(kKeysBorrowed, "keys-borrowed", Info,                                                        \
      "a part without a header takes its key names from a sibling part")                           \
    X(kNegativeStep, "negative-step", Info, "a record with a negative gstep or lstep")             \
    X(kStepsBackwards, "steps-backwards", Warning, "gstep decreases from one record to the next")  \
    X(kBadColumn, "bad-column", Error, "a column whose dtype, shape or size cannot be read")       \
    X(kUnknownDtype, "unknown-dtype", Error, "a column with a dtype this version does not know")   \
    X(kBadShape, "bad-shape", Error, "a column with a negative or overflowing dimension")          \
    X(kRankTooLarge, "rank-too-large", Error, "a column with more dimensions than supported")      \
    X(kSizeMismatch, "size-mismatch", Error,                                                       \
      "a column whose byte count does not match its dtype and shape")                              \
    X(kUnreadablePart, "unreadable-part", Error, "a part file could not be opened or mapped")      \
    X(kUnavailableRecord, "unavailable-record", Error,                                             \
      "the bytes of a record of a remote part could not be fetched")                               \
    X(kRefreshFailed, "refresh-failed", Error, "following a live run: re-reading a rank failed")   \
    /* Analysis */                                                                                 \
    X(kDamagedRecord, "damaged-record", Warning,                                                   \
      "statistics or a part summary skipped a record that does not parse")                         \
    X(kDamagedColumn, "damaged-column", Warning,                                                   \
      "statistics or a part summary skipped a column that cannot be read")                         \
    X(kDuplicateStep, "duplicate-step", Warning,                                                   \
      "comparison: a step recorded twice on one side; the first record is compared")               \
    /* Part summaries (core/summary) */                                                            \
    X(kSummaryUnreadable, "summary-unreadable", Warning,                                           \
      "a part summary exists but could not be read; it is rebuilt")                                \
    X(kSummaryUnsupported, "summary-unsupported", Info,                                            \
      "a part summary of another format version; it is rebuilt")                                   \
    X(kSummaryCorrupt, "summary-corrupt", Warning,                                                 \
      "a part summary fails its checks (CRC, counts); it is rebuilt")                              \
    X(kSummaryStale, "summary-stale", Info,                                                        \
      "a part summary no longer matches its part (size, mtime or fingerprints); it is rebuilt")    \
    X(kSummaryNotSaved, "summary-not-saved", Warning,                                              \
      "a part summary was built but could be saved neither beside the part nor in the cache")      \
    /* Chrome trace import (core/timeline) */                                                      \
    X(kTooManyProcesses, "too-many-processes", Error,                                              \
      "an event past ImportOptions::maxProcesses was skipped")                                     \
    X(kTooManyThreads, "too-many-threads", Error,                                                  \
      "an event past ImportOptions::maxThreads was skipped")                                       \
    X(kNestingTooDeep, "nesting-too-deep", Error,                                                  \
      "an event nesting deeper than ImportOptions::maxJsonDepth was skipped")                      \
    X(kTruncatedGzip, "truncated-gzip", Warning,                                                   \
      "the gzip stream ends early; what it holds is read")                                         \
    X(kMissingClosingBrace, "missing-closing-brace", Info, "the top-level object is not closed")   \
    X(kMalformedTopLevel, "malformed-top-level", Warning,                                          \
      "the top-level object is not valid JSON where a key or ':' was expected")                    \
    X(kTruncatedTopLevel, "truncated-top-level", Warning,                                          \
      "the text ends inside a top-level key or value")                                             \
    X(kNoTraceEvents, "no-trace-events", Warning, "object form without a traceEvents array")       \
    X(kMissingClosingBracket, "missing-closing-bracket", Info, "the event array is not closed")    \
    X(kTrailingComma, "trailing-comma", Info, "a comma before the closing ']'")                    \
    X(kEmptyArrayElement, "empty-array-element", Warning, "two commas in a row")                   \
    X(kTruncatedEvent, "truncated-event", Warning, "the text ends inside an event")                \
    X(kNonObjectEvent, "non-object-event", Warning, "an array element that is not an object")      \
    X(kMalformedEvent, "malformed-event", Warning,                                                 \
      "an event, or its metadata or counter args, is not valid JSON of the expected shape")        \
    X(kMissingPhase, "missing-phase", Warning, "an event without \"ph\"")                          \
    X(kUnknownPhase, "unknown-phase", Warning, "an event with a phase the format does not define") \
    X(kNullTs, "null-ts", Warning, "an event whose \"ts\" is null")                                \
    X(kMissingTs, "missing-ts", Warning, "an event without a usable \"ts\"")                       \
    X(kTsOutOfRange, "ts-out-of-range", Warning, "\"ts\" outside +-4.6e15 us")                     \
    X(kXWithoutDur, "x-without-dur", Info, "an X event without \"dur\": zero length")              \
    X(kBadDur, "bad-dur", Info, "an X event with a negative or huge \"dur\": zero length")         \
    X(kUnmatchedAsyncEnd, "unmatched-async-end", Warning,                                          \
      "an async end without an open begin was skipped")                                            \
    X(kFlowWithoutId, "flow-without-id", Warning, "a flow event without \"id\" was skipped")       \
    X(kObjectRecreated, "object-recreated", Info,                                                  \
      "N for a live object: the old object ends there")                                            \
    X(kObjectSnapshotWithoutCreate, "object-snapshot-without-create", Warning,                     \
      "an O event for an object never created was skipped")                                        \
    X(kObjectDeleteWithoutCreate, "object-delete-without-create", Warning,                         \
      "a D event for an object never created was skipped")                                         \
    X(kAsyncStepIgnored, "async-step-ignored", Info, "async step events are counted, not drawn")   \
    X(kSampleIgnored, "sample-ignored", Info, "sample events are counted, not drawn")              \
    X(kClockSyncIgnored, "clock-sync-ignored", Info, "clock sync events are counted only")         \
    X(kContextIgnored, "context-ignored", Info, "context events are counted only")                 \
    X(kMetadataWithoutArgs, "metadata-without-args", Warning,                                      \
      "an M event without args was skipped")                                                       \
    X(kCounterWithoutArgs, "counter-without-args", Warning, "a C event without args was skipped")  \
    X(kCounterWithoutValues, "counter-without-values", Warning,                                    \
      "a C event without numeric args was skipped")                                                \
    X(kUnterminatedAsync, "unterminated-async", Info,                                              \
      "an async begin without end, closed at the end of the trace")                                \
    X(kUnmatchedEnd, "unmatched-end", Warning, "an E without a matching B was skipped")            \
    X(kUnterminatedBegin, "unterminated-begin", Info,                                              \
      "a B without E, closed at the end of the trace")                                             \
    X(kOverlappingSlice, "overlapping-slice", Info,                                                \
      "a slice overlaps its neighbour on one thread: drawn one row deeper")                        \
    X(kUnboundFlow, "unbound-flow", Warning,                                                       \
      "a flow event with no slice to attach to was skipped")                                       \
    X(kFlowWithoutStart, "flow-without-start", Warning,                                            \
      "a flow step or end without an earlier start was skipped")                                   \
    X(kBackwardsFlow, "backwards-flow", Info,                                                      \
      "a flow step or end before its start: bound to the start that follows it")                   \
    /* Multi-rank timelines (core/timeline/rank_session) */                                        \
    X(kDuplicateRank, "duplicate-rank", Warning,                                                   \
      "two traces claim the same rank; the later one is given a free rank")                        \
    X(kUnreadableTrace, "unreadable-trace", Error,                                                 \
      "one rank's trace could not be imported; the other ranks are shown")                         \
    /* Opening paths */                                                                            \
    X(kHdfsOffline, "hdfs-offline", Warning,                                                       \
      "the HDFS namenode could not be reached; the local mirror (maybe stale) is shown")           \
    X(kRemoteOffline, "remote-offline", Warning,                                                   \
      "Python: a run URL's namenode could not be reached; the local mirror is read")               \
    /* The application */                                                                          \
    X(kOpenFailed, "open-failed", Error, "a run or path could not be opened")                      \
    X(kSummaryFailed, "summary-failed", Error,                                                     \
      "the key summary of a run, or the summary of one of its parts, could not be computed")       \
    X(kStatisticsFailed, "statistics-failed", Error,                                               \
      "the statistics of a run could not be computed")                                             \
    X(kTimelineOpenFailed, "timeline-open-failed", Error, "a timeline file could not be imported") \
    X(kCompareFailed, "compare-failed", Error, "two runs could not be compared")                   \
    X(kExportFailed, "export-failed", Error, "an export could not be written")                     \
    X(kDemoFailed, "demo-failed", Error, "the built-in demo run could not be written")             \
    X(kSampleFailed, "sample-failed", Error,                                                       \
      "the sample timeline (the demo run's steps) could not be written")                           \
    X(kSessionUnreadable, "session-unreadable", Error, "a session file could not be read")         \
    X(kSessionIncomplete, "session-incomplete", Warning,                                           \
      "a session was restored without some of its files, tabs or keys")                            \
    X(kNotShown, "not-shown", Info,                                                                \
      "more diagnostics of the listed codes were counted than are stored")

namespace codes {
#define XT_DECLARE_DIAGNOSTIC_CODE(id, name, severity, description)                                \
    inline constexpr DiagnosticCode id{name, Severity::severity, description};
XT_DIAGNOSTIC_CODES(XT_DECLARE_DIAGNOSTIC_CODE)
#undef XT_DECLARE_DIAGNOSTIC_CODE
} // namespace codes

// Every declared code, in declaration order.
std::span<const DiagnosticCode> allDiagnosticCodes();
// The declared code named `name`, or null.
const DiagnosticCode* findDiagnosticCode(std::string_view name);

} // namespace xt
