// Multi-rank analyses on constructed Kineto-like traces whose every figure is worked out by hand
// in the comments: overlapping kernels on two streams, integer and float timestamps, the last
// ProfilerStep, a missing rank, a rank without GPU events and a trace without ProfilerSteps.
#include "chrome_json.h"
#include "core/export/ranks_report.h"
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/rank_analysis.h"
#include "core/timeline/rank_session.h"
#include "temp_dir.h"
#include "xtrace_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace xt::timeline;

namespace {

using xt::timeline::test::importJson;

constexpr std::int64_t us = 1000; // ns per microsecond

std::string x(const std::string& name, const std::string& cat, const std::string& pid,
              const std::string& tid, const std::string& ts, const std::string& dur,
              const std::string& args = "") {
    return R"({"ph":"X","name":")" + name + R"(","cat":")" + cat + R"(","pid":)" + pid +
           R"(,"tid":)" + tid + R"(,"ts":)" + ts + R"(,"dur":)" + dur +
           (args.empty() ? "" : R"(,"args":)" + args) + "}";
}
std::string corr(int c) {
    return R"({"device":0,"stream":7,"correlation":)" + std::to_string(c) + "}";
}

// One rank of a two-stream job. CPU (pid 1, tid 1): three ProfilerSteps [0,100) [100,200)
// [200,300) and the launches r1..r8. GPU (pid 0): stream 7 has K1 [20,50) K2 [52,60)
// K3 [100,120) and K4 [230,240) (launched in the last step); stream 13 has the collective
// N1 [40,40+ncclDur), the memcpy M1 [130,140), the memset X1 [145,150) and X2 [185,190).
std::string rankTrace(int rank, int ncclDur = 40, int step2Dur = 100, bool distributedInfo = true) {
    const std::string info = R"("distributedInfo":{"backend":"nccl","rank":)" +
                             std::to_string(rank) + R"(,"world_size":4,"pg_config":[{"rank":9}]},)";
    std::string ev;
    auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
    add(x("ProfilerStep#1", "user_annotation", "1", "1", "0", "100"));
    add(x("ProfilerStep#2", "user_annotation", "1", "1", "100", std::to_string(step2Dur)));
    add(x("ProfilerStep#3", "user_annotation", "1", "1", std::to_string(100 + step2Dur), "100"));
    add(x("cudaLaunchKernel", "cuda_runtime", "1", "1", "5", "5", R"({"correlation":1})"));
    add(x("cudaLaunchKernel", "cuda_runtime", "1", "1", "12", "3", R"({"correlation":2})"));
    add(x("cudaLaunchKernel", "cuda_runtime", "1", "1", "20", "2", R"({"correlation":3})"));
    add(x("cudaLaunchKernel", "cuda_runtime", "1", "1", "60", "2", R"({"correlation":8})"));
    add(x("cudaLaunchKernel", "cuda_runtime", "1", "1", "70", "4", R"({"correlation":4})"));
    add(x("cudaMemcpyAsync", "cuda_runtime", "1", "1", "105", "5", R"({"correlation":5})"));
    add(x("cudaMemsetAsync", "cuda_runtime", "1", "1", "110", "8", R"({"correlation":7})"));
    add(x("cudaLaunchKernel", "cuda_runtime", "1", "1", std::to_string(105 + step2Dur), "5",
          R"({"correlation":6})"));
    // Annotations on the GPU are not GPU work, and a GPU ProfilerStep is not a step.
    add(x("ProfilerStep#1", "gpu_user_annotation", "0", "7", "20", "40"));
    add(x("gemm_kernel", "kernel", "0", "7", "20", "30", corr(1)));
    add(x("relu_kernel", "kernel", "0", "7", "52", "8", corr(2)));
    add(x("gemm_kernel", "kernel", "0", "7", "100", "20", corr(4)));
    add(x("gemm_kernel", "kernel", "0", "7", std::to_string(130 + step2Dur), "10", corr(6)));
    add(x("ncclKernel_AllReduce_RING_LL_Sum_float", "kernel", "0", "\"stream 13\"", "40",
          std::to_string(ncclDur), corr(3)));
    add(x("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", "0", "\"stream 13\"", "130", "10",
          corr(5)));
    add(x("Memset (Device)", "gpu_memset", "0", "\"stream 13\"", "145", "5", corr(7)));
    add(x("fill_kernel", "kernel", "0", "\"stream 13\"", "185", "5", corr(8)));
    return "{" + (distributedInfo ? info : std::string()) + R"("traceEvents":[)" + ev + "]}";
}

const KernelStats* kernel(const RankAnalysis& a, const std::string& name) {
    for (const auto& k : a.kernels)
        if (k.name == name) return &k;
    return nullptr;
}

} // namespace

