#include "core/export/stats_csv.h"

#include <charconv>

namespace xt {

namespace {

void appendDouble(std::string& out, double v) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
}

} // namespace

void appendCsvField(std::string& out, std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

void appendStatsCsvHeader(std::string& out) {
    out += "rank,key,gstep,lstep,timestamp,count,nan,inf,zeros,min,max,mean,std,l2\n";
}

void appendStatsCsvRow(std::string& out, int rank, const std::string& key,
                       const analysis::RecordStats& r) {
    const auto& s = r.stats;
    out += std::to_string(rank);
    out += ',';
    appendCsvField(out, key);
    for (std::int64_t v : {r.gstep, r.lstep, r.timestamp}) {
        out += ',';
        out += std::to_string(v);
    }
    for (std::uint64_t v : {s.count, s.nan, s.inf, s.zeros}) {
        out += ',';
        out += std::to_string(v);
    }
    for (double v : {s.min, s.max, s.mean, s.std, s.l2}) {
        out += ',';
        if (s.hasFinite()) appendDouble(out, v);
    }
    out += '\n';
}

} // namespace xt
