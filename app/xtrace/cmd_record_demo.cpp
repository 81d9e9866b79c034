// xtrace record-demo DIR [--ranks N] [--steps N] [--max-mb M] [--seed S] [--diverge-rank R]:
// writes a realistic, deterministic demo run with the recorder (the built-in demo of the README
// and the viewer).
//
// The simulated job is data-parallel: every rank holds the same weights (a 3-layer MLP) that
// drift as training goes on, each rank has its own gradients (shrinking over time), activations
// (one raw, one summarised as a mean over the batch), a loss, a learning rate traced through a
// callback, and its configuration traced once as a string (Int8). On one rank a NaN appears in
// one gradient two thirds of the way through; with --diverge-rank, that rank's gradients drift
// away from the others' from the middle of the run on. Timestamps start at a fixed time and
// advance by a jittered step time.
#include "app/xtrace/cli_util.h"
#include "app/xtrace/commands.h"
#include "core/recorder/recorder.h"

#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <limits>
#include <random>

namespace xt::cli {

namespace {

struct Layer {
    std::string name;
    std::int64_t in, out;
    std::vector<float> weight, grad;
};

constexpr std::int64_t kBatch = 8;
constexpr std::int64_t kStartMs = 1700000000000; // 2023-11-14 22:13:20 UTC
constexpr double kStepMs = 180;

struct DemoOptions {
    std::string dir;
    int ranks = 4;
    int steps = 100;
    double maxMB = 0; // 0: about three parts per rank
    std::uint64_t seed = 7;
    int divergeRank = -1; // none
};

int runDemo(const DemoOptions& o) {
    std::vector<Layer> layers = {
        {"fc1", 32, 16, {}, {}}, {"fc2", 16, 16, {}, {}}, {"fc3", 16, 4, {}, {}}};
    std::mt19937_64 shared(o.seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::size_t floatsPerRecord = 0;
    for (auto& l : layers) {
        l.weight.resize(static_cast<std::size_t>(l.in * l.out));
        l.grad.resize(l.weight.size());
        float scale = 1.0f / std::sqrt(static_cast<float>(l.in));
        for (auto& w : l.weight)
            w = normal(shared) * scale;
        floatsPerRecord += 2 * l.weight.size();
    }
    floatsPerRecord += static_cast<std::size_t>(kBatch * 16 + 16 + 2);
    double maxMB = o.maxMB;
    if (maxMB <= 0) {
        double perRank = (static_cast<double>(floatsPerRecord) * 4 + 200) * o.steps;
        maxMB = perRank / 2.8 / 1e6; // a split when a part reaches the limit: ~3 parts
    }

    struct RankState {
        std::unique_ptr<recorder::Recorder> rec;
        std::mt19937_64 rng;
        std::int64_t clock = 0;
        float lr = 0;
        std::vector<float> act1, act2;
    };
    const int nanRank = o.ranks > 1 ? 1 : 0;
    const int nanStep = o.steps * 2 / 3;
    std::vector<RankState> ranks(static_cast<std::size_t>(o.ranks));
    for (int r = 0; r < o.ranks; ++r) {
        RankState& s = ranks[static_cast<std::size_t>(r)];
        s.rng.seed(o.seed * 1000003 + static_cast<std::uint64_t>(r));
        s.clock = kStartMs + r * 3;
        recorder::RecorderConfig c;
        c.outputDir = o.dir;
        c.rank = r;
        c.maxFileMB = maxMB;
        c.clock = [&s] { return s.clock; };
        auto rec = recorder::Recorder::create(c);
        if (!rec) {
            std::fprintf(stderr, "xtrace: %s\n", rec.status().message().c_str());
            return kExitUnreadable;
        }
        s.rec = std::move(*rec);
        std::string config = fmt::format(
            "{{\"model\":\"mlp-32-16-16-4\",\"optimizer\":\"sgd\",\"lr\":0.1,\"batch\":{},"
            "\"world_size\":{},\"rank\":{},\"seed\":{}}}",
            kBatch, o.ranks, r, o.seed);
        Status st = s.rec->traceOnceText("config", config);
        if (st) {
            st = s.rec->traceCallback("optimizer/learning_rate",
                                      [&s]() -> Result<recorder::TensorRef> {
                                          return recorder::TensorRef{xdl::Dtype::Float, {}, &s.lr};
                                      });
        }
        if (st) {
            st = s.rec->setSummary(
                "fc2/activation_mean",
                [](const recorder::TensorRef& t) -> Result<recorder::OwnedTensor> {
                    const float* p = static_cast<const float*>(t.data);
                    std::int64_t rows = t.shape[0], cols = t.shape[1];
                    std::vector<float> mean(static_cast<std::size_t>(cols), 0.0f);
                    for (std::int64_t i = 0; i < rows; ++i)
                        for (std::int64_t j = 0; j < cols; ++j)
                            mean[static_cast<std::size_t>(j)] +=
                                p[i * cols + j] / static_cast<float>(rows);
                    return recorder::OwnedTensor::of<float>(mean, {cols});
                });
        }
        if (!st) {
            std::fprintf(stderr, "xtrace: %s\n", st.message().c_str());
            return kExitUnreadable;
        }
    }

    std::uniform_real_distribution<double> jitter(-0.15, 0.25);
    for (int step = 0; step < o.steps; ++step) {
        const float progress = static_cast<float>(step) / static_cast<float>(o.steps);
        const float decay = std::exp(-3.0f * progress); // gradients shrink
        const float warm = std::min(1.0f, static_cast<float>(step + 1) / 10.0f);
        const float lr = 0.1f * warm * 0.5f * (1.0f + std::cos(3.14159265f * progress));
        // A shared direction of the weight drift this step (identical on every rank).
        std::vector<std::vector<float>> common;
        for (auto& l : layers) {
            std::vector<float> g(l.weight.size());
            for (std::size_t i = 0; i < g.size(); ++i)
                g[i] = decay * (0.3f * l.weight[i] + 0.05f * normal(shared));
            common.push_back(std::move(g));
        }
        for (int r = 0; r < o.ranks; ++r) {
            RankState& s = ranks[static_cast<std::size_t>(r)];
            s.lr = lr;
            for (std::size_t li = 0; li < layers.size(); ++li) {
                Layer& l = layers[li];
                for (std::size_t i = 0; i < l.grad.size(); ++i)
                    l.grad[i] = common[li][i] + 0.02f * decay * normal(s.rng);
                if (r == o.divergeRank && step >= o.steps / 2)
                    for (auto& g : l.grad)
                        g += 0.002f * static_cast<float>(step - o.steps / 2 + 1);
                if (r == nanRank && step >= nanStep && l.name == "fc2")
                    l.grad[3] = std::numeric_limits<float>::quiet_NaN();
            }
            s.act1.resize(static_cast<std::size_t>(kBatch * 16));
            s.act2.resize(s.act1.size());
            for (std::size_t i = 0; i < s.act1.size(); ++i) {
                s.act1[i] = std::max(0.0f, normal(s.rng) + 0.5f * (1.0f - progress));
                s.act2[i] = std::max(0.0f, 0.8f * normal(s.rng) + 0.2f);
            }
            float loss =
                2.3f * std::exp(-2.5f * progress) + 0.12f + 0.03f * std::fabs(normal(s.rng));
            Status st = Status::ok();
            auto trace = [&](const std::string& key, const std::vector<float>& v,
                             std::initializer_list<std::int64_t> shape) {
                if (!st) return;
                std::vector<std::int64_t> dims(shape);
                st = s.rec->trace(key, recorder::TensorRef{xdl::Dtype::Float, dims, v.data()});
            };
            for (auto& l : layers)
                trace(l.name + "/weight", l.weight, {l.in, l.out});
            for (auto& l : layers)
                trace("gradient/" + l.name + "/weight", l.grad, {l.in, l.out});
            trace("fc1/activation", s.act1, {kBatch, 16});
            trace("fc2/activation_mean", s.act2, {kBatch, 16});
            if (st) st = s.rec->trace<float>("loss", &loss, {});
            s.clock += static_cast<std::int64_t>(kStepMs * (1.0 + jitter(s.rng)) +
                                                 (r == o.ranks - 1 ? 12 : 0));
            if (st) st = s.rec->commitStep(step);
            if (!st) {
                std::fprintf(stderr, "xtrace: rank %d step %d: %s\n", r, step,
                             st.message().c_str());
                return kExitUnreadable;
            }
        }
        // Every rank applies the same averaged update.
        for (std::size_t li = 0; li < layers.size(); ++li)
            for (std::size_t i = 0; i < layers[li].weight.size(); ++i)
                layers[li].weight[i] -= lr * common[li][i];
    }

    std::uint64_t bytes = 0;
    std::int64_t parts = 0;
    for (auto& s : ranks) {
        if (Status st = s.rec->close(); !st) {
            std::fprintf(stderr, "xtrace: %s\n", st.message().c_str());
            return kExitUnreadable;
        }
        bytes += s.rec->stats().bytesWritten;
        parts += s.rec->stats().partIndex;
    }
    fmt::print("wrote {}: {} rank(s) x {} step(s), {} part file(s), {} (max {:.3f} MB per part); "
               "NaN in gradient/fc2/weight on rank {} from gstep {}\n",
               o.dir, o.ranks, o.steps, parts, formatBytes(bytes), maxMB, nanRank, nanStep);
    return kExitOk;
}

} // namespace

void addRecordDemoCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "record-demo", "Write a deterministic demo run (several ranks, drifting weights, "
                       "shrinking gradients, a NaN) with the recorder");
    auto opts = std::make_shared<DemoOptions>();
    cmd->add_option("DIR", opts->dir, "output directory (created when missing)")->required();
    cmd->add_option("--ranks", opts->ranks, "number of ranks")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--steps", opts->steps, "steps per rank")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000000));
    cmd->add_option("--max-mb", opts->maxMB,
                    "max_file_m_size in decimal MB (default: about three parts per rank)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--seed", opts->seed, "random seed")->capture_default_str();
    cmd->add_option("--diverge-rank", opts->divergeRank,
                    "this rank's gradients drift away from the other ranks' from the middle of "
                    "the run on (an outlier rank)")
        ->check(CLI::Range(0, 1023));
    cmd->callback([opts, &exitCode] { exitCode = runDemo(*opts); });
}

} // namespace xt::cli