TEST(RankAnalysis, ClassifiesKernelsByNameAsHta) {
    EXPECT_EQ(classifyKernel("ncclKernel_AllReduce_RING_LL_Sum_float"), KernelType::Communication);
    EXPECT_EQ(classifyKernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
              KernelType::Communication);
    EXPECT_EQ(classifyKernel("nccl_helper"), KernelType::Computation); // no "Kernel" after nccl
    EXPECT_EQ(classifyKernel("Memcpy DtoD (Device -> Device)"), KernelType::Memory);
    EXPECT_EQ(classifyKernel("Memset (Device)"), KernelType::Memory);
    EXPECT_EQ(classifyKernel("dma_copy"), KernelType::Memory);
    EXPECT_EQ(classifyKernel("void cub::DeviceMemcpy_kernel"), KernelType::Other);
    EXPECT_EQ(classifyKernel("Stream Sync"), KernelType::Other);
    EXPECT_EQ(classifyKernel("volta_sgemm_128x64_nn"), KernelType::Computation);
    EXPECT_EQ(kernelTypeMaskLabel(3), "COMPUTATION overlapping COMMUNICATION");
    EXPECT_EQ(kernelTypeMaskLabel(7), "COMPUTATION overlapping COMMUNICATION overlapping MEMORY");
    EXPECT_TRUE(isGpuEventCategory("Kernel"));
    EXPECT_TRUE(isGpuEventCategory("gpu_memset"));
    EXPECT_FALSE(isGpuEventCategory("gpu_user_annotation"));
    EXPECT_TRUE(isDeviceCategory("gpu_user_annotation"));
}

