// TensorFlow RunMetadata / StepStats import: lanes, op labels, dataflow arrows, tensors and
// allocator memory, on a message built with the generated classes.
#include "core/timeline/memory_peaks.h"
#include "core/timeline/step_stats_reader.h"
#include "step_stats.pb.h"
#include "store_digest.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

using namespace xt::timeline;

namespace {

xt::tf::NodeExecStats* addNode(xt::tf::DeviceStepStats* d, const std::string& name,
                               const std::string& label, std::int64_t start, std::int64_t dur,
                               std::int64_t outBytes = 0) {
    auto* ns = d->add_node_stats();
    ns->set_node_name(name);
    ns->set_timeline_label(label);
    ns->set_all_start_micros(start);
    ns->set_all_end_rel_micros(dur);
    if (outBytes) {
        auto* a = ns->add_output()->mutable_tensor_description()->mutable_allocation_description();
        a->set_requested_bytes(outBytes);
        a->set_allocator_name("GPU_0_bfc");
    }
    return ns;
}

std::string sample() {
    xt::tf::RunMetadata rm;
    auto* cpu = rm.mutable_step_stats()->add_dev_stats();
    cpu->set_device("/job:localhost/replica:0/task:0/device:GPU:0");
    addNode(cpu, "x", "x = Const()", 0, 10, 100);
    addNode(cpu, "y", "y = Const()", 5, 10, 300);           // overlaps x: second lane
    addNode(cpu, "mm", "mm = MatMul(x, y/_3)", 20, 30, 50); // y/_3: Send/Recv suffix
    addNode(cpu, "relu", "relu = Relu(mm)", 60, 5);
    auto* gpu = rm.mutable_step_stats()->add_dev_stats();
    gpu->set_device("/device:GPU:0/stream:7");
    addNode(gpu, "mm:MatMul", "sgemm @@mm:MatMul#id=3#", 22, 20);
    std::string out;
    rm.SerializeToString(&out);
    return out;
}

std::uint32_t slice(const TraceStore& st, std::string_view name) {
    for (std::uint32_t s = 0; s < st.sliceCount(); ++s)
        if (st.str(st.sliceName()[s]) == name) return s;
    ADD_FAILURE() << name;
    return kNoIndex;
}

} // namespace

