// P11 (PERFORMANCE.md): a remote run over WebHDFS. A generated run (default 1 GB: 4 ranks x 2
// parts, 1 MiB records of 8 keys) is served by the WebHDFS test server on loopback, which counts
// the bytes it sends. Measured: `xtrace index URL --publish`; then, as a new user (empty
// caches), opening the run and computing one key's statistics over every step (what the stat
// plot draws) from the published summaries, reading one tensor, and re-opening; and the same
// without summaries. Reported: bytes transferred as a fraction of the run, and wall times.
//
//   bench_hdfs_p11 [--gb G] [--ranks R] [--key K]   (data under $XT_BENCH_DIR, default /tmp)
#include "bench_data.h"
#include "core/analysis/cpu_backend.h"
#include "core/analysis/key_stats.h"
#include "core/storage/remote_runs.h"
#include "core/summary/run_summary.h"
#include "tests/core/storage/webhdfs_test_server.h"

#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <simdjson.h>

namespace {

using namespace xt;
namespace fs = std::filesystem;

struct Config {
    double gb = 1.0;
    int ranks = 4;
    std::string key = "fc1/weight";
};

// Keys of a small model with the shares of a record they take; values drift with the step.
void writeRun(const std::string& dir, const Config& c) {
    const std::vector<std::pair<std::string, double>> keys = {
        {"conv1/weight", 0.05},       {"fc1/weight", 0.40},
        {"fc2/weight", 0.20},         {"fc1/bias", 0.001},
        {"gradient/fc1/weight", 0.2}, {"gradient/fc2/weight", 0.1},
        {"activations", 0.049},       {"loss", 0.0}};
    const std::uint64_t recordBytes = 1 << 20;
    const auto perRank = static_cast<std::uint64_t>(c.gb * 1e9 / c.ranks);
    std::vector<float> pool(recordBytes / 4 + 4096);
    for (std::size_t i = 0; i < pool.size(); ++i)
        pool[i] = std::sin(float(i) * 0.37f) * float(1 + i % 7);
    std::vector<std::string> names;
    for (const auto& k : keys)
        names.push_back(k.first);
    for (int r = 0; r < c.ranks; ++r) {
        // Two parts per rank.
        auto w =
            xdl::FileSeriesWriter::create({dir, "trace", double(perRank) / 2e6, r, true}, names);
        if (!w) {
            std::fprintf(stderr, "%s\n", w.status().toString().c_str());
            std::exit(1);
        }
        xdl::RecordEncoder enc;
        std::vector<float> scaled(pool.size());
        for (std::int64_t step = 0; (*w)->totalBytes() < perRank; ++step) {
            const float f = 1.0f / float(1 + step % 50);
            for (std::size_t i = 0; i < pool.size(); ++i)
                scaled[i] = pool[i] * f + float(r);
            enc.begin(step, step + 1);
            std::size_t at = std::size_t(step) % 4096;
            for (const auto& [name, share] : keys) {
                const auto n = std::max<std::int64_t>(1, std::int64_t(share * recordBytes / 4));
                enc.addColumn(xdl::Dtype::Float, std::vector<std::int64_t>{n},
                              {reinterpret_cast<const std::uint8_t*>(scaled.data() + at),
                               std::size_t(n) * 4});
                at = (at + std::size_t(n)) % 4096;
            }
            const std::int64_t ts = 1700000000000 + step * 100;
            if (!enc.finish(ts) || !(*w)->write(enc.framed(), step, step + 1, ts)) std::exit(1);
        }
        if (!(*w)->close()) std::exit(1);
    }
}

std::uint64_t runBytes(const std::string& dir) {
    std::uint64_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (xdl::parsePartFileName(e.path().filename().string())) n += e.file_size();
    return n;
}

// Bytes the server sent since the last clear: all, and of part data files only.
std::pair<std::uint64_t, std::uint64_t> served(test::WebHdfsTestServer& srv) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::uint64_t all = 0, data = 0;
    if (parser.parse(srv.control("stats=1")).get(doc)) return {0, 0};
    for (auto [path, n] : doc["served"].get_object()) {
        all += std::uint64_t(n.get_int64());
        if (xdl::parsePartFileName(fs::path(std::string(path)).filename().string()))
            data += std::uint64_t(n.get_int64());
    }
    return {all, data};
}

double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Step {
    std::string what;
    double secs;
    std::uint64_t all, data;
};