TEST(RankAnalysis, OverlappingKernelsOnTwoStreams) {
    const TraceStore st = importJson(rankTrace(0));
    const RankAnalysis a = analyzeRank(st);
    EXPECT_FALSE(a.roundedToMicros);
    EXPECT_EQ(a.gpuEvents, 8u);
    // K4 was launched in the last step (r6 at 205 >= 200): left out.
    EXPECT_TRUE(a.lastStepExcluded);
    EXPECT_EQ(a.gpuEventsUsed, 7u);

    // Busy: [20,80) [100,120) [130,140) [145,150) [185,190) = 100 of the window [20,190).
    EXPECT_EQ(a.temporal.windowNs, 170 * us);
    EXPECT_EQ(a.temporal.idleNs, 70 * us);
    // Computation: K1 30 + K2 8 + K3 20 + X2 5 (fill_kernel) = 63.
    EXPECT_EQ(a.temporal.computeNs, 63 * us);
    EXPECT_EQ(a.temporal.nonComputeNs, 37 * us); // 22 of communication alone + 15 of memory
    // N1 [40,80) overlaps K1 on [40,50) and K2 on [52,60): 18 of 40.
    EXPECT_EQ(a.commNs, 40 * us);
    EXPECT_EQ(a.commOverlapNs, 18 * us);
    EXPECT_DOUBLE_EQ(*a.commCompOverlapPct(), 45.0);
    EXPECT_EQ(a.kernelTypes[1], 45 * us); // COMPUTATION alone
    EXPECT_EQ(a.kernelTypes[2], 22 * us); // COMMUNICATION alone
    EXPECT_EQ(a.kernelTypes[4], 15 * us); // MEMORY
    EXPECT_EQ(a.kernelTypes[3], 18 * us); // COMPUTATION overlapping COMMUNICATION
    EXPECT_EQ(a.kernelTypes[5] + a.kernelTypes[6] + a.kernelTypes[7], 0);

    // Stream 7: K2 - K1 = 2 with r2 (12) before K1's end: kernel wait; K3 - K2 = 40 with r4 (70)
    // after K2's end (60): host wait. Stream 13: M1 - N1 = 50, r5 (105) after 80: host wait;
    // X1 - M1 = 5, r7 (110) before 140: kernel wait; X2 - X1 = 35, r8 (60) before: other.
    ASSERT_EQ(a.idle.size(), 2u);
    EXPECT_EQ(a.idle[0].stream, 7);
    EXPECT_EQ(a.idle[0].hostWaitNs, 40 * us);
    EXPECT_EQ(a.idle[0].kernelWaitNs, 2 * us);
    EXPECT_EQ(a.idle[0].otherNs, 0);
    EXPECT_EQ(a.idle[1].stream, 13);
    EXPECT_EQ(a.idle[1].hostWaitNs, 50 * us);
    EXPECT_EQ(a.idle[1].kernelWaitNs, 5 * us);
    EXPECT_EQ(a.idle[1].otherNs, 35 * us);

    // Launch delays (GPU start - CPU end): K1 10, K2 37, N1 18, K3 26, M1 20, X1 27, X2 123.
    // Sorted 10 18 20 26 27 37 123: p50 = 26, p95 at 5.7 = 37 + 0.7 * 86 = 97.2.
    EXPECT_EQ(a.launch.kernels, 7u);
    EXPECT_DOUBLE_EQ(*a.launch.delayP50Ns, 26.0 * us);
    EXPECT_NEAR(*a.launch.delayP95Ns, 97.2 * us, 1e-6);
    EXPECT_EQ(a.launch.shortKernels, 1u); // X1: 5 on the GPU after 8 on the CPU
    EXPECT_EQ(a.launch.runtimeOutliers, 0u);
    EXPECT_EQ(a.launch.delayOutliers, 1u); // X2: 123 > 100

    const KernelStats* gemm = kernel(a, "gemm_kernel");
    ASSERT_TRUE(gemm);
    EXPECT_EQ(gemm->count, 2u); // K4 left out
    EXPECT_EQ(gemm->sumNs, 50 * us);
    EXPECT_EQ(gemm->minNs, 20 * us);
    EXPECT_EQ(gemm->maxNs, 30 * us);
    EXPECT_EQ(a.kernels.front().name, "gemm_kernel"); // largest sum first
    EXPECT_EQ(kernel(a, "Memcpy HtoD (Pageable -> Device)")->type, KernelType::Memory);

    // Steps idle over every GPU event, K4 included: 100 - 60, 100 - 40, 100 - 10.
    ASSERT_EQ(a.steps.size(), 3u);
    EXPECT_EQ(a.steps[0].name, "ProfilerStep#1");
    EXPECT_EQ(a.steps[0].idleNs, 40 * us);
    EXPECT_EQ(a.steps[1].idleNs, 60 * us);
    EXPECT_EQ(a.steps[2].idleNs, 90 * us);
    ASSERT_EQ(a.collectives.size(), 1u);
    EXPECT_EQ(a.collectiveNames[a.collectives[0].name], "ncclKernel_AllReduce_RING_LL_Sum_float");

    // With the last step included, K4 counts: the window reaches 240 and idle grows by 40.
    RankAnalysisOptions all;
    all.includeLastStep = true;
    const RankAnalysis b = analyzeRank(st, all);
    EXPECT_FALSE(b.lastStepExcluded);
    EXPECT_EQ(b.temporal.windowNs, 220 * us);
    EXPECT_EQ(b.temporal.idleNs, 110 * us);
}

TEST(RankAnalysis, FloatTimestampsAreRoundedToWholeMicrosecondsAsHta) {
    // Starts up, ends down: A [10.5, 15.7) -> [11, 15); B [20.25, 20.75) -> [21, 21) (clamped,
    // HTA would give -1); C [30, 40). Window 11..40 = 29, busy 4 + 0 + 10, idle 15.
    const TraceStore st = importJson(R"({"traceEvents":[
      {"ph":"X","name":"a","cat":"kernel","pid":0,"tid":7,"ts":10.5,"dur":5.2},
      {"ph":"X","name":"b","cat":"kernel","pid":0,"tid":7,"ts":20.25,"dur":0.5},
      {"ph":"X","name":"c","cat":"kernel","pid":0,"tid":7,"ts":30.0,"dur":10.0}]})");
    const RankAnalysis a = analyzeRank(st);
    EXPECT_TRUE(a.roundedToMicros);
    EXPECT_FALSE(a.lastStepExcluded);
    EXPECT_EQ(a.temporal.windowNs, 29 * us);
    EXPECT_EQ(a.temporal.idleNs, 15 * us);
    EXPECT_EQ(a.temporal.computeNs, 14 * us);
    EXPECT_EQ(kernel(a, "b")->sumNs, 0);
    // No launches: every gap is kernel wait (< 30) or other.
    ASSERT_EQ(a.idle.size(), 1u);
    EXPECT_EQ(a.idle[0].kernelWaitNs, 15 * us);
    EXPECT_FALSE(a.launch.delayP50Ns.has_value());

    // Integer timestamps keep fractional durations: [10, 15.5) [20, 30): idle 4.5 exactly.
    const TraceStore ints = importJson(R"([
      {"ph":"X","name":"a","cat":"kernel","pid":0,"tid":7,"ts":10,"dur":5.5},
      {"ph":"X","name":"b","cat":"kernel","pid":0,"tid":7,"ts":20,"dur":10}])");
    const RankAnalysis b = analyzeRank(ints);
    EXPECT_FALSE(b.roundedToMicros);
    EXPECT_EQ(b.temporal.windowNs, 20 * us);
    EXPECT_EQ(b.temporal.idleNs, 4500);
}

