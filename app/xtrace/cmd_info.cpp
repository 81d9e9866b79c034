// xtrace info PATH... [--json]: runs, ranks, parts, keys, ranges, metas and diagnostics.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/base/json_writer.h"
#include "core/xdl/key_summary.h"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <limits>

namespace xt::cli {

namespace {

struct Range {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    void add(std::int64_t v) { lo = std::min(lo, v), hi = std::max(hi, v); }
    void add(const Range& r) {
        if (!r.empty()) add(r.lo), add(r.hi);
    }
    bool empty() const { return lo > hi; }
};

struct Ranges {
    Range gstep, lstep, timestamp;
    std::uint64_t records = 0, bytes = 0;
    void add(const Ranges& o) {
        gstep.add(o.gstep), lstep.add(o.lstep), timestamp.add(o.timestamp);
        records += o.records, bytes += o.bytes;
    }
};

Ranges partRanges(const xdl::PartReader& p) {
    Ranges r;
    for (const auto& e : p.index().records()) {
        r.gstep.add(e.gstep), r.lstep.add(e.lstep), r.timestamp.add(e.timestamp);
    }
    r.records = p.index().records().size();
    r.bytes = p.part().size;
    return r;
}

Ranges rankRanges(const xdl::RankReader& rank) {
    Ranges r;
    for (const auto& p : rank.parts())
        r.add(partRanges(*p));
    return r;
}

std::string rangeText(const Range& r) {
    return r.empty()      ? "-"
           : r.lo == r.hi ? std::to_string(r.lo)
                          : fmt::format("{}..{}", r.lo, r.hi);
}

std::string timeText(const Range& r) {
    if (r.empty()) return "-";
    return fmt::format("{} .. {} ({})", formatTimestampMs(r.lo), formatTimestampMs(r.hi),
                       formatDurationMs(r.hi - r.lo));
}

std::string keyTypeText(const xdl::KeySummary& k) {
    if (!k.dtype) return k.emptyRecords ? "(empty)" : "(no data)";
    std::string s = fmt::format("{} {}", xdl::dtypeName(*k.dtype), k.shape.toString());
    if (k.mixedDtypes) s += " (mixed dtypes)";
    if (k.varyingShape) s += " (shape varies)";
    return s;
}

void printText(const std::vector<xdl::RunReader>& runs, const std::vector<std::string>& labels,
               const std::vector<std::vector<xdl::KeySummary>>& keys) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i];
        Ranges total;
        std::size_t parts = 0;
        for (const auto& r : run.ranks())
            total.add(rankRanges(r)), parts += r.parts().size();
        fmt::print("run {}\n  {} rank(s), {} part file(s), {} record(s), {}\n", labels[i],
                   run.ranks().size(), parts, total.records, formatBytes(total.bytes));
        fmt::print("  gstep {}, lstep {}\n  time {}\n", rangeText(total.gstep),
                   rangeText(total.lstep), timeText(total.timestamp));
        fmt::print("  keys ({}):\n", keys[i].size());
        std::size_t width = 0;
        for (const auto& k : keys[i])
            width = std::max(width, k.key.size());
        for (const auto& k : keys[i]) {
            std::string extra;
            if (k.emptyRecords) extra += fmt::format(", {} empty", k.emptyRecords);
            if (k.damagedRecords) extra += fmt::format(", {} damaged", k.damagedRecords);
            fmt::print("    {:<{}}  {}  ({} record(s){})\n", k.key, width, keyTypeText(k),
                       k.records, extra);
        }
        for (const auto& rank : run.ranks()) {
            Ranges rr = rankRanges(rank);
            fmt::print("  rank {}: {} part(s), {} record(s), gstep {}, lstep {}\n", rank.rank(),
                       rank.parts().size(), rr.records, rangeText(rr.gstep), rangeText(rr.lstep));
            for (const auto& p : rank.parts()) {
                Ranges pr = partRanges(*p);
                fmt::print("    part {:>3}  {}  {:>9}  {} record(s)  gstep {}  meta {}\n",
                           p->part().index, p->part().path, formatBytes(pr.bytes), pr.records,
                           rangeText(pr.gstep), xdl::metaStateName(p->part().metaState));
            }
        }
    }
}

void writeRange(JsonWriter& w, std::string_view name, const Range& r) {
    w.key(name);
    if (r.empty()) {
        w.null();
        return;
    }
    w.beginArray().value(r.lo).value(r.hi).endArray();
}

void writeRanges(JsonWriter& w, const Ranges& r) {
    w.field("records", r.records).field("bytes", r.bytes);
    writeRange(w, "gstep", r.gstep);
    writeRange(w, "lstep", r.lstep);
    writeRange(w, "timestamp", r.timestamp);
}

