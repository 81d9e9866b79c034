#pragma once
// CSV of timeline op summaries and op summary diffs (RFC 4180: names holding a comma, quote or
// line break are quoted, quotes doubled). Times are in microseconds with three decimals, which is
// exact for the integer nanoseconds of the store; averages are rounded to the nanosecond.
//
//   summary: name[,category],count,total_us,self_us,avg_us,min_us,max_us
//   diff:    name[,category],status,count_a,count_b,count_delta,total_a_us,total_b_us,
//            total_delta_us,self_a_us,self_b_us,self_delta_us,avg_a_us,avg_b_us,avg_delta_us,
//            relative_change
// `status` is both / only_a / only_b; relative_change is (total_b - total_a) / total_a with six
// decimals, empty when total_a is zero. The category column is there when grouped by category.

#include "core/base/status.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/op_summary_diff.h"

#include <string>
#include <vector>

namespace xt {

std::string opSummaryCsv(const timeline::TraceStore& store,
                         const std::vector<timeline::OpStat>& rows, bool withCategory);
std::string opDiffCsv(const timeline::OpDiff& diff, bool withCategory);

// The same written atomically (core/export/atomic_file.h).
Status writeOpSummaryCsv(const std::string& path, const timeline::TraceStore& store,
                         const std::vector<timeline::OpStat>& rows, bool withCategory);
Status writeOpDiffCsv(const std::string& path, const timeline::OpDiff& diff, bool withCategory);

// Nanoseconds as microseconds with three decimals ("-1.500" for -1500), for tests and other
// writers (fields are quoted with appendCsvField of stats_csv.h).
void appendMicros(std::string& out, std::int64_t ns);

} // namespace xt