TEST(RankAnalysis, RankWithoutGpuEventsAndTraceWithoutSteps) {
    const TraceStore cpu = importJson(R"([
      {"ph":"X","name":"ProfilerStep#1","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":50},
      {"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":5,"dur":20}])");
    const RankAnalysis a = analyzeRank(cpu);
    EXPECT_EQ(a.gpuEvents, 0u);
    EXPECT_EQ(a.temporal.windowNs, 0);
    EXPECT_EQ(a.temporal.idleNs, 0);
    EXPECT_FALSE(a.commCompOverlapPct().has_value());
    EXPECT_TRUE(a.idle.empty());
    EXPECT_EQ(a.launch.kernels, 0u);
    ASSERT_EQ(a.steps.size(), 1u);
    EXPECT_EQ(a.steps[0].idleNs, 50 * us); // a step with no GPU work is all idle

    // No ProfilerStep: nothing is left out, there are no steps.
    const TraceStore nosteps = importJson(R"([
      {"ph":"X","name":"cudaLaunchKernel","cat":"cuda_runtime","pid":1,"tid":1,"ts":0,"dur":2,
       "args":{"correlation":1}},
      {"ph":"X","name":"k","cat":"kernel","pid":0,"tid":7,"ts":10,"dur":5,
       "args":{"correlation":1}},
      {"ph":"X","name":"k","cat":"kernel","pid":0,"tid":7,"ts":20,"dur":5}])");
    const RankAnalysis b = analyzeRank(nosteps);
    EXPECT_FALSE(b.lastStepExcluded);
    EXPECT_EQ(b.gpuEventsUsed, 2u);
    EXPECT_TRUE(b.steps.empty());
    EXPECT_EQ(b.temporal.windowNs, 15 * us);
    EXPECT_EQ(b.launch.kernels, 1u);
    EXPECT_DOUBLE_EQ(*b.launch.delayP50Ns, 8.0 * us);
}