TEST(StepStats, TimelineSemantics) {
    const std::string bytes = sample();
    ASSERT_TRUE(looksLikeStepStats(bytes));
    auto json = stepStatsToChromeJson(bytes);
    ASSERT_TRUE(json.isOk()) << json.status().toString();
    auto r = importChromeTraceBytes(json.value());
    ASSERT_TRUE(r.isOk());
    const TraceStore& st = *r;
    EXPECT_EQ(st.report().diagnostics.countsByCode().count("malformed-event"), 0u);
    // Allocators + Compute and Tensors per device.
    ASSERT_EQ(st.processes().size(), 5u);
    EXPECT_EQ(st.processLabel(0), "Allocators");
    EXPECT_EQ(st.processLabel(1), "/job:localhost/replica:0/task:0/device:GPU:0 Compute");
    // Op names from labels; the GPU tracer op from "name:op".
    const auto x = slice(st, "Const"), mm = slice(st, "MatMul"), relu = slice(st, "Relu");
    // Lanes: y overlaps x, so the two Consts are on different threads of the device.
    std::uint32_t consts = 0;
    std::set<std::uint32_t> constTracks;
    for (std::uint32_t s = 0; s < st.sliceCount(); ++s)
        if (st.str(st.sliceName()[s]) == "Const") {
            ++consts;
            constTracks.insert(st.sliceTrack()[s]);
        }
    EXPECT_EQ(consts, 2u);
    EXPECT_EQ(constTracks.size(), 2u);
    const auto args = st.decodeArgs(st.sliceArgs(mm));
    ASSERT_GE(args.size(), 4u);
    EXPECT_EQ(args[0].second, "mm");
    EXPECT_EQ(args[3].second, "y/_3");
    // Dataflow: y (lane 1) -> mm (lane 0) is drawn; x -> mm and mm -> relu share lane 0.
    ASSERT_EQ(st.flows().size(), 1u);
    const auto from = st.flows()[0].fromSlice;
    EXPECT_EQ(st.str(st.sliceName()[from]), "Const");
    EXPECT_EQ(st.sliceStart()[from], 5'000); // y
    EXPECT_NE(st.sliceTrack()[from], st.sliceTrack()[mm]);
    EXPECT_EQ(st.sliceTrack()[x], st.sliceTrack()[mm]);
    EXPECT_EQ(st.flows()[0].toSlice, mm);
    EXPECT_NE(relu, kNoIndex);
    // Tensors: a consumer unrefs its input at its end minus 1 us (timeline.py), so x lives
    // [0, 49] (consumed by mm which ends at 50), y [5, 49], mm [20, 64].
    ASSERT_EQ(st.objects().size(), 3u);
    EXPECT_EQ(st.objects()[0].created, 0);
    EXPECT_EQ(st.objects()[0].destroyed, 49'000);
    EXPECT_EQ(st.objects()[2].destroyed, 64'000);
    // Memory: 100 + 300 + 50 live in [20, 49]: peak 450 at 20 us with three tensors live.
    auto peaks = memoryPeaks(st);
    ASSERT_EQ(peaks.size(), 1u);
    EXPECT_EQ(st.str(st.counters()[peaks[0].series].name), "Memory GPU_0_bfc");
    EXPECT_EQ(peaks[0].peak, 450.0);
    EXPECT_EQ(peaks[0].ts, 20'000);
    EXPECT_EQ(peaks[0].liveObjects.size(), 3u);
}

TEST(StepStats, FileImportAndErrors) {
    const std::string path = "/tmp/xt_step_stats_test.pb";
    {
        std::ofstream f(path, std::ios::binary);
        f << sample();
    }
    auto r = importStepStats(path);
    ASSERT_TRUE(r.isOk());
    EXPECT_EQ(r->report().phases.at("X"), 5u);
    EXPECT_EQ(r->report().container, "stepstats");
    EXPECT_EQ(r->report().inputBytes, sample().size());
    std::remove(path.c_str());
    EXPECT_FALSE(stepStatsToChromeJson("\x0a\x05garbage-more").isOk());
    EXPECT_FALSE(stepStatsToChromeJson("").isOk());
    EXPECT_FALSE(importStepStats("/nonexistent.pb").isOk());
}

TEST(StepStats, TensorsCarryTheirAllocatorAndTheTextTimelinePyWrites) {
    auto json = stepStatsToChromeJson(sample());
    ASSERT_TRUE(json.isOk());
    EXPECT_NE(json->find(R"(allocation_description {\n  requested_bytes: 300\n  )"
                         R"(allocator_name: GPU_0_bfc\n}\n)"),
              std::string::npos)
        << "quotes stripped as timeline.py does";
    auto r = importChromeTraceBytes(json.value());
    ASSERT_TRUE(r.isOk());
    const TraceStore& st = *r;
    const TensorAllocation y = tensorAllocation(st, st.objects()[1]);
    EXPECT_TRUE(y.known);
    EXPECT_EQ(y.allocator, "GPU_0_bfc");
    EXPECT_EQ(y.bytes, 300);
    const auto peaks = memoryPeaks(st);
    ASSERT_EQ(peaks.size(), 1u);
    ASSERT_TRUE(peaks[0].byAllocator);
    EXPECT_EQ(peaks[0].allocatedBytes, 450);
    ASSERT_EQ(peaks[0].liveBytes, (std::vector<std::int64_t>{300, 100, 50}));
    std::vector<std::string_view> ops;
    for (const auto s : peaks[0].producers)
        ops.push_back(s == kNoIndex ? "-" : st.str(st.sliceName()[s]));
    EXPECT_EQ(ops, (std::vector<std::string_view>{"Const", "Const", "MatMul"}));
}

namespace {

// A message with what the converter must carry through unchanged: times past the reader's
// range and negative durations, RecvTensor, an allocator name that needs escaping, an unnamed
// allocator, outputs consumed across devices.
std::string oddSample() {
    xt::tf::RunMetadata rm;
    auto* cpu = rm.mutable_step_stats()->add_dev_stats();
    cpu->set_device("/device:CPU:0");
    addNode(cpu, "a", "a = Const()", 100, 10, 64);
    auto* b = addNode(cpu, "b", "b = Neg(a)", 105, -3, 32);
    b->mutable_output(0)
        ->mutable_tensor_description()
        ->mutable_allocation_description()
        ->set_allocator_name("cpu \"pinned\"\n\\");
    addNode(cpu, "RecvTensor", "", 120, 4);
    addNode(cpu, "far", "far = Identity(a)", INT64_MAX - 5, INT64_MAX);
    auto* c = addNode(cpu, "c", "c = Add(a, b)", 4'600'000'000'000'000 - 1, 1, 8);
    c->mutable_output(0)
        ->mutable_tensor_description()
        ->mutable_allocation_description()
        ->set_allocator_name("");
    auto* gpu = rm.mutable_step_stats()->add_dev_stats();
    gpu->set_device("/device:GPU:0");
    addNode(gpu, "d", "d = MatMul(a, c, b/_1)", 130, 20, 16);
    addNode(gpu, "e", "e = Relu(d)", 131, 2);
    std::string out;
    rm.SerializeToString(&out);
    return out;
}

} // namespace

TEST(StepStats, DirectImportBuildsTheStoreTheChromeJsonGives) {
    {
        auto odd = importChromeTraceBytes(stepStatsToChromeJson(oddSample()).value());
        ASSERT_TRUE(odd.isOk());
        const auto& codes = odd->report().diagnostics.countsByCode();
        EXPECT_GE(codes.count("ts-out-of-range"), 1u) << "the odd sample reaches the time checks";
        EXPECT_GE(codes.count("bad-dur"), 1u);
    }
    for (const std::string& bytes : {sample(), oddSample()}) {
        auto json = stepStatsToChromeJson(bytes);
        ASSERT_TRUE(json.isOk()) << json.status().toString();
        auto viaJson = importChromeTraceBytes(json.value());
        ASSERT_TRUE(viaJson.isOk());
        const std::string path = "/tmp/xt_step_stats_direct_test.pb";
        {
            std::ofstream f(path, std::ios::binary);
            f << bytes;
        }
        auto direct = importStepStats(path);
        std::remove(path.c_str());
        ASSERT_TRUE(direct.isOk()) << direct.status().toString();
        // Everything but the byte offsets of diagnostics (there is no JSON to point into).
        const auto a = test::digest(*viaJson, false), b = test::digest(*direct, false);
        EXPECT_EQ(a.storeHash, b.storeHash);
        EXPECT_EQ(a.reportHash, b.reportHash);
        EXPECT_EQ(a.slices, b.slices);
        EXPECT_EQ(a.flows, b.flows);
        EXPECT_EQ(a.objects, b.objects);
        EXPECT_EQ(a.counters, b.counters);
        EXPECT_EQ(direct->report().phases, viaJson->report().phases);
        EXPECT_EQ(direct->report().diagnostics.countsByCode(),
                  viaJson->report().diagnostics.countsByCode());
        EXPECT_EQ(direct->report().container, "stepstats");
        EXPECT_EQ(direct->report().inputBytes, bytes.size());
    }
}
