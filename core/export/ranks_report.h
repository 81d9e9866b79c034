#pragma once
// The figures of a multi-rank analysis as the JSON of `xtrace timeline-ranks --json` (README,
// "timeline-ranks") and as tables, one CSV each, shared by the command line (--csv DIR) and the
// Ranks panel of xtview so both show the same numbers. Times are microseconds; percentages
// have two decimals, as HTA rounds them.
//
// Tables: ranks (one row per rank), idle_by_stream (rank, stream), steps (rank, step),
// stragglers (step; one duration column per rank), top_kernels (type, kernel, rank).

#include "core/base/status.h"
#include "core/timeline/rank_session.h"

#include <limits>
#include <string>
#include <vector>

namespace xt {

struct ReportCell {
    std::string text; // as written to CSV; empty for a missing value
    double value = std::numeric_limits<double>::quiet_NaN(); // numbers, for sorting
};

struct ReportTable {
    std::string name; // file name without ".csv"
    std::vector<std::string> columns;
    std::vector<std::vector<ReportCell>> rows;
};

std::string ranksReportJson(const timeline::RankSession& session,
                            const timeline::SessionAnalysis& analysis);
std::vector<ReportTable> ranksReportTables(const timeline::RankSession& session,
                                           const timeline::SessionAnalysis& analysis);

// RFC 4180, header line first.
std::string reportTableCsv(const ReportTable& table);
// Written atomically.
Status writeReportTableCsv(const std::string& path, const ReportTable& table);

} // namespace xt