TEST(RankAnalysis, StragglersAndCollectiveWaitAcrossRanks) {
    // Rank 1's collective is shortest (15): it arrived last, the others waited for it.
    // Rank 2's step 2 is 130 long: the straggler, 30 over the others.
    std::vector<std::pair<std::string, TraceStore>> traces;
    traces.emplace_back("r0.json", importJson(rankTrace(0, 40)));
    traces.emplace_back("r1.json", importJson(rankTrace(1, 15)));
    traces.emplace_back("r2.json", importJson(rankTrace(2, 25, 130)));
    const RankSession session = makeRankSession(std::move(traces));
    ASSERT_EQ(session.ranks.size(), 3u);
    EXPECT_EQ(session.worldSize, 4);
    EXPECT_EQ(session.missingRanks(), std::vector<int>{3});
    const SessionAnalysis s = analyzeRanks(session, {}, 2);
    ASSERT_EQ(s.perRank.size(), 3u);
    EXPECT_EQ(s.perRank[0].collectiveWaitNs, 25 * us);
    EXPECT_EQ(s.perRank[1].collectiveWaitNs, 0);
    EXPECT_EQ(s.perRank[2].collectiveWaitNs, 10 * us);
    EXPECT_EQ(s.perRank[0].steps[0].collectiveWaitNs, 25 * us); // N1 starts in step 1
    EXPECT_EQ(s.perRank[0].steps[1].collectiveWaitNs, 0);

    ASSERT_EQ(s.steps.size(), 3u);
    EXPECT_EQ(s.steps[1].name, "ProfilerStep#2");
    EXPECT_EQ(s.steps[1].slowestRank, 2);
    EXPECT_EQ(s.steps[1].fastestRank, 0);
    EXPECT_EQ(s.steps[1].skewNs, 30 * us);
    EXPECT_EQ(s.steps[0].skewNs, 0);
    EXPECT_EQ(s.steps[0].slowestRank, 0); // ties: the lowest rank
    ASSERT_EQ(s.steps[1].durByRank.size(), 3u);
    EXPECT_EQ(s.steps[1].durByRank[2], std::make_pair(2, 130 * us));

    // Top kernels: per type, summed over ranks.
    ASSERT_FALSE(s.topKernels.empty());
    EXPECT_EQ(s.topKernels[0].type, KernelType::Computation);
    EXPECT_EQ(s.topKernels[0].name, "gemm_kernel");
    EXPECT_EQ(s.topKernels[0].sumNs, 150 * us);
    EXPECT_EQ(s.topKernels[0].ranks.size(), 3u);
    bool comm = false;
    for (const TopKernel& k : s.topKernels)
        if (k.type == KernelType::Communication) {
            comm = true;
            EXPECT_EQ(k.sumNs, (40 + 15 + 25) * us);
        }
    EXPECT_TRUE(comm);

    // The report: the schema's keys, and one CSV table per view.
    const std::string json = xt::ranksReportJson(session, s);
    for (const char* key :
         {R"("rank":0)", R"("window_us":170)", R"("idle_pct":41.18)", R"("compute_pct":37.06)",
          R"("non_compute_pct":21.76)", R"("comm_comp_overlap_pct":45)",
          R"("COMPUTATION overlapping COMMUNICATION":18)", R"("stream":13)", R"("host_wait_us":50)",
          R"("launch_delay_p50_us":26)", R"("slowest_rank":2)", R"("skew_us":30)",
          R"("dur_us_by_rank":{"0":100,"1":100,"2":130})", R"("missing_ranks":[3])",
          R"("rank_source":"distributedInfo")"})
        EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
    const auto tables = xt::ranksReportTables(session, s);
    ASSERT_EQ(tables.size(), 5u);
    EXPECT_EQ(tables[0].name, "ranks");
    EXPECT_EQ(tables[0].rows.size(), 3u);
    EXPECT_EQ(tables[1].rows.size(), 6u); // two streams per rank
    EXPECT_EQ(tables[3].name, "stragglers");
    const std::string csv = xt::reportTableCsv(tables[3]);
    EXPECT_NE(
        csv.find("step,slowest_rank,fastest_rank,skew_us,rank 0 (us),rank 1 (us),rank 2 (us)"),
        std::string::npos)
        << csv;
    EXPECT_NE(csv.find("ProfilerStep#2,2,0,30.000,100.000,100.000,130.000"), std::string::npos)
        << csv;
}

