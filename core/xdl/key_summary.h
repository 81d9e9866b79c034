#pragma once
// What each key of a run holds: dtype and shape (noting when they vary between records), how
// many records carry data, how many are empty (trace_once placeholders) or damaged. Built by
// decoding every record's column headers; payloads are not read.

#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/xdl/trace_reader.h"

#include <map>
#include <optional>

namespace xt::xdl {

struct KeySummary {
    std::string key;
    std::optional<Dtype> dtype; // of the first record with data
    bool mixedDtypes = false;
    Shape shape; // of the first record with data
    bool varyingShape = false;
    std::uint64_t records = 0;      // records with data for this key
    std::uint64_t emptyRecords = 0; // empty columns (after trace_once, for instance)
    std::uint64_t damagedRecords = 0;
};

// A column as summarizeKeys counts it.
struct ColumnFacts {
    ColumnProblem problem = ColumnProblem::None;
    bool empty = false;
    std::int64_t wireDtype = 0;
    Shape shape;
    std::uint64_t dataBytes = 0;
};
// Gives the columns of record `record` (numbered in its part) without decoding it, e.g. from a
// stored summary; returns false to have the record decoded instead. Called on one thread, in
// record order (without one, records are decoded on every core).
using ColumnFactsSource =
    std::function<bool(const PartReader& part, std::size_t record, std::vector<ColumnFacts>& out)>;

// Gives the summaries of the columns of a whole part at once (KeySummary::key unused), e.g. from
// totals of a stored summary; returns false to have its records counted one by one instead.
using PartKeysSource =
    std::function<bool(const PartReader& part, std::vector<KeySummary>& columns)>;

// One summary per key of the run, in RunReader::keys() order. Damaged columns are reported.
Result<std::vector<KeySummary>> summarizeKeys(const RunReader& run, Diagnostics& diag,
                                              const ProgressCallback& progress = {},
                                              const ColumnFactsSource& facts = {},
                                              const PartKeysSource& parts = {});
// The same over the first records of each rank only, up to toRecord[rank] (ranks not listed: all
// of them): the keys' dtypes and shapes at once, their counts of those records only.
Result<std::vector<KeySummary>> summarizeKeyPrefix(const RunReader& run,
                                                   const std::map<int, std::size_t>& toRecord,
                                                   Diagnostics& diag);
// Extends `keys` (summarizeKeys of an earlier, shorter state of a growing run) with the records
// of `run` from fromRecord[rank] on (ranks not listed: from 0). Keys first seen are appended.
Status extendKeySummaries(std::vector<KeySummary>& keys, const RunReader& run,
                          const std::map<int, std::size_t>& fromRecord, Diagnostics& diag);

} // namespace xt::xdl
