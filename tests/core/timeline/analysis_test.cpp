// Op summary, step breakdown and memory peaks on hand-made traces with known answers.
#include "chrome_json.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/memory_peaks.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/step_breakdown.h"

#include <gtest/gtest.h>

using namespace xt::timeline;

namespace {

using xt::timeline::test::importJson;
const OpStat& row(const TraceStore& st, const std::vector<OpStat>& rows, std::string_view name) {
    for (const auto& r : rows)
        if (st.str(r.name) == name) return r;
    static OpStat none;
    ADD_FAILURE() << name;
    return none;
}
} // namespace

TEST(OpSummary, TotalsSelfAndOrder) {
    auto st = importJson(R"([
      {"ph":"X","name":"conv","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","name":"mm","cat":"cpu_op","pid":1,"tid":1,"ts":10,"dur":30},
      {"ph":"X","name":"mm","cat":"cpu_op","pid":1,"tid":1,"ts":50,"dur":20},
      {"ph":"X","name":"add","cat":"cpu_op","pid":1,"tid":1,"ts":55,"dur":5},
      {"ph":"B","name":"conv","cat":"cpu_op","pid":1,"tid":2,"ts":0},
      {"ph":"E","pid":1,"tid":2,"ts":40},
      {"ph":"X","name":"mm","cat":"kernel","pid":2,"tid":7,"ts":0,"dur":1}
    ])");
    auto rows = opSummary(st);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(st.str(rows[0].name), "conv"); // sorted by total, descending
    const OpStat& conv = row(st, rows, "conv");
    EXPECT_EQ(conv.count, 2u);
    EXPECT_EQ(conv.totalNs, 140'000); // X dur + matched B/E duration
    EXPECT_EQ(conv.selfNs, 140'000 - 50'000);
    EXPECT_EQ(conv.minNs, 40'000);
    EXPECT_EQ(conv.maxNs, 100'000);
    const OpStat& mm = row(st, rows, "mm");
    EXPECT_EQ(mm.count, 3u);
    EXPECT_EQ(mm.totalNs, 51'000);
    EXPECT_EQ(mm.selfNs, 46'000);
    EXPECT_DOUBLE_EQ(mm.avgNs(), 17'000.0);
    // The sum of totals over names equals the sum of all durations.
    std::int64_t sum = 0, all = 0;
    for (const auto& r : rows)
        sum += r.totalNs;
    for (auto d : st.sliceDuration())
        all += d;
    EXPECT_EQ(sum, all);

    OpSummaryOptions byCat;
    byCat.byCategory = true;
    EXPECT_EQ(opSummary(st, byCat).size(), 4u);
    OpSummaryOptions window;
    window.t0 = 45'000;
    window.t1 = 100'000;
    window.sortBy = OpSortKey::Name;
    window.descending = false;
    rows = opSummary(st, window);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(st.str(rows[0].name), "add");
    EXPECT_EQ(rows[1].totalNs, 20'000);
    OpSummaryOptions oneTrack;
    oneTrack.tracks = {st.sliceTrack()[0]};
    oneTrack.limit = 1;
    rows = opSummary(st, oneTrack);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].totalNs, 100'000);
}

TEST(StepBreakdown, CategoriesSumToStepAndBottleneck) {
    auto st = importJson(R"([
      {"ph":"X","name":"ProfilerStep#1","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":30},
      {"ph":"X","name":"cudaLaunchKernel","cat":"cuda_runtime","pid":1,"tid":1,"ts":20,"dur":5},
      {"ph":"X","name":"gemm","cat":"kernel","pid":0,"tid":7,"ts":25,"dur":40},
      {"ph":"X","name":"ncclAllReduce","cat":"kernel","pid":0,"tid":8,"ts":60,"dur":20},
      {"ph":"X","name":"Memcpy HtoD","cat":"gpu_memcpy","pid":0,"tid":7,"ts":85,"dur":5},
      {"ph":"X","name":"ProfilerStep#2","cat":"user_annotation","pid":1,"tid":1,"ts":100,"dur":10}
    ])");
    auto steps = stepBreakdown(st);
    ASSERT_EQ(steps.size(), 2u);
    const auto& s = steps[0];
    EXPECT_EQ(s.name, "ProfilerStep#1");
    auto ns = [&](StepCategory c) { return s.ns[static_cast<std::size_t>(c)]; };
    EXPECT_EQ(ns(StepCategory::HostCompute), 20'000);
    EXPECT_EQ(ns(StepCategory::KernelLaunch), 5'000);
    EXPECT_EQ(ns(StepCategory::DeviceCompute), 40'000);
    EXPECT_EQ(ns(StepCategory::DeviceCollectives), 15'000);
    EXPECT_EQ(ns(StepCategory::Memcpy), 5'000);
    EXPECT_EQ(ns(StepCategory::Idle), 15'000);
    std::int64_t sum = 0;
    for (auto v : s.ns)
        sum += v;
    EXPECT_EQ(sum, s.end - s.start);
    EXPECT_EQ(s.bottleneck, StepCategory::DeviceCompute);
    EXPECT_EQ(steps[1].bottleneck, StepCategory::Idle);

    StepOptions custom;
    custom.markerPrefix = "gemm";
    EXPECT_EQ(stepBreakdown(st, custom).size(), 1u);
}

TEST(StepBreakdown, Classification) {
    StepCategory c{};
    EXPECT_EQ(classifySlice("gpu_user_annotation", "x", c), SliceClass::Ignored);
    ASSERT_EQ(classifySlice("Kernel", "ncclKernel_AllReduce", c), SliceClass::Counted);
    EXPECT_EQ(c, StepCategory::DeviceCollectives);
    ASSERT_EQ(classifySlice("Runtime", "cudaLaunchKernel", c), SliceClass::Counted);
    EXPECT_EQ(c, StepCategory::KernelLaunch);
    ASSERT_EQ(classifySlice("python_function", "f", c), SliceClass::Counted);
    EXPECT_EQ(c, StepCategory::HostCompute);
    ASSERT_EQ(classifySlice("gpu_memset", "m", c), SliceClass::Counted);
    EXPECT_EQ(c, StepCategory::Memcpy);
}

TEST(MemoryPeaks, PeakTimeAndLiveObjects) {
    auto st = importJson(R"([
      {"ph":"N","name":"Tensor","id":1,"pid":1,"ts":0},
      {"ph":"N","name":"Tensor","id":2,"pid":1,"ts":5},
      {"ph":"D","name":"Tensor","id":1,"pid":1,"ts":15},
      {"ph":"N","name":"Tensor","id":3,"pid":2,"ts":5},
      {"ph":"C","name":"Memory","pid":1,"ts":0,"args":{"GPU_0_bfc":100}},
      {"ph":"C","name":"Memory","pid":1,"ts":10,"args":{"GPU_0_bfc":300}},
      {"ph":"C","name":"Memory","pid":1,"ts":20,"args":{"GPU_0_bfc":300}},
      {"ph":"C","name":"Memory","pid":1,"ts":30,"args":{"GPU_0_bfc":50}}
    ])");
    auto peaks = memoryPeaks(st);
    ASSERT_EQ(peaks.size(), 1u);
    EXPECT_EQ(peaks[0].peak, 300.0);
    EXPECT_EQ(peaks[0].ts, 10'000);             // first time the peak is reached
    ASSERT_EQ(peaks[0].liveObjects.size(), 2u); // ids 1 and 2 of pid 1, not pid 2's
    EXPECT_EQ(st.str(st.objects()[peaks[0].liveObjects[0]].id), "1");
    EXPECT_EQ(st.str(st.objects()[peaks[0].liveObjects[1]].id), "2");
}

namespace {
// A tensor as timeline.py writes it: N at creation, O with its TensorDescription text, D at its
// last unref, and the op that produced it starting at the creation time.
std::string tfTensor(const std::string& name, int id, const std::string& allocator, int bytes,
                     int created, int destroyed) {
    const std::string at = R"("pid":2,"tid":0,"cat":"Tensor","name":")" + name + R"(","id":)" +
                           std::to_string(id) + R"(,"ts":)";
    return R"({"ph":"X","cat":"Op","name":"Op)" + std::to_string(id) +
           R"(","pid":1,"tid":0,"ts":)" + std::to_string(created) + R"(,"dur":1,"args":{"name":")" +
           name.substr(0, name.find(':')) + R"(","op":"Op"}},)" + R"({"ph":"N",)" + at +
           std::to_string(created) + "},{\"ph\":\"O\"," + at + std::to_string(created) +
           R"(,"args":{"snapshot":{"tensor_description":"dtype: DT_FLOAT\nallocation_description {\n  requested_bytes: )" +
           std::to_string(bytes) + R"(\n  allocator_name: )" + allocator +
           R"(\n}\n"}}},{"ph":"D",)" + at + std::to_string(destroyed) + "},";
}
std::string tfCounter(const std::string& allocator, int ts, int total) {
    return R"({"ph":"C","cat":"Memory","pid":0,"tid":0,"name":")" + allocator + R"(","ts":)" +
           std::to_string(ts) + R"(,"args":{")" + allocator + R"(":)" + std::to_string(total) +
           "}},";
}
} // namespace

TEST(MemoryPeaks, AnAllocatorsPeakListsItsOwnTensorsAsTimelinePyDoes) {
    // Allocator A peaks at 150 bytes at 5 us: t1 and t3 live; t5 (0 bytes, freed at 3) and t6
    // (freed when created, at 4) too, since timeline.py's sweep never drops them; t4 (allocated
    // at 10) not; t2 belongs to allocator B, alive at the same time.
    std::string json = "[" + tfTensor("t1", 1, "A", 100, 0, 10) +
                       tfTensor("t2", 2, "B", 500, 0, 30) + tfTensor("t3:1", 3, "A", 50, 5, 20) +
                       tfTensor("t4", 4, "A", 70, 10, 15) + tfTensor("t5", 5, "A", 0, 1, 3) +
                       tfTensor("t6", 6, "A", 30, 4, 4);
    for (const auto& [ts, total] : std::vector<std::pair<int, int>>{{0, 100},
                                                                    {1, 100},
                                                                    {3, 100},
                                                                    {4, 70},
                                                                    {4, 100},
                                                                    {5, 150},
                                                                    {10, 50},
                                                                    {10, 120},
                                                                    {15, 50},
                                                                    {20, 0}})
        json += tfCounter("A", ts, total);
    json += tfCounter("B", 0, 500) + tfCounter("B", 30, 0);
    json.back() = ']';
    auto st = importJson(json);
    const auto peaks = memoryPeaks(st);
    ASSERT_EQ(peaks.size(), 2u);
    const MemoryPeak& b = peaks[0];
    const MemoryPeak& a = peaks[1];
    EXPECT_EQ(st.str(st.counters()[a.series].key), "A");
    EXPECT_TRUE(a.byAllocator);
    EXPECT_EQ(a.peak, 150.0);
    EXPECT_EQ(a.ts, 5'000);
    EXPECT_EQ(a.allocatedBytes, 250);
    std::vector<std::pair<std::string_view, std::int64_t>> live;
    for (std::size_t i = 0; i < a.liveObjects.size(); ++i)
        live.emplace_back(st.str(st.objects()[a.liveObjects[i]].name), a.liveBytes[i]);
    const std::vector<std::pair<std::string_view, std::int64_t>> want = {
        {"t1", 100}, {"t3:1", 50}, {"t6", 30}, {"t5", 0}}; // largest first
    EXPECT_EQ(live, want);
    // Producers: the op slice with args.name = the tensor's node, starting at its creation.
    ASSERT_EQ(a.producers.size(), 4u);
    ASSERT_NE(a.producers[0], kNoIndex);
    ASSERT_NE(a.producers[1], kNoIndex); // "t3:1" is output 1 of node t3
    EXPECT_EQ(st.str(st.sliceName()[a.producers[0]]), "Op1");
    EXPECT_EQ(st.str(st.sliceName()[a.producers[1]]), "Op3");
    ASSERT_EQ(b.liveObjects.size(), 1u);
    EXPECT_EQ(st.str(st.objects()[b.liveObjects[0]].name), "t2");
    EXPECT_EQ(b.allocatedBytes, 500);

    const TensorAllocation t3 = tensorAllocation(st, st.objects()[2]);
    EXPECT_TRUE(t3.known);
    EXPECT_EQ(t3.allocator, "A");
    EXPECT_EQ(t3.bytes, 50);
}