TEST(RankSession, RanksFromDistributedInfoFileNamesOrAssigned) {
    EXPECT_EQ(rankFromDistributedInfo(R"({"backend":"nccl","rank":3,"world_size":8})"), 3);
    EXPECT_EQ(rankFromDistributedInfo(R"({"pg_config":[{"rank":5}],"rank":2})"), 2);
    EXPECT_FALSE(rankFromDistributedInfo(R"({"pg_config":[{"rank":5}]})").has_value());
    EXPECT_EQ(worldSizeFromDistributedInfo(R"({"rank":3,"world_size":8})"), 8);
    EXPECT_EQ(rankFromFileName("/x/rank-70.Mar_25.pt.trace.json.gz"), 70);
    EXPECT_EQ(rankFromFileName("trace_rank_3.json"), 3);
    EXPECT_EQ(rankFromFileName("RANK12.json"), 12);
    EXPECT_EQ(rankFromFileName("worker0.1623143566756.pt.trace.json.gz"), 0);
    EXPECT_FALSE(rankFromFileName("/rank5/trace.json").has_value()); // directories do not count
    EXPECT_FALSE(rankFromFileName("trace.json").has_value());
    EXPECT_FALSE(rankFromFileName("rank99999999999.json").has_value()); // not believed
    EXPECT_FALSE(rankFromDistributedInfo(R"({"rank":4294967296})").has_value());

    // Without distributedInfo: from the file name; a duplicate or none gets the lowest free.
    std::vector<std::pair<std::string, TraceStore>> traces;
    traces.emplace_back("a/rank_2.json", importJson(rankTrace(0, 40, 100, false)));
    traces.emplace_back("b/trace.json", importJson(rankTrace(0, 40, 100, false)));
    traces.emplace_back("c/rank-2.json", importJson(rankTrace(0, 40, 100, false)));
    traces.emplace_back("d/x.json", importJson(rankTrace(5)));
    const RankSession s = makeRankSession(std::move(traces));
    ASSERT_EQ(s.ranks.size(), 4u);
    EXPECT_EQ(s.ranks[0].rank, 0);
    EXPECT_EQ(s.ranks[0].file, "b/trace.json");
    EXPECT_EQ(s.ranks[0].source, RankSource::Assigned);
    EXPECT_EQ(s.ranks[1].rank, 1);
    EXPECT_EQ(s.ranks[1].file, "c/rank-2.json");
    EXPECT_EQ(s.ranks[2].rank, 2);
    EXPECT_EQ(s.ranks[2].source, RankSource::FileName);
    EXPECT_EQ(s.ranks[3].rank, 5);
    EXPECT_EQ(s.ranks[3].source, RankSource::DistributedInfo);
    EXPECT_EQ(s.diagnostics.countsByCode().at("duplicate-rank"), 1u);
    EXPECT_EQ(s.missingRanks(), (std::vector<int>{3, 4}));
}

TEST(RankSession, ImportsFilesInParallelWithAMissingRankAndCancel) {
    xt::test::TempDir dir;
    for (int r : {0, 1, 3}) {
        std::ofstream(dir.file("trace_" + std::to_string(r) + ".json")) << rankTrace(r);
    }
    std::ofstream(dir.file("broken.json")) << "not json at all";
    std::ofstream(dir.file("notes.txt")) << "ignored";

    auto files = expandTracePaths({dir.str()});
    ASSERT_TRUE(files.isOk());
    EXPECT_EQ(files->size(), 4u); // .txt left out
    auto glob = expandTracePaths({dir.file("trace_*.json")});
    ASSERT_TRUE(glob.isOk());
    EXPECT_EQ(glob->size(), 3u);
    EXPECT_FALSE(expandTracePaths({dir.file("nothing_*.json")}).isOk());
    EXPECT_FALSE(expandTracePaths({dir.file("missing.json")}).isOk());

    std::uint64_t lastDone = 0, lastTotal = 0;
    int calls = 0;
    RankImportOptions o;
    o.threads = 2;
    o.progress = [&](const xt::ProgressReport& r) {
        ++calls;
        lastDone = r.done;
        lastTotal = r.total;
        return true;
    };
    auto session = importRanks(*files, o);
    ASSERT_TRUE(session.isOk()) << session.status().toString();
    ASSERT_EQ(session->ranks.size(), 3u);
    EXPECT_EQ(session->ranks[2].rank, 3);
    EXPECT_EQ(session->missingRanks(), std::vector<int>{2});
    EXPECT_EQ(session->diagnostics.countsByCode().at("unreadable-trace"), 1u);
    EXPECT_GT(calls, 0);
    EXPECT_EQ(lastDone, lastTotal);

    o.progress = [](const xt::ProgressReport&) { return false; };
    auto cancelled = importRanks(*files, o);
    ASSERT_FALSE(cancelled.isOk());
    EXPECT_EQ(cancelled.status().code(), xt::ErrorCode::Cancelled);

    auto none = importRanks({dir.file("broken.json")});
    EXPECT_FALSE(none.isOk());
}

