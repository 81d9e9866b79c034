#include "core/demo/demo_run.h"

#include "core/recorder/recorder.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace xt::demo {

namespace {

struct Layer {
    std::string name;
    std::int64_t in, out;
    std::vector<float> weight, grad;
};

constexpr std::int64_t kBatch = 8;
constexpr std::int64_t kStartMs = 1700000000000; // 2023-11-14 22:13:20 UTC
constexpr double kStepMs = 180;

// The simulated job. Every random draw happens in the same order as it always has (one normal
// distribution shared by every generator), so a seed always gives the same bytes.
class DemoJob {
public:
    explicit DemoJob(const DemoOptions& o) : m_o(o), m_shared(o.seed) {
        std::size_t floatsPerRecord = 0;
        for (auto& l : m_layers) {
            l.weight.resize(static_cast<std::size_t>(l.in * l.out));
            l.grad.resize(l.weight.size());
            float scale = 1.0f / std::sqrt(static_cast<float>(l.in));
            for (auto& w : l.weight)
                w = m_normal(m_shared) * scale;
            floatsPerRecord += 2 * l.weight.size();
        }
        floatsPerRecord += static_cast<std::size_t>(kBatch * 16 + 16 + 2);
        m_maxMB = o.maxMB;
        if (m_maxMB <= 0) {
            double perRank = (static_cast<double>(floatsPerRecord) * 4 + 200) * o.steps;
            m_maxMB = perRank / 2.8 / 1e6; // a split when a part reaches the limit: ~3 parts
        }
        m_ranks = std::vector<RankState>(static_cast<std::size_t>(o.ranks));
    }

    Status openRank(int r);
    Status step(int step);
    Result<DemoSummary> close();

private:
    struct RankState {
        std::unique_ptr<recorder::Recorder> rec;
        std::mt19937_64 rng;
        std::int64_t clock = 0;
        float lr = 0;
        std::vector<float> act1, act2;
    };
    Status traceRank(int r, int step, float progress, float decay,
                     const std::vector<std::vector<float>>& common);

