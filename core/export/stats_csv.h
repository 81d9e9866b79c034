#pragma once
// CSV of per-record statistics: one header line and one row per (rank, key, record), the columns
// of `xtrace stats` (README). min..l2 are empty when the tensor has no finite element.

#include "core/analysis/key_stats.h"

#include <string>
#include <string_view>

namespace xt {

// Appends `s` as one CSV field: as is, or quoted (RFC 4180) when it holds a separator, a quote
// or a line break.
void appendCsvField(std::string& out, std::string_view s);

void appendStatsCsvHeader(std::string& out);
void appendStatsCsvRow(std::string& out, int rank, const std::string& key,
                       const analysis::RecordStats& r);

} // namespace xt