// Opens the run as xtrace and the viewer do and computes one key's series; `tensor` also
// reads one tensor of the middle record of rank 0.
Step openAndPlot(const std::string& what, const std::string& url, const std::string& cache,
                 const Config& c, test::WebHdfsTestServer& srv, bool tensor) {
    srv.control("clear=1");
    const auto t0 = std::chrono::steady_clock::now();
    storage::MirrorOptions mo;
    mo.cacheDir = cache + "/hdfs";
    auto remote = storage::RemoteRuns::open({url}, mo);
    if (!remote) {
        std::fprintf(stderr, "%s\n", remote.status().toString().c_str());
        std::exit(1);
    }
    Diagnostics diag;
    auto found = xdl::discoverRuns(remote->localPaths(), diag);
    if (!found || found->size() != 1) std::exit(1);
    remote->attach(found->front(), diag);
    summary::StoreOptions store;
    store.cacheDir = cache + "/summaries";
    auto run = summary::openRun(found->front(), store, diag);
    if (!run) std::exit(1);
    // What the viewer does next: summaries for the parts without one (built from the bytes the
    // open streamed), then the key's series.
    if (!summary::summarizeRun(run->reader, run->summaries, store, diag)) std::exit(1);
    analysis::CpuBackend cpu;
    analysis::KeyStatsOptions ko;
    ko.keyFilter = [&](std::string_view k) { return k == c.key; };
    ko.summaries = &run->summaries;
    auto series = analysis::computeKeyStats(run->reader, cpu, ko, diag);
    if (!series || series->size() != std::size_t(c.ranks)) std::exit(1);
    if (tensor) {
        const auto& rank = run->reader.ranks()[0];
        auto t = rank.tensor(rank.recordCount() / 2, c.key);
        if (!t) {
            std::fprintf(stderr, "%s\n", t.status().toString().c_str());
            std::exit(1);
        }
    }
    const double secs = seconds(t0);
    auto [all, data] = served(srv);
    return {what, secs, all, data};
}

} // namespace

int main(int argc, char** argv) {
    Config c;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--gb")) c.gb = std::atof(argv[i + 1]);
        if (!std::strcmp(argv[i], "--ranks")) c.ranks = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--key")) c.key = argv[i + 1];
    }
    const std::string base = bench::benchDir() + fmt::format("/xt_bench_p11_{}gb", c.gb);
    const std::string remoteDir = base + "/remote", runDir = remoteDir + "/exp/run";
    std::error_code ec;
    if (!fs::exists(runDir, ec)) {
        std::fprintf(stderr, "writing %.1f GB into %s ...\n", c.gb, runDir.c_str());
        writeRun(runDir, c);
    }
    for (const auto& e : fs::directory_iterator(runDir)) // a clean start: no published summary
        if (e.path().extension() == ".xts") fs::remove(e.path());
    const std::uint64_t total = runBytes(runDir);
    for (const char* cache : {"/cacheA", "/cacheB", "/cacheC", "/cacheD"})
        fs::remove_all(base + cache);

    test::WebHdfsTestServer srv(remoteDir, 600, 3600);
    if (srv.port() <= 0) return 1;
    const std::string url = srv.url("/exp");
    std::vector<Step> steps;

    // Without published summaries (a new user): the open streams each part once.
    steps.push_back(
        openAndPlot("open + plot, no summaries (new user)", url, base + "/cacheC", c, srv, true));
    steps.push_back(
        openAndPlot("re-open + plot + tensor (same user)", url, base + "/cacheC", c, srv, true));

    srv.control("clear=1");
    auto t0 = std::chrono::steady_clock::now();
    const std::string cmd = fmt::format("XDG_CACHE_HOME='{}/cacheA' '{}' index '{}' --publish "
                                        "> /dev/null",
                                        base, XT_XTRACE, url);
    if (std::system(cmd.c_str()) != 0) return 1;
    {
        const double secs = seconds(t0);
        auto [all, data] = served(srv);
        steps.push_back({"xtrace index --publish", secs, all, data});
    }
    steps.push_back(openAndPlot("open + plot, published summaries (new user)", url,
                                base + "/cacheB", c, srv, false));
    steps.push_back(openAndPlot("open + plot + one tensor, published summaries (new user)", url,
                                base + "/cacheD", c, srv, true));
    steps.push_back(openAndPlot("re-open + plot + one tensor (same user)", url, base + "/cacheB", c,
                                srv, true));

    fmt::print("P11: {} ({} ranks, {:.3f} GB of parts), key {}\n\n", url, c.ranks,
               double(total) / 1e9, c.key);
    fmt::print("| step | wall s | bytes transferred | of the run | data bytes |\n");
    fmt::print("|---|---|---|---|---|\n");
    for (const auto& s : steps)
        fmt::print("| {} | {:.2f} | {} | {:.3f}% | {} |\n", s.what, s.secs, s.all,
                   100.0 * double(s.all) / double(total), s.data);
    return 0;
}
