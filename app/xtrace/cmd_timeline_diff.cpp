// `xtrace timeline-diff BASE CAND [--step-a NAME] [--step-b NAME] [--by-category] [--top N]
// [--sort KEY] [--json] [--csv OUT]`: the op summary diff of two Chrome traces (or of two steps
// of one trace), regressions first. The --json shape is documented in README ("timeline-diff").
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"

#include "core/base/json_writer.h"
#include "core/export/op_summary_csv.h"
#include "core/open/trace_import.h"
#include "core/timeline/op_summary_diff.h"
#include "core/timeline/step_breakdown.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace xt::cli {

namespace {

using namespace xt::timeline;

struct DiffArgs {
    std::string base, cand;
    std::string stepA, stepB;
    bool byCategory = false;
    bool json = false;
    std::size_t top = 20;
    std::string sort = "total";
    std::string csv;
};

// "3" -> "ProfilerStep#3"; anything else is the marker's full name.
std::string stepName(const std::string& s) {
    const bool digits = !s.empty() && std::all_of(s.begin(), s.end(),
                                                  [](unsigned char c) { return std::isdigit(c); });
    return digits ? "ProfilerStep#" + s : s;
}

struct Side {
    std::string file;
    std::string step; // empty: whole trace
    TimeWindow window;
};

void writeSide(JsonWriter& w, const Side& s, std::int64_t totalNs, std::uint64_t slices) {
    w.beginObject();
    w.field("file", s.file);
    if (s.step.empty()) {
        w.key("step").null();
    } else {
        w.field("step", s.step);
        w.field("start_us", us(s.window.t0));
        w.field("end_us", us(s.window.t1));
    }
    w.field("total_us", us(totalNs));
    w.field("slices", slices);
    w.endObject();
}

void writeJson(const OpDiff& d, const Side& a, const Side& b, bool byCategory, std::size_t ops) {
    JsonWriter w;
    w.beginObject();
    w.key("baseline");
    writeSide(w, a, d.totalA, d.countA);
    w.key("candidate");
    writeSide(w, b, d.totalB, d.countB);
    w.field("by_category", byCategory);
    w.field("ops", static_cast<std::uint64_t>(ops));
    w.field("only_a", static_cast<std::uint64_t>(d.onlyA));
    w.field("only_b", static_cast<std::uint64_t>(d.onlyB));
    w.field("total_delta_us", us(d.totalB - d.totalA));
    w.key("rows").beginArray();
    for (const OpDiffRow& r : d.rows) {
        w.beginObject();
        w.field("name", r.name);
        if (byCategory) w.field("category", r.cat);
        w.field("status", opPresenceName(r.presence));
        w.field("count_a", r.countA);
        w.field("count_b", r.countB);
        w.field("count_delta", r.countDelta());
        w.field("total_a_us", us(r.totalA));
        w.field("total_b_us", us(r.totalB));
        w.field("total_delta_us", us(r.totalDelta()));
        w.field("self_a_us", us(r.selfA));
        w.field("self_b_us", us(r.selfB));
        w.field("self_delta_us", us(r.selfDelta()));
        w.field("avg_a_us", r.avgA / 1000.0);
        w.field("avg_b_us", r.avgB / 1000.0);
        w.field("avg_delta_us", r.avgDelta() / 1000.0);
        if (const auto rel = r.relativeChange())
            w.field("relative_change", *rel);
        else
            w.key("relative_change").null();
        w.endObject();
    }
    w.endArray();
    w.endObject();
    std::fputs(w.str().c_str(), stdout);
    std::fputc('\n', stdout);
}

void writeText(const OpDiff& d, const Side& a, const Side& b, bool byCategory, std::size_t ops) {
    auto label = [](const Side& s) {
        return s.step.empty() ? s.file : fmt::format("{} [{}]", s.file, s.step);
    };
    fmt::print("baseline    {}  total {:.3f} us, {} slices\n", label(a), us(d.totalA), d.countA);
    fmt::print("candidate   {}  total {:.3f} us, {} slices\n", label(b), us(d.totalB), d.countB);
    fmt::print("delta       {:+.3f} us over {} ops ({} only in baseline, {} only in candidate)\n\n",
               us(d.totalB - d.totalA), ops, d.onlyA, d.onlyB);
    fmt::print("{:>8} {:>8} {:>14} {:>14} {:>14} {:>9}  {}\n", "count_a", "count_b", "total_a_us",
               "total_b_us", "delta_us", "change", "name");
    for (const OpDiffRow& r : d.rows) {
        const auto rel = r.relativeChange();
        const std::string change = r.presence == OpPresence::OnlyCandidate ? "new"
                                   : r.presence == OpPresence::OnlyBaseline
                                       ? "gone"
                                       : fmt::format("{:+.1f}%", rel.value_or(0) * 100);
        fmt::print("{:>8} {:>8} {:>14.3f} {:>14.3f} {:>+14.3f} {:>9}  {}{}\n", r.countA, r.countB,
                   us(r.totalA), us(r.totalB), us(r.totalDelta()), change, r.name,
                   byCategory ? " [" + r.cat + "]" : std::string());
    }
}

int runDiff(const DiffArgs& args) {
    static const std::map<std::string, OpDiffSortKey> kSort = {
        {"total", OpDiffSortKey::TotalDelta},  {"self", OpDiffSortKey::SelfDelta},
        {"avg", OpDiffSortKey::AvgDelta},      {"count", OpDiffSortKey::CountDelta},
        {"relative", OpDiffSortKey::Relative}, {"name", OpDiffSortKey::Name}};
    const auto sortIt = kSort.find(args.sort);
    if (sortIt == kSort.end()) {
        std::fprintf(stderr, "xtrace timeline-diff: unknown --sort '%s'\n", args.sort.c_str());
        return 1;
    }
    std::string localA, localB;
    if (const int rc = resolveTimeline(args.base, localA); rc != kExitOk) return rc;
    if (const int rc = resolveTimeline(args.cand, localB); rc != kExitOk) return rc;
    auto a = open::importTimeline(localA);
    if (!a) {
        std::fprintf(stderr, "xtrace timeline-diff: %s\n", a.status().toString().c_str());
        return 2;
    }
    // The same file twice (two steps of one trace) is imported once.
    std::optional<Result<TraceStore>> bOwned;
    const TraceStore* b = &*a;
    if (args.cand != args.base) {
        bOwned.emplace(open::importTimeline(localB));
        if (!*bOwned) {
            std::fprintf(stderr, "xtrace timeline-diff: %s\n", bOwned->status().toString().c_str());
            return 2;
        }
        b = &bOwned->value();
    }
    Side sa{args.base, args.stepA.empty() ? "" : stepName(args.stepA), {}};
    Side sb{args.cand, args.stepB.empty() ? sa.step : stepName(args.stepB), {}};
    OpDiffOptions o;
    o.byCategory = args.byCategory;
    o.sortBy = sortIt->second;
    o.descending = o.sortBy != OpDiffSortKey::Name;
    using SideOf = std::pair<Side*, const TraceStore*>;
    for (auto [side, store] : {SideOf{&sa, &*a}, SideOf{&sb, b}}) {
        if (side->step.empty()) continue;
        const auto w = findStepWindow(*store, side->step);
        if (!w) {
            std::string known;
            std::size_t n = 0;
            for (const StepBreakdown& s : stepBreakdown(*store)) {
                if (n++ == 8) {
                    known += " ...";
                    break;
                }
                known += " " + s.name;
            }
            std::fprintf(stderr, "xtrace timeline-diff: no step '%s' in %s (steps:%s)\n",
                         side->step.c_str(), side->file.c_str(),
                         known.empty() ? " none" : known.c_str());
            return 1;
        }
        side->window = *w;
        // The markers themselves would show as ops on one side only.
        o.excludeNames.push_back(side->step);
    }
    o.windowA = sa.window;
    o.windowB = sb.window;
    OpDiff d = diffOpSummaries(*a, *b, o);
    const std::size_t ops = d.rows.size();
    if (!args.csv.empty()) {
        const Status st = writeOpDiffCsv(args.csv, d, args.byCategory);
        if (!st) {
            std::fprintf(stderr, "xtrace timeline-diff: %s\n", st.toString().c_str());
            return 2;
        }
    }
    if (args.top && d.rows.size() > args.top) d.rows.resize(args.top);
    if (args.json)
        writeJson(d, sa, sb, args.byCategory, ops);
    else
        writeText(d, sa, sb, args.byCategory, ops);
    return 0;
}

} // namespace

void addTimelineDiffCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<DiffArgs>();
    CLI::App* cmd = app.add_subcommand(
        "timeline-diff", "op summary diff of two Chrome traces, or of two steps of one trace");
    cmd->add_option("BASE", args->base, "baseline trace (A)")->required();
    cmd->add_option("CAND", args->cand, "candidate trace (B)")->required();
    cmd->add_option("--step-a", args->stepA,
                    "only the window of this step marker in BASE (\"ProfilerStep#3\" or \"3\")");
    cmd->add_option("--step-b", args->stepB, "the step window in CAND (default: --step-a)");
    cmd->add_flag("--by-category", args->byCategory, "one row per (name, category)");
    cmd->add_option("--top", args->top, "rows printed (default 20; 0: all)");
    cmd->add_option("--sort", args->sort, "total (default), self, avg, count, relative or name");
    cmd->add_flag("--json", args->json, "machine-readable output (see README)");
    cmd->add_option("--csv", args->csv, "write every row of the diff as CSV to this file");
    cmd->callback([args, &exitCode] { exitCode = runDiff(*args); });
}

} // namespace xt::cli
