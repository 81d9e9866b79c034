// xtrace dump PATH --key K [--step G] [--rank R]: one tensor's values as text.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"

#include <cstdio>
#include <fmt/format.h>
#include <optional>

namespace xt::cli {

namespace {

std::string formatValue(const xdl::TensorView& t, std::size_t i) {
    switch (t.dtype()) {
    case xdl::Dtype::Float:
        return fmt::format("{}", t.at<float>(i));
    case xdl::Dtype::Double:
        return fmt::format("{}", t.at<double>(i));
    case xdl::Dtype::Int8:
        return fmt::format("{}", t.at<std::int8_t>(i));
    case xdl::Dtype::Int16:
        return fmt::format("{}", t.at<std::int16_t>(i));
    case xdl::Dtype::Int32:
        return fmt::format("{}", t.at<std::int32_t>(i));
    case xdl::Dtype::Int64:
        return fmt::format("{}", t.at<std::int64_t>(i));
    case xdl::Dtype::Bool:
        return t.at<std::uint8_t>(i) ? "true" : "false";
    case xdl::Dtype::Byte:
        return fmt::format("{}", t.at<std::uint8_t>(i));
    }
    return "?";
}

// Values laid out by the last dimension: one row per line, blank lines between 2-D slices.
void printValues(const xdl::TensorView& t) {
    const auto dims = t.shape().view();
    std::size_t row =
        dims.empty() ? 1 : static_cast<std::size_t>(std::max<std::int64_t>(dims.back(), 1));
    std::size_t plane =
        dims.size() >= 2 ? row * static_cast<std::size_t>(dims[dims.size() - 2]) : 0;
    std::string line;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (i && plane && i % plane == 0) std::fputc('\n', stdout);
        line += formatValue(t, i);
        if ((i + 1) % row == 0 || i + 1 == t.size()) {
            std::fputs(line.c_str(), stdout);
            std::fputc('\n', stdout);
            line.clear();
        } else {
            line += ' ';
        }
    }
}

} // namespace

void addDumpCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand("dump", "Print a key's tensor values at a step as text");
    struct Opts {
        std::string path, key;
        std::optional<std::int64_t> step;
        std::optional<int> rank;
    };
    auto opts = std::make_shared<Opts>();
    cmd->add_option("PATH", opts->path, "data file, run directory or glob pattern")->required();
    cmd->add_option("--key", opts->key, "the key (tensor name)")->required();
    cmd->add_option("--step", opts->step,
                    "global step (default: the first record holding data for the key)");
    cmd->add_option("--rank", opts->rank, "worker rank (default: the lowest)");
    cmd->callback([opts, &exitCode] {
        Diagnostics diag;
        std::vector<xdl::RunReader> runs;
        std::vector<std::string> labels;
        if ((exitCode = openRuns({opts->path}, diag, runs, &labels)) != kExitOk) return;
        printDiagnostics(diag);
        for (std::size_t ri = 0; ri < runs.size(); ++ri) {
            const auto& run = runs[ri];
            for (const auto& rank : run.ranks()) {
                if (opts->rank && rank.rank() != *opts->rank) continue;
                std::optional<std::size_t> found;
                Status problem;
                for (std::size_t i = 0; i < rank.recordCount() && !found; ++i) {
                    if (opts->step && rank.entry(i).gstep != *opts->step) continue;
                    auto t = rank.tensor(i, opts->key);
                    if (!t) {
                        if (t.status().code() != ErrorCode::NotFound) problem = t.status();
                        continue;
                    }
                    if (!t->empty() || opts->step) found = i;
                }
                if (!found) {
                    if (!problem.isOk()) {
                        std::fprintf(stderr, "xtrace: %s\n", problem.message().c_str());
                        exitCode = kExitUnreadable;
                        return;
                    }
                    continue;
                }
                auto t = rank.tensor(*found, opts->key);
                const auto& e = rank.entry(*found);
                fmt::print("# run {} rank {} key {} gstep {} lstep {} timestamp {} ({})\n",
                           labels[ri], rank.rank(), opts->key, e.gstep, e.lstep, e.timestamp,
                           formatTimestampMs(e.timestamp));
                fmt::print("# dtype {} shape {} elements {}{}\n", xdl::dtypeName(t->dtype()),
                           t->shape().toString(), t->size(), t->empty() ? " (empty column)" : "");
                std::fflush(stdout);
                printValues(*t);
                exitCode = kExitOk;
                return;
            }
        }
        std::fprintf(stderr, "xtrace: no record holds key '%s'%s%s\n", opts->key.c_str(),
                     opts->step ? fmt::format(" at gstep {}", *opts->step).c_str() : "",
                     opts->rank ? fmt::format(" on rank {}", *opts->rank).c_str() : "");
        exitCode = kExitUnreadable;
    });
}

} // namespace xt::cli
