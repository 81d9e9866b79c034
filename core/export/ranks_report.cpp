#include "core/export/ranks_report.h"

#include "core/base/json_writer.h"
#include "core/export/atomic_file.h"
#include "core/export/op_summary_csv.h"
#include "core/export/stats_csv.h"

#include <charconv>
#include <cmath>

namespace xt {

using namespace timeline;

namespace {

double us(std::int64_t ns) {
    return double(ns) / 1000.0;
}
double us(double ns) {
    return ns / 1000.0;
}

// Percentages with two decimals, as HTA rounds them; nullopt for a share of nothing.
std::optional<double> pct(std::int64_t part, std::int64_t whole) {
    if (whole <= 0) return std::nullopt;
    return std::round(10000.0 * double(part) / double(whole)) / 100.0;
}
std::optional<double> round2(std::optional<double> v) {
    if (!v) return v;
    return std::round(*v * 100.0) / 100.0;
}

void optionalValue(JsonWriter& w, std::string_view key, std::optional<double> v) {
    if (v)
        w.field(key, *v);
    else
        w.key(key).null();
}

// The kernel type labels a report shows: the four of the schema always, any other
// combination when it took time.
std::vector<unsigned> kernelTypeMasks(const SessionAnalysis& a) {
    std::vector<unsigned> masks = {1, 2, 4, 3};
    for (unsigned m : {5u, 6u, 7u})
        for (const RankAnalysis& r : a.perRank)
            if (r.kernelTypes[m] > 0) {
                masks.push_back(m);
                break;
            }
    return masks;
}

ReportCell micros(std::int64_t ns) {
    ReportCell c;
    appendMicros(c.text, ns);
    c.value = us(ns);
    return c;
}
ReportCell microsD(std::optional<double> ns) {
    if (!ns) return {};
    return micros(static_cast<std::int64_t>(std::llround(*ns)));
}
ReportCell number(std::uint64_t v) {
    return {std::to_string(v), double(v)};
}
ReportCell integer(std::int64_t v) {
    return {std::to_string(v), double(v)};
}
ReportCell percent(std::optional<double> v) {
    if (!v) return {};
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, *v, std::chars_format::fixed, 2);
    return {std::string(buf, res.ptr), *v};
}
ReportCell text(std::string s) {
    return {std::move(s)};
}

// One rank's object in the JSON report.
void writeRankJson(JsonWriter& w, const RankTrace& rt, const RankAnalysis& a,
                   const std::vector<unsigned>& masks) {
    const TemporalBreakdown& t = a.temporal;
    w.beginObject();
    w.field("rank", rt.rank);
    w.field("file", rt.file);
    w.field("rank_source", rankSourceName(rt.source));
    w.key("temporal").beginObject();
    w.field("window_us", us(t.windowNs));
    w.field("idle_us", us(t.idleNs));
    w.field("compute_us", us(t.computeNs));
    w.field("non_compute_us", us(t.nonComputeNs));
    optionalValue(w, "idle_pct", pct(t.idleNs, t.windowNs));
    optionalValue(w, "compute_pct", pct(t.computeNs, t.windowNs));
    optionalValue(w, "non_compute_pct", pct(t.nonComputeNs, t.windowNs));
    w.endObject();
    optionalValue(w, "comm_comp_overlap_pct", round2(a.commCompOverlapPct()));
    w.key("kernel_types").beginObject();
    for (unsigned m : masks)
        w.field(kernelTypeMaskLabel(m), us(a.kernelTypes[m]));
    w.endObject();
    w.key("idle_by_cause").beginArray();
    for (const StreamIdle& s : a.idle) {
        w.beginObject();
        w.field("stream", s.stream);
        w.field("host_wait_us", us(s.hostWaitNs));
        w.field("kernel_wait_us", us(s.kernelWaitNs));
        w.field("other_us", us(s.otherNs));
        w.endObject();
    }
    w.endArray();
    w.key("launch").beginObject();
    w.field("kernels", a.launch.kernels);
    optionalValue(w, "launch_delay_p50_us",
                  a.launch.delayP50Ns ? std::optional(us(*a.launch.delayP50Ns)) : std::nullopt);
    optionalValue(w, "launch_delay_p95_us",
                  a.launch.delayP95Ns ? std::optional(us(*a.launch.delayP95Ns)) : std::nullopt);
    w.field("short_kernels", a.launch.shortKernels);
    w.field("runtime_outliers", a.launch.runtimeOutliers);
    w.field("launch_delay_outliers", a.launch.delayOutliers);
    w.endObject();
    w.field("collective_wait_us", us(a.collectiveWaitNs));
    w.key("steps").beginArray();
    for (const RankStep& st : a.steps) {
        w.beginObject();
        w.field("name", st.name);
        w.field("dur_us", us(st.durNs()));
        w.field("idle_us", us(st.idleNs));
        w.field("collective_wait_us", us(st.collectiveWaitNs));
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

} // namespace

std::string ranksReportJson(const RankSession& session, const SessionAnalysis& analysis) {
    JsonWriter w;
    const auto masks = kernelTypeMasks(analysis);
    w.beginObject();
    w.key("ranks").beginArray();
    for (std::size_t i = 0; i < analysis.perRank.size() && i < session.ranks.size(); ++i) {
        writeRankJson(w, session.ranks[i], analysis.perRank[i], masks);
    }
    w.endArray();
    w.key("steps").beginArray();
    for (const StepStraggler& s : analysis.steps) {
        w.beginObject();
        w.field("name", s.name);
        w.field("slowest_rank", s.slowestRank);
        w.field("skew_us", us(s.skewNs));
        w.key("dur_us_by_rank").beginObject();
        for (const auto& [rank, d] : s.durByRank)
            w.field(std::to_string(rank), us(d));
        w.endObject();
        w.endObject();
    }
    w.endArray();
    w.key("missing_ranks").beginArray();
    for (int r : session.missingRanks())
        w.value(r);
    w.endArray();
    w.key("top_kernels").beginArray();
    for (const TopKernel& k : analysis.topKernels) {
        w.beginObject();
        w.field("type", kernelTypeName(k.type));
        w.field("name", k.name);
        w.field("sum_us", us(k.sumNs));
        w.key("by_rank").beginObject();
        for (const auto& [rank, s] : k.ranks) {
            w.key(std::to_string(rank)).beginObject();
            w.field("count", s.count);
            w.field("sum_us", us(s.sumNs));
            w.field("mean_us", us(s.meanNs()));
            w.field("min_us", us(s.minNs));
            w.field("max_us", us(s.maxNs));
            w.endObject();
        }
        w.endObject();
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.take();
}

std::vector<ReportTable> ranksReportTables(const RankSession& session,
                                           const SessionAnalysis& analysis) {
    std::vector<ReportTable> out;
    const auto masks = kernelTypeMasks(analysis);
    const std::size_t n = std::min(session.ranks.size(), analysis.perRank.size());

    ReportTable ranks{"ranks",
                      {"rank", "file", "rank_source", "window_us", "idle_us", "compute_us",
                       "non_compute_us", "idle_pct", "compute_pct", "non_compute_pct",
                       "comm_comp_overlap_pct"},
                      {}};
    for (unsigned m : masks)
        ranks.columns.push_back(kernelTypeMaskLabel(m) + " (us)");
    for (const char* c :
         {"kernels", "launch_delay_p50_us", "launch_delay_p95_us", "short_kernels",
          "runtime_outliers", "launch_delay_outliers", "collective_wait_us", "steps"})
        ranks.columns.push_back(c);
    for (std::size_t i = 0; i < n; ++i) {
        const RankTrace& rt = session.ranks[i];
        const RankAnalysis& a = analysis.perRank[i];
        const TemporalBreakdown& t = a.temporal;
        std::vector<ReportCell> row = {integer(rt.rank),
                                       text(rt.file),
                                       text(rankSourceName(rt.source)),
                                       micros(t.windowNs),
                                       micros(t.idleNs),
                                       micros(t.computeNs),
                                       micros(t.nonComputeNs),
                                       percent(pct(t.idleNs, t.windowNs)),
                                       percent(pct(t.computeNs, t.windowNs)),
                                       percent(pct(t.nonComputeNs, t.windowNs)),
                                       percent(round2(a.commCompOverlapPct()))};
        for (unsigned m : masks)
            row.push_back(micros(a.kernelTypes[m]));
        row.push_back(number(a.launch.kernels));
        row.push_back(microsD(a.launch.delayP50Ns));
        row.push_back(microsD(a.launch.delayP95Ns));
        row.push_back(number(a.launch.shortKernels));
        row.push_back(number(a.launch.runtimeOutliers));
        row.push_back(number(a.launch.delayOutliers));
        row.push_back(micros(a.collectiveWaitNs));
        row.push_back(number(a.steps.size()));
        ranks.rows.push_back(std::move(row));
    }
    out.push_back(std::move(ranks));

    ReportTable idle{"idle_by_stream",
                     {"rank", "stream", "host_wait_us", "kernel_wait_us", "other_us", "idle_us"},
                     {}};
    for (std::size_t i = 0; i < n; ++i)
        for (const StreamIdle& s : analysis.perRank[i].idle)
            idle.rows.push_back({integer(session.ranks[i].rank), integer(s.stream),
                                 micros(s.hostWaitNs), micros(s.kernelWaitNs), micros(s.otherNs),
                                 micros(s.totalNs())});
    out.push_back(std::move(idle));

    ReportTable steps{"steps", {"rank", "step", "dur_us", "idle_us", "collective_wait_us"}, {}};
    for (std::size_t i = 0; i < n; ++i)
        for (const RankStep& st : analysis.perRank[i].steps)
            steps.rows.push_back({integer(session.ranks[i].rank), text(st.name), micros(st.durNs()),
                                  micros(st.idleNs), micros(st.collectiveWaitNs)});
    out.push_back(std::move(steps));

    ReportTable strag{"stragglers", {"step", "slowest_rank", "fastest_rank", "skew_us"}, {}};
    for (std::size_t i = 0; i < n; ++i)
        strag.columns.push_back("rank " + std::to_string(session.ranks[i].rank) + " (us)");
    for (const StepStraggler& s : analysis.steps) {
        std::vector<ReportCell> row = {text(s.name), integer(s.slowestRank), integer(s.fastestRank),
                                       micros(s.skewNs)};
        for (std::size_t i = 0; i < n; ++i) {
            ReportCell c;
            for (const auto& [rank, d] : s.durByRank)
                if (rank == session.ranks[i].rank) c = micros(d);
            row.push_back(std::move(c));
        }
        strag.rows.push_back(std::move(row));
    }
    out.push_back(std::move(strag));

    ReportTable top{"top_kernels",
                    {"type", "kernel", "rank", "count", "sum_us", "mean_us", "min_us", "max_us",
                     "mean_us_lowest_rank", "mean_us_highest_rank"},
                    {}};
    for (const TopKernel& k : analysis.topKernels) {
        double lo = 0, hi = 0;
        for (std::size_t j = 0; j < k.ranks.size(); ++j) {
            const double m = k.ranks[j].second.meanNs();
            lo = j ? std::min(lo, m) : m;
            hi = j ? std::max(hi, m) : m;
        }
        for (const auto& [rank, s] : k.ranks)
            top.rows.push_back({text(kernelTypeName(k.type)), text(k.name), integer(rank),
                                number(s.count), micros(s.sumNs), microsD(s.meanNs()),
                                micros(s.minNs), micros(s.maxNs), microsD(lo), microsD(hi)});
    }
    out.push_back(std::move(top));
    return out;
}

std::string reportTableCsv(const ReportTable& table) {
    std::string out;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (c) out += ',';
        appendCsvField(out, table.columns[c]);
    }
    out += '\n';
    for (const auto& row : table.rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c) out += ',';
            appendCsvField(out, row[c].text);
        }
        out += '\n';
    }
    return out;
}

Status writeReportTableCsv(const std::string& path, const ReportTable& table) {
    auto f = AtomicFile::create(path);
    if (!f) return f.status();
    f->write(reportTableCsv(table));
    return f->commit();
}

} // namespace xt
