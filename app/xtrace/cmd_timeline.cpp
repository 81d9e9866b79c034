// `xtrace timeline FILE [--summary] [--json] [--top N] [--csv OUT] [--chrome-compatible-flows]`:
// Chrome-trace import report and op summary. The --json shape is a contract (README "timeline
// --summary --json").
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"

#include "core/base/json_writer.h"
#include "core/export/op_summary_csv.h"
#include "core/open/trace_import.h"
#include "core/timeline/memory_peaks.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/step_breakdown.h"

#include <fmt/core.h>

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

namespace xt::cli {

namespace {

using namespace xt::timeline;

struct TimelineArgs {
    std::string file;
    bool summary = false;
    bool json = false;
    std::size_t top = 10;
    std::string csv;      // every op of every track (thread and async lanes), as CSV
    std::string stepsCsv; // the step breakdown, as CSV
    bool chromeCompatibleFlows = false;
};

std::vector<OpStat> topOps(const TraceStore& store, std::size_t top) {
    OpSummaryOptions o;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t)
        if (store.tracks()[t].kind == TrackKind::Thread) o.tracks.push_back(t);
    o.limit = top;
    return opSummary(store, o);
}

std::int64_t spanNs(const TraceStore& store) {
    return store.beginTime() == kNoTime ? 0 : store.endTime() - store.beginTime();
}

// An allocator's peak: its key, every allocation summed, and the tensors live at the peak.
void writeAllocatorPeak(JsonWriter& w, const TraceStore& store, const MemoryPeak& m) {
    w.field("allocator", store.str(store.counters()[m.series].key));
    w.field("allocated_bytes", m.allocatedBytes);
    w.key("live_tensors").beginArray();
    for (std::size_t i = 0; i < m.liveObjects.size(); ++i) {
        const ObjectLifetime& o = store.objects()[m.liveObjects[i]];
        w.beginObject();
        w.field("name", store.str(o.name));
        w.field("id", store.str(o.id));
        w.field("bytes", m.liveBytes[i]);
        w.key("op");
        if (m.producers[i] == kNoIndex)
            w.null();
        else
            w.value(store.str(store.sliceName()[m.producers[i]]));
        w.field("created_us", us(o.created));
        w.key("destroyed_us");
        if (o.destroyed == kNoTime)
            w.null();
        else
            w.value(us(o.destroyed));
        w.endObject();
    }
    w.endArray();
}

void writeJson(const TraceStore& store, const TimelineArgs& a) {
    const ImportReport& r = store.report();
    JsonWriter w;
    w.beginObject();
    w.field("events", r.events);
    w.key("phases").beginObject();
    for (const auto& [ph, n] : r.phases)
        w.field(ph, n);
    w.endObject();
    w.field("processes", static_cast<std::uint64_t>(store.processes().size()));
    w.field("threads", static_cast<std::uint64_t>(store.threads().size()));
    w.field("flows", static_cast<std::uint64_t>(store.flows().size()));
    w.field("counters", static_cast<std::uint64_t>(store.counters().size()));
    w.field("span_us", us(spanNs(store)));
    w.key("top").beginArray();
    for (const OpStat& s : topOps(store, a.top)) {
        w.beginObject();
        w.field("name", store.str(s.name));
        w.field("count", s.count);
        w.field("total_us", us(s.totalNs));
        w.field("self_us", us(s.selfNs));
        w.field("avg_us", s.avgNs() / 1000.0);
        w.field("min_us", us(s.minNs));
        w.field("max_us", us(s.maxNs));
        w.endObject();
    }
    w.endArray();
    w.key("warnings").beginObject();
    for (const auto& [code, n] : r.diagnostics.countsByCode())
        w.field(code, n);
    w.endObject();
    if (a.summary) {
        w.key("steps").beginArray();
        for (const StepBreakdown& s : stepBreakdown(store)) {
            w.beginObject();
            w.field("name", s.name);
            w.field("start_us", us(s.start));
            w.field("dur_us", us(s.end - s.start));
            w.field("bottleneck", stepCategoryName(s.bottleneck));
            w.key("categories_us").beginObject();
            for (std::size_t c = 0; c < kStepCategoryCount; ++c)
                w.field(stepCategoryName(static_cast<StepCategory>(c)), us(s.ns[c]));
            w.endObject();
            w.endObject();
        }
        w.endArray();
        w.key("memory").beginArray();
        for (const MemoryPeak& m : memoryPeaks(store)) {
            const CounterSeries& cs = store.counters()[m.series];
            w.beginObject();
            w.field("counter", store.str(cs.name));
            w.field("process", store.processLabel(cs.process));
            w.field("peak", m.peak);
            w.field("ts_us", us(m.ts));
            w.field("live_objects", static_cast<std::uint64_t>(m.liveObjects.size()));
            if (m.byAllocator) writeAllocatorPeak(w, store, m);
            w.endObject();
        }
        w.endArray();
    }
    w.endObject();
    std::fputs(w.str().c_str(), stdout);
    std::fputc('\n', stdout);
}

void writeText(const TraceStore& store, const TimelineArgs& a) {
    const ImportReport& r = store.report();
    fmt::print("file        {} ({}, {} bytes, {} bytes of JSON, {} form)\n", r.file, r.container,
               r.inputBytes, r.jsonBytes, r.objectForm ? "object" : "array");
    fmt::print("events      {}\n", r.events);
    std::string phases;
    for (const auto& [ph, n] : r.phases)
        phases += fmt::format("{}{}:{}", phases.empty() ? "" : " ", ph, n);
    fmt::print("phases      {}\n", phases);
    fmt::print("processes   {}  threads {}  slices {}  flows {}  counters {}  instants {}  "
               "objects {}\n",
               store.processes().size(), store.threads().size(), store.sliceCount(),
               store.flows().size(), store.counters().size(), store.instants().size(),
               store.objects().size());
    fmt::print("span        {:.3f} us\n", us(spanNs(store)));
    for (const auto& [code, n] : r.diagnostics.countsByCode())
        fmt::print("warning     {}: {}\n", code, n);
    if (!a.summary) return;
    fmt::print("\n{:>10} {:>14} {:>14} {:>12} {:>12} {:>12}  {}\n", "count", "total_us", "self_us",
               "avg_us", "min_us", "max_us", "name");
    for (const OpStat& s : topOps(store, a.top))
        fmt::print("{:>10} {:>14.3f} {:>14.3f} {:>12.3f} {:>12.3f} {:>12.3f}  {}\n", s.count,
                   us(s.totalNs), us(s.selfNs), s.avgNs() / 1000.0, us(s.minNs), us(s.maxNs),
                   store.str(s.name));
    const auto steps = stepBreakdown(store);
    if (!steps.empty()) {
        fmt::print("\nsteps\n");
        for (const StepBreakdown& s : steps) {
            fmt::print("  {:<24} {:>12.3f} us  bottleneck {}\n", s.name, us(s.end - s.start),
                       stepCategoryName(s.bottleneck));
        }
    }
    const auto peaks = memoryPeaks(store);
    if (!peaks.empty()) {
        fmt::print("\ncounter peaks\n");
        for (std::size_t i = 0; i < peaks.size() && i < a.top; ++i) {
            const CounterSeries& cs = store.counters()[peaks[i].series];
            fmt::print("  {:<40} peak {} at {:.3f} us ({} live objects", store.str(cs.name),
                       peaks[i].peak, us(peaks[i].ts), peaks[i].liveObjects.size());
            if (peaks[i].byAllocator)
                fmt::print(" of the allocator; {} bytes allocated in all", peaks[i].allocatedBytes);
            fmt::print(")\n");
        }
    }
}

int runTimeline(const TimelineArgs& a) {
    ImportOptions opts;
    opts.chromeCompatibleFlows = a.chromeCompatibleFlows;
    if (isatty(STDERR_FILENO)) {
        opts.progress = [last = -1](const ProgressReport& p) mutable {
            if (p.total == 0) return true;
            const int pct = static_cast<int>(100.0 * p.done / p.total);
            if (pct != last) {
                last = pct;
                std::fprintf(stderr, "\r%.*s %3d%%", static_cast<int>(p.stage.size()),
                             p.stage.data(), pct);
                if (pct == 100) std::fputc('\n', stderr);
            }
            return true;
        };
    }
    std::string local;
    if (const int rc = resolveTimeline(a.file, local); rc != kExitOk) return rc;
    auto store = open::importTimeline(local, opts);
    if (!store) {
        std::fprintf(stderr, "xtrace timeline: %s\n", store.status().toString().c_str());
        return kExitUnreadable;
    }
    // A few located examples on stderr; the full counts are in the report.
    const Diagnostics& diags = store->report().diagnostics;
    std::size_t shown = 0, warnings = 0;
    for (const auto& d : diags.items()) {
        if (d.severity == Severity::Info) continue;
        ++warnings;
        if (shown < 10) {
            std::fprintf(stderr, "%s\n", d.toString().c_str());
            ++shown;
        }
    }
    if (warnings > shown) std::fprintf(stderr, "... more warnings, counted by reason below\n");
    if (!a.csv.empty()) {
        const Status st = writeOpSummaryCsv(a.csv, *store, opSummary(*store), false);
        if (!st) {
            std::fprintf(stderr, "xtrace timeline: %s\n", st.toString().c_str());
            return 2;
        }
    }
    if (!a.stepsCsv.empty()) {
        const Status st = writeStepBreakdownCsv(a.stepsCsv, stepBreakdown(*store));
        if (!st) {
            std::fprintf(stderr, "xtrace timeline: %s\n", st.toString().c_str());
            return 2;
        }
    }
    if (a.json)
        writeJson(*store, a);
    else
        writeText(*store, a);
    return 0;
}

} // namespace

void addTimelineCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<TimelineArgs>();
    CLI::App* cmd = app.add_subcommand(
        "timeline",
        "Chrome trace (.json/.json.gz/.gz/.zip) or TensorFlow RunMetadata/StepStats (.pb) summary");
    cmd->add_option("FILE", args->file, "trace file")->required();
    cmd->add_flag("--summary", args->summary, "op table, step breakdown and counter peaks");
    cmd->add_flag("--json", args->json, "machine-readable output (shape in the README)");
    cmd->add_option("--top", args->top, "rows of the op table (default 10)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--csv", args->csv,
                    "write the whole op summary (every op, thread and async tracks) as CSV");
    cmd->add_flag("--chrome-compatible-flows", args->chromeCompatibleFlows,
                  "drop flow steps and ends that come before their start, as chrome://tracing "
                  "does (default: draw them as arrows back in time)");
    cmd->add_option("--steps-csv", args->stepsCsv,
                    "write the step breakdown (time per category of every step) as CSV");
    cmd->callback([args, &exitCode] { exitCode = runTimeline(*args); });
}

} // namespace xt::cli
