#pragma once
// CSV of timeline op summaries and op summary diffs (RFC 4180: names holding a comma, quote or
// line break are quoted, quotes doubled). Times are in microseconds with three decimals, which is
// exact for the integer nanoseconds of the store; averages are rounded to the nanosecond.
//
//   summary: name[,category],count,total_us,self_us,avg_us,min_us,max_us
//   diff:    name[,category],status,count_a,count_b,count_delta,total_a_us,total_b_us,
//            total_delta_us,self_a_us,self_b_us,self_delta_us,avg_a_us,avg_b_us,avg_delta_us,
//            relative_change
//   steps:   name,start_us,dur_us,bottleneck,device_compute_us,device_collectives_us,memcpy_us,
//            kernel_launch_us,host_compute_us,other_us,idle_us
// `status` is both / only_a / only_b; relative_change is (total_b - total_a) / total_a with six
// decimals, empty when total_a is zero. The category column is there when grouped by category.
// The step columns after `bottleneck` are the step's time per category (stepCategoryName + _us).

#include "core/base/status.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/op_summary_diff.h"
#include "core/timeline/step_breakdown.h"

#include <string>
#include <vector>

namespace xt {

std::string opSummaryCsv(const timeline::TraceStore& store,
                         const std::vector<timeline::OpStat>& rows, bool withCategory);
std::string opDiffCsv(const timeline::OpDiff& diff, bool withCategory);
std::string stepBreakdownCsv(const std::vector<timeline::StepBreakdown>& steps);

// The same written atomically (core/export/atomic_file.h).
Status writeOpSummaryCsv(const std::string& path, const timeline::TraceStore& store,
                         const std::vector<timeline::OpStat>& rows, bool withCategory);
Status writeOpDiffCsv(const std::string& path, const timeline::OpDiff& diff, bool withCategory);
Status writeStepBreakdownCsv(const std::string& path,
                             const std::vector<timeline::StepBreakdown>& steps);

// Nanoseconds as microseconds with three decimals ("-1.500" for -1500), for tests and other
// writers (fields are quoted with appendCsvField of stats_csv.h).
void appendMicros(std::string& out, std::int64_t ns);

} // namespace xt