    const DemoOptions& m_o;
    std::vector<Layer> m_layers = {
        {"fc1", 32, 16, {}, {}}, {"fc2", 16, 16, {}, {}}, {"fc3", 16, 4, {}, {}}};
    std::mt19937_64 m_shared;
    std::normal_distribution<float> m_normal{0.0f, 1.0f};
    std::uniform_real_distribution<double> m_jitter{-0.15, 0.25};
    double m_maxMB = 0;
    std::vector<RankState> m_ranks; // sized once: the recorders' clocks point into it
    const DemoNan m_nan = demoNan(m_o);
};

Status DemoJob::openRank(int r) {
    RankState& s = m_ranks[static_cast<std::size_t>(r)];
    s.rng.seed(m_o.seed * 1000003 + static_cast<std::uint64_t>(r));
    s.clock = kStartMs + r * 3;
    recorder::RecorderConfig c;
    c.outputDir = m_o.dir;
    c.rank = r;
    c.maxFileMB = m_maxMB;
    if (m_o.liveRate <= 0) c.clock = [&s] { return s.clock; }; // live: the system clock
    XT_ASSIGN_OR_RETURN(s.rec, recorder::Recorder::create(c));
    std::string config =
        fmt::format("{{\"model\":\"mlp-32-16-16-4\",\"optimizer\":\"sgd\",\"lr\":0.1,\"batch\":{},"
                    "\"world_size\":{},\"rank\":{},\"seed\":{}}}",
                    kBatch, m_o.ranks, r, m_o.seed);
    XT_RETURN_IF_ERROR(s.rec->traceOnceText("config", config));
    XT_RETURN_IF_ERROR(
        s.rec->traceCallback("optimizer/learning_rate", [&s]() -> Result<recorder::TensorRef> {
            return recorder::TensorRef{xdl::Dtype::Float, {}, &s.lr};
        }));
    return s.rec->setSummary(
        "fc2/activation_mean", [](const recorder::TensorRef& t) -> Result<recorder::OwnedTensor> {
            const float* p = static_cast<const float*>(t.data);
            std::int64_t rows = t.shape[0], cols = t.shape[1];
            std::vector<float> mean(static_cast<std::size_t>(cols), 0.0f);
            for (std::int64_t i = 0; i < rows; ++i)
                for (std::int64_t j = 0; j < cols; ++j)
                    mean[static_cast<std::size_t>(j)] += p[i * cols + j] / static_cast<float>(rows);
            return recorder::OwnedTensor::of<float>(mean, {cols});
        });
}

Status DemoJob::step(int step) {
    const float progress = static_cast<float>(step) / static_cast<float>(m_o.steps);
    const float decay = std::exp(-3.0f * progress); // gradients shrink
    const float warm = std::min(1.0f, static_cast<float>(step + 1) / 10.0f);
    const float lr = 0.1f * warm * 0.5f * (1.0f + std::cos(3.14159265f * progress));
    // A shared direction of the weight drift this step (identical on every rank).
    std::vector<std::vector<float>> common;
    for (auto& l : m_layers) {
        std::vector<float> g(l.weight.size());
        for (std::size_t i = 0; i < g.size(); ++i)
            g[i] = decay * (0.3f * l.weight[i] + 0.05f * m_normal(m_shared));
        common.push_back(std::move(g));
    }
    for (int r = 0; r < m_o.ranks; ++r) {
        m_ranks[static_cast<std::size_t>(r)].lr = lr;
        if (Status st = traceRank(r, step, progress, decay, common); !st)
            return Status(st.code(), fmt::format("rank {} step {}: {}", r, step, st.message()));
    }
    // Every rank applies the same averaged update.
    for (std::size_t li = 0; li < m_layers.size(); ++li)
        for (std::size_t i = 0; i < m_layers[li].weight.size(); ++i)
            m_layers[li].weight[i] -= lr * common[li][i];
    return Status::ok();
}

Status DemoJob::traceRank(int r, int step, float progress, float decay,
                          const std::vector<std::vector<float>>& common) {
    RankState& s = m_ranks[static_cast<std::size_t>(r)];
    for (std::size_t li = 0; li < m_layers.size(); ++li) {
        Layer& l = m_layers[li];
        for (std::size_t i = 0; i < l.grad.size(); ++i)
            l.grad[i] = common[li][i] + 0.02f * decay * m_normal(s.rng);
        if (r == m_o.divergeRank && step >= m_o.steps / 2)
            for (auto& g : l.grad)
                g += 0.002f * static_cast<float>(step - m_o.steps / 2 + 1);
        if (r == m_nan.rank && step >= m_nan.step && l.name == "fc2")
            l.grad[3] = std::numeric_limits<float>::quiet_NaN();
    }
    s.act1.resize(static_cast<std::size_t>(kBatch * 16));
    s.act2.resize(s.act1.size());
    for (std::size_t i = 0; i < s.act1.size(); ++i) {
        s.act1[i] = std::max(0.0f, m_normal(s.rng) + 0.5f * (1.0f - progress));
        s.act2[i] = std::max(0.0f, 0.8f * m_normal(s.rng) + 0.2f);
    }
    float loss = 2.3f * std::exp(-2.5f * progress) + 0.12f + 0.03f * std::fabs(m_normal(s.rng));
    Status st = Status::ok();
    auto trace = [&](const std::string& key, const std::vector<float>& v,
                     std::initializer_list<std::int64_t> shape) {
        if (!st) return;
        std::vector<std::int64_t> dims(shape);
        st = s.rec->trace(key, recorder::TensorRef{xdl::Dtype::Float, dims, v.data()});
    };
    for (auto& l : m_layers)
        trace(l.name + "/weight", l.weight, {l.in, l.out});
    for (auto& l : m_layers)
        trace("gradient/" + l.name + "/weight", l.grad, {l.in, l.out});
    trace("fc1/activation", s.act1, {kBatch, 16});
    trace("fc2/activation_mean", s.act2, {kBatch, 16});
    if (st) st = s.rec->trace<float>("loss", &loss, {});
    s.clock += static_cast<std::int64_t>(kStepMs * (1.0 + m_jitter(s.rng)) +
                                         (r == m_o.ranks - 1 ? 12 : 0));
    if (st) st = s.rec->commitStep(step);
    return st;
}

Result<DemoSummary> DemoJob::close() {
    DemoSummary out;
    for (auto& s : m_ranks) {
        XT_RETURN_IF_ERROR(s.rec->close());
        out.bytes += s.rec->stats().bytesWritten;
        out.parts += s.rec->stats().partIndex;
    }
    out.maxMB = m_maxMB;
    out.nanRank = m_nan.rank;
    out.nanStep = m_nan.step;
    return out;
}

} // namespace

DemoNan demoNan(const DemoOptions& options) {
    return {options.ranks > 1 ? 1 : 0, options.steps * 2 / 3};
}

Result<DemoSummary> writeDemoRun(const DemoOptions& options, const ProgressCallback& report) {
    DemoJob job(options);
    for (int r = 0; r < options.ranks; ++r)
        XT_RETURN_IF_ERROR(job.openRank(r));
    const auto start = std::chrono::steady_clock::now();
    for (int step = 0; step < options.steps; ++step) {
        if (options.liveRate > 0)
            std::this_thread::sleep_until(start +
                                          std::chrono::duration<double>(step / options.liveRate));
        if (!reportProgress(report, std::uint64_t(step), std::uint64_t(options.steps),
                            "writing the demo run"))
            return Status(ErrorCode::Cancelled, "writing the demo run was cancelled");
        XT_RETURN_IF_ERROR(job.step(step));
    }
    return job.close();
}

} // namespace xt::demo
