// xtrace diff RUN_A RUN_B [--key REGEX] [--align gstep|lstep|relative] [--rank R] [--rank-b R]
//             [--atol X] [--rtol X] [--json]
// Compares two runs rank by rank (or two ranks, e.g. of one run) per key and aligned step.
#include "app/xtrace/analysis_options.h"
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/analysis/run_compare.h"
#include "core/base/json_writer.h"

#include <cstdio>
#include <fmt/format.h>
#include <optional>

namespace xt::cli {

namespace {

struct RankPair {
    const xdl::RankReader* a;
    const xdl::RankReader* b;
};

void optionalField(JsonWriter& w, std::string_view name, const std::optional<std::int64_t>& v) {
    w.key(name);
    if (v)
        w.value(*v);
    else
        w.null();
}

void stepArray(JsonWriter& w, std::string_view name, const std::vector<std::int64_t>& v) {
    w.key(name).beginArray();
    for (auto s : v)
        w.value(s);
    w.endArray();
}

void stringArray(JsonWriter& w, std::string_view name, const std::vector<std::string>& v) {
    w.key(name).beginArray();
    for (const auto& s : v)
        w.value(s);
    w.endArray();
}

void writeKey(JsonWriter& w, const analysis::KeyDiff& k) {
    w.beginObject();
    w.field("key", k.key);
    w.field("steps_compared", std::uint64_t(k.steps.size()));
    optionalField(w, "first_diff_exact", k.firstDiffExact);
    optionalField(w, "first_diff_tolerance", k.firstDiffTolerance);
    optionalField(w, "first_nan_only_a", k.firstNanOnlyA);
    optionalField(w, "first_nan_only_b", k.firstNanOnlyB);
    optionalField(w, "first_inf_only_a", k.firstInfOnlyA);
    optionalField(w, "first_inf_only_b", k.firstInfOnlyB);
    stepArray(w, "steps_only_a", k.stepsOnlyA);
    stepArray(w, "steps_only_b", k.stepsOnlyB);
    w.key("steps").beginArray();
    for (const auto& d : k.steps) {
        w.beginObject();
        w.field("step", d.step).field("elements", d.elements);
        w.field("bit_exact", d.bitExact).field("within_tolerance", d.withinTolerance);
        w.field("shape_mismatch", d.shapeMismatch);
        w.field("max_abs", d.maxAbs).field("max_rel", d.maxRel);
        w.field("nan_only_a", d.nanOnlyA).field("nan_only_b", d.nanOnlyB);
        w.field("inf_only_a", d.infOnlyA).field("inf_only_b", d.infOnlyB);
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

std::string stepText(const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : std::string("-");
}

void printText(const RankPair& p, const analysis::RunDiff& d, const char* align) {
    fmt::print("# rank {} vs rank {} (aligned by {})\n", p.a->rank(), p.b->rank(), align);
    for (const auto& k : d.keysOnlyA)
        fmt::print("only in A: {}\n", k);
    for (const auto& k : d.keysOnlyB)
        fmt::print("only in B: {}\n", k);
    fmt::print("# key steps first_diff_exact first_diff_tolerance max_abs max_rel nan_only_a "
               "nan_only_b steps_only_a steps_only_b\n");
    for (const auto& k : d.keys) {
        double maxAbs = 0, maxRel = 0;
        std::uint64_t nanA = 0, nanB = 0;
        bool shape = false;
        for (const auto& s : k.steps) {
            maxAbs = std::max(maxAbs, s.maxAbs);
            maxRel = std::max(maxRel, s.maxRel);
            nanA += s.nanOnlyA;
            nanB += s.nanOnlyB;
            shape = shape || s.shapeMismatch;
        }
        fmt::print("{} {} {} {} {} {} {} {} {} {}{}\n", k.key, k.steps.size(),
                   stepText(k.firstDiffExact), stepText(k.firstDiffTolerance), maxAbs, maxRel, nanA,
                   nanB, k.stepsOnlyA.size(), k.stepsOnlyB.size(),
                   shape ? " (dtype/shape differ)" : "");
    }
}

// The single run under `path` and its label, or an exit status.
int openOne(const std::string& path, Diagnostics& diag, std::vector<xdl::RunReader>& runs,
            std::vector<std::string>& labels) {
    int rc = openRuns({path}, diag, runs, &labels);
    if (rc != kExitOk) return rc;
    if (runs.size() != 1) {
        std::fprintf(stderr, "xtrace: '%s' holds %zu runs; name one run\n", path.c_str(),
                     runs.size());
        return kExitUsage;
    }
    return kExitOk;
}

} // namespace

void addDiffCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "diff", "Compare two runs (or two ranks) per key and aligned step: first divergence, "
                "max abs/rel difference, NaN/Inf on one side, keys/steps on one side");
    struct Opts {
        std::string a, b, key, align = "gstep";
        std::optional<int> rank, rankB;
        double atol = 1e-8, rtol = 1e-5;
        bool json = false;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("RUN_A", opts->a, "first run (data file, directory or glob)")->required();
    cmd->add_option("RUN_B", opts->b, "second run (may be the same run with --rank-b)")->required();
    cmd->add_option("--key", opts->key, "only keys matching this regex (anchor with ^...$)");
    cmd->add_option("--align", opts->align,
                    "align records by global step, local step, or relative step (gstep minus "
                    "each side's first gstep)")
        ->check(CLI::IsMember({"gstep", "lstep", "relative"}));
    cmd->add_option("--rank", opts->rank, "rank of RUN_A (default: every rank in both runs)");
    cmd->add_option("--rank-b", opts->rankB, "rank of RUN_B (default: the same as --rank)");
    cmd->add_option("--atol", opts->atol, "absolute tolerance (|a-b| <= atol + rtol*|b|)");
    cmd->add_option("--rtol", opts->rtol, "relative tolerance");
    cmd->add_flag("--json", opts->json, "machine-readable output");
    cmd->callback([opts, &exitCode] {
        analysis::CompareOptions co;
        if (!makeKeyFilter(opts->key, co.keyFilter)) {
            exitCode = kExitUsage;
            return;
        }
        co.align = *analysis::parseStepAlign(opts->align);
        co.atol = opts->atol;
        co.rtol = opts->rtol;
        if (opts->rankB && !opts->rank) {
            std::fprintf(stderr, "xtrace: --rank-b needs --rank\n");
            exitCode = kExitUsage;
            return;
        }
        Diagnostics diag;
        std::vector<xdl::RunReader> runsA, runsB;
        std::vector<std::string> labelsA, labelsB;
        if ((exitCode = openOne(opts->a, diag, runsA, labelsA)) != kExitOk) return;
        if ((exitCode = openOne(opts->b, diag, runsB, labelsB)) != kExitOk) return;
        const auto& ra = runsA[0];
        const auto& rb = runsB[0];

        std::vector<RankPair> pairs;
        std::vector<int> onlyA, onlyB;
        if (opts->rank) {
            const auto* a = ra.rank(*opts->rank);
            const auto* b = rb.rank(opts->rankB.value_or(*opts->rank));
            if (!a || !b) {
                std::fprintf(stderr, "xtrace: rank %d not found in %s\n",
                             !a ? *opts->rank : opts->rankB.value_or(*opts->rank),
                             !a ? "RUN_A" : "RUN_B");
                exitCode = kExitUnreadable;
                return;
            }
            pairs.push_back({a, b});
        } else {
            for (const auto& a : ra.ranks()) {
                if (const auto* b = rb.rank(a.rank()))
                    pairs.push_back({&a, b});
                else
                    onlyA.push_back(a.rank());
            }
            for (const auto& b : rb.ranks())
                if (!ra.rank(b.rank())) onlyB.push_back(b.rank());
        }

        JsonWriter w(true);
        w.beginObject();
        w.field("a", labelsA[0]).field("b", labelsB[0]);
        w.field("align", opts->align).field("atol", co.atol).field("rtol", co.rtol);
        w.key("ranks_only_a").beginArray();
        for (int r : onlyA)
            w.value(r);
        w.endArray().key("ranks_only_b").beginArray();
        for (int r : onlyB)
            w.value(r);
        w.endArray().key("ranks").beginArray();
        for (const auto& p : pairs) {
            ProgressBar bar;
            auto d = analysis::compareRanks(*p.a, *p.b, co, diag, bar.callback());
            bar.finish();
            if (!d) {
                std::fprintf(stderr, "xtrace: %s\n", d.status().message().c_str());
                printDiagnostics(diag);
                exitCode = kExitUnreadable;
                return;
            }
            if (!opts->json) {
                printText(p, *d, opts->align.c_str());
                continue;
            }
            w.beginObject().field("rank_a", p.a->rank()).field("rank_b", p.b->rank());
            stringArray(w, "keys_only_a", d->keysOnlyA);
            stringArray(w, "keys_only_b", d->keysOnlyB);
            w.key("keys").beginArray();
            for (const auto& k : d->keys)
                writeKey(w, k);
            w.endArray().endObject();
        }
        w.endArray().endObject();
        if (opts->json) {
            std::printf("%s\n", w.str().c_str());
        } else {
            for (int r : onlyA)
                fmt::print("rank only in A: {}\n", r);
            for (int r : onlyB)
                fmt::print("rank only in B: {}\n", r);
        }
        printDiagnostics(diag);
        exitCode = kExitOk;
    });
}

} // namespace xt::cli
