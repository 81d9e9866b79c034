#pragma once
// CSV of per-record statistics: one header line and one row per (rank, key, record), the columns
// of `xtrace stats` (CONTRACTS.md). min..l2 are empty when the tensor has no finite element.

#include "core/analysis/key_stats.h"

#include <string>

namespace xt {

void appendStatsCsvHeader(std::string& out);
void appendStatsCsvRow(std::string& out, int rank, const std::string& key,
                       const analysis::RecordStats& r);

} // namespace xt
