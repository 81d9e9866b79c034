// The application's one analysis backend: chosen from the largest work size reported (CUDA tried
// once it reaches the Auto threshold, then kept for every job) and safe to share between worker
// threads (calls are serialized; run under TSan in the tsan preset).
#include "core/analysis/cpu_backend.h"
#include "core/analysis/shared_backend.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace xt::analysis {
namespace {

// A backend that records how many callers are inside it at once.
class ProbeBackend final : public Backend {
public:
    ProbeBackend(BackendKind kind, std::atomic<int>& most) : m_kind(kind), m_most(most) {}
    BackendKind kind() const override { return m_kind; }
    std::string description() const override { return backendKindName(m_kind); }
    Status computeStats(std::span<const xdl::TensorView>, std::span<TensorStats> out) override {
        enter();
        for (auto& s : out)
            s.count = ++m_calls; // unsynchronised on purpose: the wrapper must serialize
        leave();
        return Status::ok();
    }
    Status histogram(std::span<const xdl::TensorView>, const BinLayout&,
                     std::span<Histogram>) override {
        enter();
        leave();
        return Status::ok();
    }

private:
    void enter() {
        const int now = ++m_inside;
        int seen = m_most.load();
        while (now > seen && !m_most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::yield();
    }
    void leave() { --m_inside; }

    BackendKind m_kind;
    std::atomic<int> m_inside{0};
    std::atomic<int>& m_most; // the most callers seen inside any one backend
    std::uint64_t m_calls = 0;
};

struct FakeFactory {
    std::atomic<int> most{0};
    std::vector<std::pair<BackendChoice, std::uint64_t>> asked;
    bool cudaWorks = true;

    SharedBackend::Factory factory() {
        return [this](BackendChoice c, std::uint64_t bytes) {
            asked.emplace_back(c, bytes);
            const bool cuda =
                cudaWorks && (c == BackendChoice::Cuda ||
                              (c == BackendChoice::Auto && bytes >= kCudaAutoMinBytes));
            BackendSelection sel;
            sel.backend =
                std::make_unique<ProbeBackend>(cuda ? BackendKind::Cuda : BackendKind::Cpu, most);
            if (!cuda && bytes >= kCudaAutoMinBytes) sel.note = "no device";
            return sel;
        };
    }
};

TEST(SharedBackend, ChosenFromTheLargestWorkAndThenKept) {
    FakeFactory f;
    SharedBackend shared(BackendChoice::Auto, 0, f.factory());
    EXPECT_EQ(shared.description(), "");
    auto small = shared.get(1000);
    EXPECT_EQ(small->kind(), BackendKind::Cpu);
    EXPECT_EQ(shared.get(5000), small); // the same one for every job
    auto big = shared.get(kCudaAutoMinBytes);
    EXPECT_EQ(big->kind(), BackendKind::Cuda);
    EXPECT_EQ(shared.description(), "cuda");
    EXPECT_EQ(shared.get(10), big); // small jobs use the device too, once it is chosen
    ASSERT_EQ(f.asked.size(), 2u);
    EXPECT_EQ(f.asked[1].second, kCudaAutoMinBytes);
    // Work noted ahead (the runs just opened) decides the first choice of a later small job.
    FakeFactory g;
    SharedBackend noted(BackendChoice::Auto, 0, g.factory());
    noted.noteWork(kCudaAutoMinBytes + 1);
    EXPECT_TRUE(g.asked.empty());
    EXPECT_EQ(noted.get(10)->kind(), BackendKind::Cuda);
    // The earlier holder keeps a working backend.
    TensorStats s;
    EXPECT_TRUE(small->computeStats({}, {&s, 1}).isOk());
}

TEST(SharedBackend, CudaIsTriedOnceAndFixedChoicesAreKept) {
    FakeFactory f;
    f.cudaWorks = false;
    SharedBackend autoChoice(BackendChoice::Auto, 0, f.factory());
    EXPECT_EQ(autoChoice.get(kCudaAutoMinBytes * 2)->kind(), BackendKind::Cpu);
    EXPECT_EQ(autoChoice.note(), "no device");
    autoChoice.get(kCudaAutoMinBytes * 4);
    EXPECT_EQ(f.asked.size(), 1u);
    FakeFactory g;
    SharedBackend cpu(BackendChoice::Cpu, 0, g.factory());
    EXPECT_EQ(cpu.get(kCudaAutoMinBytes * 2)->kind(), BackendKind::Cpu);
    EXPECT_EQ(g.asked.size(), 1u);
}

TEST(SharedBackend, CallsFromManyThreadsAreSerialized) {
    FakeFactory f;
    SharedBackend shared(BackendChoice::Auto, 0, f.factory());
    std::vector<std::thread> threads;
    std::atomic<std::uint64_t> total{0};
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                // Half the threads report large work: the switch happens under the callers.
                auto b = shared.get(t % 2 ? kCudaAutoMinBytes : 100);
                TensorStats s;
                ASSERT_TRUE(b->computeStats({}, {&s, 1}).isOk());
                total += s.count > 0;
                (void)b->description();
            }
        });
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(total.load(), 1600u);
    EXPECT_EQ(f.most.load(), 1) << "two callers were inside one backend at once";
    EXPECT_EQ(shared.get()->kind(), BackendKind::Cuda);
}

TEST(SharedBackend, RealCpuBackendFromSeveralThreads) {
    SharedBackend shared(BackendChoice::Cpu, 2);
    std::vector<float> v(100000);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = float(i % 97);
    xdl::Shape shape;
    shape.rank = 1;
    shape.dims[0] = std::int64_t(v.size());
    const xdl::TensorView view{
        xdl::Dtype::Float, shape,
        xdl::Bytes(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(float))};
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 5; ++i) {
                TensorStats s;
                if (shared.get()->computeStats({&view, 1}, {&s, 1}).isOk() && s.count == v.size() &&
                    s.max == 96)
                    ++ok;
            }
        });
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(ok.load(), 20);
}

} // namespace
} // namespace xt::analysis