void printJson(const std::vector<xdl::RunReader>& runs, const std::vector<std::string>& labels,
               const std::vector<std::vector<xdl::KeySummary>>& keys, const Diagnostics& diag) {
    JsonWriter w(true);
    w.beginObject().key("runs").beginArray();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i];
        Ranges total;
        for (const auto& r : run.ranks())
            total.add(rankRanges(r));
        w.beginObject()
            .field("label", labels[i])
            .field("directory", run.files().directory)
            .field("prefix", run.files().prefix)
            .field("name", run.files().name);
        writeRanges(w, total);
        w.key("keys").beginArray();
        for (const auto& k : keys[i]) {
            w.beginObject().field("name", k.key);
            if (k.dtype) {
                w.field("dtype", xdl::dtypeName(*k.dtype));
                w.key("shape").beginArray();
                for (auto d : k.shape.view())
                    w.value(d);
                w.endArray();
            } else {
                w.key("dtype").null().key("shape").null();
            }
            w.field("mixed_dtypes", k.mixedDtypes)
                .field("varying_shape", k.varyingShape)
                .field("records", k.records)
                .field("empty_records", k.emptyRecords)
                .field("damaged_records", k.damagedRecords)
                .endObject();
        }
        w.endArray().key("ranks").beginArray();
        for (const auto& rank : run.ranks()) {
            w.beginObject().field("rank", rank.rank());
            writeRanges(w, rankRanges(rank));
            w.key("missing_parts").beginArray();
            for (const auto& rf : run.files().ranks)
                if (rf.rank == rank.rank())
                    for (auto m : rf.missingIndices)
                        w.value(m);
            w.endArray().key("parts").beginArray();
            for (const auto& p : rank.parts()) {
                const auto& pf = p->part();
                w.beginObject().field("path", pf.path).field("index", pf.index);
                writeRanges(w, partRanges(*p));
                w.field("has_header", p->index().hasHeader())
                    .field("unindexed_tail_bytes", pf.size - p->index().scannedTo())
                    .field("meta", xdl::metaStateName(pf.metaState));
                if (pf.metaState == xdl::MetaState::Finalised) {
                    w.key("meta_values")
                        .beginObject()
                        .field("lstep_begin", pf.meta.lstepBegin)
                        .field("lstep_end", pf.meta.lstepEnd)
                        .field("gstep_begin", pf.meta.gstepBegin)
                        .field("gstep_end", pf.meta.gstepEnd)
                        .field("timestamp_begin", pf.meta.timestampBegin)
                        .field("timestamp_end", pf.meta.timestampEnd)
                        .endObject();
                }
                w.endObject();
            }
            w.endArray().endObject();
        }
        w.endArray().endObject();
    }
    w.endArray().key("diagnostics").beginObject();
    w.field("total", diag.total()).field("errors", diag.errorCount());
    w.key("by_code").beginObject();
    for (const auto& [code, n] : diag.countsByCode())
        w.field(code, n);
    w.endObject().key("items").beginArray();
    for (const auto& d : diag.items()) {
        w.beginObject()
            .field("severity", severityName(d.severity))
            .field("code", d.code)
            .field("file", d.file);
        if (d.offset != Diagnostic::kNoOffset)
            w.field("offset", d.offset);
        else
            w.key("offset").null();
        w.key("record");
        if (d.record >= 0)
            w.value(d.record);
        else
            w.null();
        w.field("message", d.message).endObject();
    }
    w.endArray().endObject().endObject();
    std::fputs(w.str().c_str(), stdout);
    std::fputc('\n', stdout);
}

} // namespace

void addInfoCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "info", "Runs, ranks, part files, keys (dtype, shape), record counts, step and time "
                "ranges, metas and diagnostics");
    struct Opts {
        std::vector<std::string> paths;
        bool json = false;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->paths, "data files, run directories or glob patterns")
        ->required();
    cmd->add_flag("--json", opts->json, "machine-readable output");
    cmd->callback([opts, &exitCode] {
        Diagnostics diag;
        std::vector<xdl::RunReader> runs;
        std::vector<std::string> labels; // hdfs:// runs by their URL, not their local mirror
        if ((exitCode = openRuns(opts->paths, diag, runs, &labels)) != kExitOk) return;
        std::vector<std::vector<xdl::KeySummary>> keys;
        ProgressBar bar;
        for (const auto& run : runs) {
            auto k = xdl::summarizeKeys(run, diag, bar.callback());
            if (!k) {
                std::fprintf(stderr, "xtrace: %s\n", k.status().message().c_str());
                exitCode = kExitUnreadable;
                return;
            }
            keys.push_back(std::move(*k));
        }
        bar.finish();
        if (opts->json)
            printJson(runs, labels, keys, diag);
        else
            printText(runs, labels, keys);
        printDiagnostics(diag);
    });
}

} // namespace xt::cli
