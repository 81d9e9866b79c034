#include "core/export/op_summary_csv.h"

#include "core/export/stats_csv.h"

#include "core/export/atomic_file.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace xt {

using timeline::OpDiff;
using timeline::OpDiffRow;
using timeline::OpStat;

void appendMicros(std::string& out, std::int64_t ns) {
    // Exact: integer part and three decimals from integer arithmetic (no double rounding).
    const bool negative = ns < 0;
    const std::uint64_t mag = negative ? std::uint64_t(0) - static_cast<std::uint64_t>(ns)
                                       : static_cast<std::uint64_t>(ns);
    if (negative) out += '-';
    out += std::to_string(mag / 1000);
    out += '.';
    const unsigned frac = static_cast<unsigned>(mag % 1000);
    out += static_cast<char>('0' + frac / 100);
    out += static_cast<char>('0' + frac / 10 % 10);
    out += static_cast<char>('0' + frac % 10);
}

namespace {

void appendAvgMicros(std::string& out, double ns) {
    appendMicros(out, static_cast<std::int64_t>(std::llround(ns)));
}

void appendFixed(std::string& out, double v, int precision) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision);
    out.append(buf, res.ptr);
}

} // namespace

std::string opSummaryCsv(const timeline::TraceStore& store, const std::vector<OpStat>& rows,
                         bool withCategory) {
    std::string out = withCategory ? "name,category," : "name,";
    out += "count,total_us,self_us,avg_us,min_us,max_us\n";
    for (const OpStat& r : rows) {
        appendCsvField(out, store.str(r.name));
        out += ',';
        if (withCategory) {
            appendCsvField(out, store.str(r.cat));
            out += ',';
        }
        out += std::to_string(r.count);
        for (std::int64_t v : {r.totalNs, r.selfNs}) {
            out += ',';
            appendMicros(out, v);
        }
        out += ',';
        appendAvgMicros(out, r.avgNs());
        for (std::int64_t v : {r.minNs, r.maxNs}) {
            out += ',';
            appendMicros(out, v);
        }
        out += '\n';
    }
    return out;
}

std::string opDiffCsv(const OpDiff& diff, bool withCategory) {
    std::string out = withCategory ? "name,category," : "name,";
    out += "status,count_a,count_b,count_delta,total_a_us,total_b_us,total_delta_us,self_a_us,"
           "self_b_us,self_delta_us,avg_a_us,avg_b_us,avg_delta_us,relative_change\n";
    for (const OpDiffRow& r : diff.rows) {
        appendCsvField(out, r.name);
        out += ',';
        if (withCategory) {
            appendCsvField(out, r.cat);
            out += ',';
        }
        out += timeline::opPresenceName(r.presence);
        out += ',' + std::to_string(r.countA) + ',' + std::to_string(r.countB) + ',' +
               std::to_string(r.countDelta());
        for (std::int64_t v :
             {r.totalA, r.totalB, r.totalDelta(), r.selfA, r.selfB, r.selfDelta()}) {
            out += ',';
            appendMicros(out, v);
        }
        for (double v : {r.avgA, r.avgB}) {
            out += ',';
            appendAvgMicros(out, v);
        }
        // The delta of the rounded averages, so the row is consistent with itself.
        out += ',';
        appendMicros(out, std::llround(r.avgB) - std::llround(r.avgA));
        out += ',';
        if (const auto rel = r.relativeChange()) appendFixed(out, *rel, 6);
        out += '\n';
    }
    return out;
}

std::string stepBreakdownCsv(const std::vector<timeline::StepBreakdown>& steps) {
    std::string out = "name,start_us,dur_us,bottleneck";
    for (std::size_t c = 0; c < timeline::kStepCategoryCount; ++c) {
        out += ',';
        out += timeline::stepCategoryName(static_cast<timeline::StepCategory>(c));
        out += "_us";
    }
    out += '\n';
    for (const auto& s : steps) {
        appendCsvField(out, s.name);
        out += ',';
        appendMicros(out, s.start);
        out += ',';
        appendMicros(out, s.end - s.start);
        out += ',';
        out += timeline::stepCategoryName(s.bottleneck);
        for (std::int64_t ns : s.ns) {
            out += ',';
            appendMicros(out, ns);
        }
        out += '\n';
    }
    return out;
}

namespace {
Status writeAll(const std::string& path, const std::string& text) {
    XT_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::create(path));
    f.write(text);
    return f.commit();
}
} // namespace

Status writeOpSummaryCsv(const std::string& path, const timeline::TraceStore& store,
                         const std::vector<OpStat>& rows, bool withCategory) {
    return writeAll(path, opSummaryCsv(store, rows, withCategory));
}

Status writeOpDiffCsv(const std::string& path, const OpDiff& diff, bool withCategory) {
    return writeAll(path, opDiffCsv(diff, withCategory));
}

Status writeStepBreakdownCsv(const std::string& path,
                             const std::vector<timeline::StepBreakdown>& steps) {
    return writeAll(path, stepBreakdownCsv(steps));
}

} // namespace xt
