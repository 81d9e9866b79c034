// xtrace plot PATH... --key K [--stat mean,min,max,...] [--rank R] [--size WxH] --out FILE:
// draws the statistics of one key to PNG, PDF or SVG. xtrace links no Qt, so the drawing is
// done by `xtview --render-plot` (offscreen, no window): the program named by $XT_XTVIEW, else
// the xtview next to this executable.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace xt::cli {

namespace {

struct PlotOptions {
    std::vector<std::string> paths;
    std::string key, stat, out, size;
    int rank = -1;
};

// $XT_XTVIEW when set, else xtview in the same directory (installed layout) or in the build
// tree's app/xtview.
std::string findXtview() {
    if (const char* env = std::getenv("XT_XTVIEW"); env && *env)
        return ::access(env, X_OK) == 0 ? std::string(env) : std::string();
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const auto dir = self.parent_path();
    for (const auto& c : {dir / "xtview", dir / ".." / "xtview" / "xtview"})
        if (::access(c.c_str(), X_OK) == 0) return c.lexically_normal().string();
    return {};
}

int runPlot(const PlotOptions& o) {
    const std::string xtview = findXtview();
    if (xtview.empty()) {
        std::fprintf(stderr, "xtrace plot: the xtview executable was not found (XT_XTVIEW, or next "
                             "to xtrace); plotting needs a build with the GUI (XT_GUI=ON)\n");
        return kExitUsage;
    }
    std::vector<std::string> args = {xtview, "--render-plot", "--key", o.key, "--out", o.out};
    if (!o.stat.empty()) args.insert(args.end(), {"--stat", o.stat});
    if (o.rank >= 0) args.insert(args.end(), {"--rank", std::to_string(o.rank)});
    if (!o.size.empty()) args.insert(args.end(), {"--size", o.size});
    args.push_back("--");
    args.insert(args.end(), o.paths.begin(), o.paths.end());
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::fprintf(stderr, "xtrace plot: fork failed: %s\n", std::strerror(errno));
        return kExitUnreadable;
    }
    if (pid == 0) {
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "xtrace plot: cannot run %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(kExitUsage);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    std::fprintf(stderr, "xtrace plot: xtview --render-plot did not finish normally\n");
    return kExitUnreadable;
}

} // namespace

void addPlotCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "plot", "Draw the statistics of one key over steps to PNG, PDF or SVG (uses xtview)");
    auto opts = std::make_shared<PlotOptions>();
    cmd->add_option("PATH", opts->paths, "data files, run directories or glob patterns")
        ->required();
    cmd->add_option("--key", opts->key, "the key to plot")->required();
    cmd->add_option("--stat", opts->stat,
                    "statistics drawn as lines: mean,min,max,std,l2,count,nan,inf,zeros "
                    "(default: mean with min-max and std bands)");
    cmd->add_option("--rank", opts->rank, "only this rank (default: every rank)");
    cmd->add_option("--size", opts->size, "image size WxH (default 1200x700)");
    cmd->add_option("--out", opts->out, "output file, .png, .pdf or .svg")->required();
    cmd->callback([opts, &exitCode] { exitCode = runPlot(*opts); });
}

} // namespace xt::cli