TEST(RankSession, AlignsAtAStepOrAtTheNthCollective) {
    // Rank 1's clock is 1000 us ahead; its collectives end 5 us later than rank 0's.
    std::vector<std::pair<std::string, TraceStore>> traces;
    traces.emplace_back("r0.json", importJson(rankTrace(0, 40)));
    traces.emplace_back("r1.json", importJson(R"({"distributedInfo":{"rank":1},"traceEvents":[
      {"ph":"X","name":"ProfilerStep#1","cat":"user_annotation","pid":1,"tid":1,"ts":1000,"dur":90},
      {"ph":"X","name":"ProfilerStep#2","cat":"user_annotation","pid":1,"tid":1,"ts":1100,"dur":90},
      {"ph":"X","name":"ncclKernel_AllReduce_RING_LL_Sum_float","cat":"kernel","pid":0,"tid":13,
       "ts":1030,"dur":50}]})"));
    const RankSession session = makeRankSession(std::move(traces));

    const Alignment rec = alignRanks(session, {});
    EXPECT_EQ(rec.offsetNs, (std::vector<std::int64_t>{0, 0}));

    AlignSpec step{AlignMode::Step, "ProfilerStep#2", "", 1};
    const Alignment a = alignRanks(session, step);
    EXPECT_EQ(a.offsetNs, (std::vector<std::int64_t>{0, -1000 * us}));
    EXPECT_EQ(a.anchored, (std::vector<char>{1, 1}));

    // N1 ends at 80 on rank 0, at 1080 on rank 1.
    AlignSpec coll{AlignMode::Collective, "", "ncclKernel_AllReduce_RING_LL_Sum_float", 1};
    const Alignment c = alignRanks(session, coll);
    EXPECT_EQ(c.offsetNs, (std::vector<std::int64_t>{0, -1000 * us}));
    coll.occurrence = 2; // there is no second one
    EXPECT_EQ(alignRanks(session, coll).anchored, (std::vector<char>{0, 0}));

    AlignSpec missing{AlignMode::Step, "ProfilerStep#3", "", 1}; // only on rank 0
    const Alignment m = alignRanks(session, missing);
    EXPECT_EQ(m.anchored, (std::vector<char>{1, 0}));
    EXPECT_EQ(m.offsetNs, (std::vector<std::int64_t>{0, 0}));
}

TEST(TimelineRanksCli, JsonTextAndCsvTables) {
    xt::test::TempDir dir;
    std::ofstream(dir.file("rank0.json")) << rankTrace(0, 40);
    std::ofstream(dir.file("rank1.json")) << rankTrace(1, 15, 130);
    // A rank without GPU events: zeros, and null where a share or a percentile is undefined.
    std::ofstream(dir.file("cpu_only.json")) << R"({"distributedInfo":{"rank":2},"traceEvents":[
      {"ph":"X","name":"ProfilerStep#2","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":90}]})";
    const auto json = xt::test::runXtrace("timeline-ranks --json " + dir.str());
    EXPECT_EQ(json.status, 0);
    EXPECT_EQ(json.out.rfind(R"({"ranks":[{"rank":0,"file":")", 0), 0u) << json.out;
    EXPECT_NE(
        json.out.find(R"("slowest_rank":1,"skew_us":40,"dur_us_by_rank":{"0":100,"1":130,"2":90})"),
        std::string::npos)
        << json.out;
    EXPECT_NE(json.out.find(R"("temporal":{"window_us":0,"idle_us":0,"compute_us":0,)"
                            R"("non_compute_us":0,"idle_pct":null,"compute_pct":null,)"
                            R"("non_compute_pct":null},"comm_comp_overlap_pct":null)"),
              std::string::npos)
        << json.out;
    EXPECT_NE(json.out.find(R"("idle_by_cause":[],"launch":{"kernels":0,)"
                            R"("launch_delay_p50_us":null,"launch_delay_p95_us":null)"),
              std::string::npos)
        << json.out;
    std::filesystem::remove(dir.file("cpu_only.json"));

    const std::string csvDir = dir.file("tables");
    const auto text =
        xt::test::runXtrace("timeline-ranks " + dir.file("rank*.json") + " --csv " + csvDir);
    EXPECT_EQ(text.status, 0);
    EXPECT_NE(text.out.find("ProfilerStep#2"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("missing ranks: 2, 3"), std::string::npos) << text.out;
    for (const char* t : {"ranks", "idle_by_stream", "steps", "stragglers", "top_kernels"}) {
        std::ifstream in(csvDir + "/" + t + ".csv");
        std::string header;
        EXPECT_TRUE(std::getline(in, header)) << t;
        std::string row;
        EXPECT_TRUE(std::getline(in, row)) << t << ": no rows";
    }
    EXPECT_EQ(xt::test::runXtrace("timeline-ranks " + dir.file("none*.json")).status, 2);
}
