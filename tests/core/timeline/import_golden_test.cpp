// Every file of the shared Chrome-trace corpus imports to exactly the store it imported to when
// this table was recorded: counts, sums and a hash over every table of the store and of its
// report (tests/support/store_digest.h). On a mismatch the test prints the rows it got. Reading
// the events array in windows (ImportOptions::parseWindowBytes) gives the same stores, on the
// corpus and on pretty-printed traces with the common kinds of damage, and gives the file's
// pages back behind it.
#include "core/timeline/chrome_trace_reader.h"
#include "resident.h"
#include "store_digest.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace xt::timeline;

namespace {

struct Golden {
    const char* path;
    std::uint64_t slices, flows, compatFlows, counters, instants, objects, tracks;
    std::int64_t durationSum;
    std::uint64_t depthSum, storeHash, reportHash;
};

// clang-format off
const std::vector<Golden> kGolden = {
    {"ansible-trace/example-trace.v1-unterminated.json", 278, 0, 0, 0, 0, 0, 6, 999735088000, 0, 0xc158850178d63fc6ull, 0xc59f6cbeaee2a699ull},
    {"bazel/command-88049215-ba46-42a7-99fe-c2d2df449acd.profile.gz", 653, 0, 0, 7, 2, 0, 81, 229638187000, 209, 0x497e7cd3d2a147f2ull, 0x6374215300d37d0full},
    {"bazel/command-9b5addb7-7e0a-4c64-b3b9-adefcddafddf.profile.gz", 999, 0, 0, 4, 3, 0, 59, 2737267000, 309, 0xcd97a7be28207bc1ull, 0xcf2a124a5bf57943ull},
    {"catapult/async_begin_end.json", 15, 0, 0, 0, 0, 0, 11, 4945000, 1, 0x9987692a6af65d03ull, 0x4a2f0011c404726full},
    {"catapult/flow.json", 1625, 758, 438, 0, 0, 0, 25, 11133584000, 1902, 0x208246b3e85c749bull, 0xc780cca345a8dce3ull},
    {"catapult/instance_counters.json", 2, 0, 0, 2, 0, 0, 1, 38000, 0, 0xd9aa3021af33b28aull, 0xe5912ec3608f0d20ull},
    {"catapult/instant_events.json", 0, 0, 0, 0, 5, 0, 3, 0, 0, 0x2c0aead7e6e9daf5ull, 0x7131c15d2d199ed4ull},
    {"catapult/main_thread_has_unclosed_slices.json", 1684, 0, 0, 0, 0, 0, 22, 33423040000, 4865, 0x5a07200da70e12d2ull, 0x81083e1f5cb8654dull},
    {"catapult/nanoseconds.json", 8, 0, 0, 0, 0, 0, 1, 2020, 0, 0xa7e71f9ffac057e3ull, 0xc7c8cf4fde58612eull},
    {"catapult/nestable_async.json", 9, 0, 0, 0, 2, 0, 6, 330000, 0, 0xac3ec453591fd921ull, 0x5af242e265b825d9ull},
    {"catapult/simple_trace.json", 12, 0, 0, 1, 6, 0, 3, 99000, 15, 0xc4bab69b8a7e4742ull, 0x7f64ad74fb9e2d36ull},
    {"catapult/simple_trace_gz.gz", 12, 0, 0, 1, 4, 0, 3, 99000, 15, 0x7ec05bc5552493d6ull, 0x21d3d0e943786cfeull},
    {"catapult/simple_trace_zip.zip", 12, 0, 0, 1, 4, 0, 3, 99000, 15, 0x7ec05bc5552493d6ull, 0x21d3d0e943786cfeull},
    {"catapult/trivial_trace.json", 2, 0, 0, 0, 0, 0, 1, 38000, 0, 0x3f22d0363d1a7306ull, 0x3e8b8bd224851566ull},
    {"catapult/x_event_trace.json", 3294, 0, 0, 1, 59, 2, 7, 1659774000, 27955, 0xaf3bcbfcd1743156ull, 0x174aae9e122f29dfull},
    {"clang-ftime-trace/blender-mac-clang14__obj_export_file_writer.json", 824, 0, 0, 0, 0, 0, 20, 11454413000, 61885, 0xb9082ce3db13e1aeull, 0x92fe2b86b75d88edull},
    {"hta/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz", 113, 20, 20, 0, 2, 0, 4, 52276266, 634, 0x6009f680ccdadaefull, 0x505f3e9bb642130cull},
    {"hta/critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz", 868, 139, 139, 0, 2, 0, 5, 307784449000, 24908, 0x4227d9eebb3e33e7ull, 0xd1ea142f1580a4acull},
    {"hta/large_integer_trace__rank-70.pt.trace.json.gz", 2, 0, 0, 0, 0, 0, 2, 150000, 0, 0x541d568a750d0001ull, 0x295233f86a75d29bull},
    {"hta/trace_compare__base__base.json.gz", 33, 0, 0, 0, 0, 0, 4, 224906000, 6, 0x2ba53b15eac0b947ull, 0xad786c75af875993ull},
    {"hta/trace_compare__test__test.json.gz", 34, 0, 0, 0, 0, 0, 4, 225364000, 7, 0x682646f49fb3c0f1ull, 0x7e3e668e1bf7a2b5ull},
    {"kineto/docs__after_fix_trace.json", 9, 1, 1, 0, 2, 0, 3, 460, 1, 0x939a600943ab0089ull, 0x06224150e24f2cf0ull},
    {"kineto/samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz", 44666, 9096, 9096, 0, 12840, 0, 4, 4457144000, 295908, 0xb5751e2078fd2852ull, 0xad542c1bf8e9ac70ull},
    {"kineto/test__gpu_metrics_input.json", 254, 32, 32, 0, 2, 0, 4, 49625000, 1331, 0x970839a226c78ef0ull, 0xd7353bffc6417f1bull},
    {"perfetto-fixtures/connected_flow_data.json", 11, 7, 7, 0, 0, 0, 4, 4600000, 2, 0xf2417c33c20aa4abull, 0xd4fb4e9a3b10701dull},
    {"perfetto-fixtures/flow_events_json_v1.json", 5, 3, 3, 0, 0, 0, 5, 1020000, 0, 0xe1989a8c8bc1d85bull, 0xf32bab41968f97dfull},
    {"perfetto-fixtures/flow_events_json_v2.json", 6, 4, 4, 0, 1, 0, 5, 2017000, 0, 0xb1ccc1913086a8daull, 0x60250f9c54977b42ull},
    {"speedscope-fixtures/simple-partial-trailing-comma.json", 4, 0, 0, 0, 0, 0, 1, 31000, 9, 0x10a1ae3db6d22592ull, 0x73f1719d1703fcf3ull},
    {"speedscope-fixtures/simple-partial-whitespace.json", 4, 0, 0, 0, 0, 0, 1, 31000, 9, 0x10a1ae3db6d22592ull, 0x23293dba93ed8480ull},
    {"speedscope-fixtures/simple-partial.json", 4, 0, 0, 0, 0, 0, 1, 31000, 9, 0x10a1ae3db6d22592ull, 0xaa9767975551da12ull},
    {"tf-timeline/KittiBox__timeline_01.json", 9920, 39, 39, 0, 0, 0, 14, 8044224000, 0, 0xd8beb2cf992acaeeull, 0x15fd440390de2625ull},
    {"tf-timeline/blackbox-attacks__timeline_01.json", 31, 0, 0, 0, 0, 0, 7, 697523000, 0, 0x8179c344bb6f034cull, 0x3d0353a3a06195f5ull},
    {"tf-timeline/conv_relation__timeline.ctf.json", 1068, 80, 80, 0, 0, 0, 16, 538467000, 0, 0xb2b5c60f98011363ull, 0x2b8317b6bc82db18ull},
    {"tf-timeline/mnist-xla__timeline.ctf.json", 333, 33, 33, 0, 0, 0, 17, 96094000, 0, 0xcd571a1d9d446a1bull, 0x3a6c8fddc45ace6aull},
    {"tf-timeline/seasonyc__timeline.keras.json", 377, 240, 240, 5, 0, 178, 56, 5500000, 0, 0x3daccd9ad9f66503ull, 0xa19959fa5003b2b8ull},
    {"tf-timeline/seasonyc__timeline.tf.json", 360, 237, 237, 5, 0, 153, 69, 12666000, 0, 0x031e5e6af6c83ab9ull, 0x90231ba81d991a68ull},
    {"tf-timeline/tensorflow_profiling__CPU__timeline_02_step_0.json", 67, 30, 30, 0, 0, 0, 4, 31656000, 0, 0x2a8ccb041563affbull, 0x611b473f8f7f56aaull},
    {"tf-timeline/tensorflow_profiling__GPU__timeline_01.json", 31, 2, 2, 0, 0, 0, 8, 235305000, 0, 0xf65c5055c10f5cd4ull, 0x5153e80d846572aaull},
    {"tf-timeline/tensorflow_profiling__GPU__timeline_03_merged_5_runs.json", 847, 69, 69, 0, 0, 0, 12, 124245000, 0, 0xaeeb4ed3462de644ull, 0xe966f5f455a48052ull},
    {"tracelens/h100__gaunernst_bert-small-uncased__1016001.json.gz", 2060, 61, 61, 0, 238, 0, 4, 174107606, 2261443, 0xf106b02179988831ull, 0xd4f64ffbf284c1dbull},
    {"viztracer/gradient_descent.json", 24661, 0, 0, 1, 5, 0, 1, 94744600, 840451, 0xb0ecbf7c399dbbc7ull, 0x308c269675bb70ddull},
    {"viztracer/multithread.json", 582, 0, 0, 0, 0, 0, 5, 60130433, 14232, 0x06e7770cd6b8fe7cull, 0x14976e92dd71efa5ull},
};
const std::vector<std::pair<std::uint64_t, std::uint64_t>> kEdgeHashes = {
    {0x8b44f0da83f8a65bull, 0x4c82a90805e17feeull},
    {0x8b44f0da83f8a65bull, 0x4c82a90805e17feeull},
    {0xc8823a689e1f9a63ull, 0xda9ec8bd6fae4b29ull},
    {0x88b44d390560a804ull, 0xd4adece58e2459ceull},
    {0x54eef9dd6be9ae82ull, 0x5fe46f60c64e5e5full},
    {0x54eef9dd6be9ae82ull, 0x5fe46f60c64e5e5full},
    {0x8626911a048e5c13ull, 0xa017967b6c0cc4f3ull},
    {0x8626911a048e5c13ull, 0xa017967b6c0cc4f3ull},
    {0xcb9e4ac6f8915f4cull, 0xe8e54e9f9f8ec450ull},
    {0xcb9e4ac6f8915f4cull, 0xe8e54e9f9f8ec450ull},
    {0x24e4ca4593d5069bull, 0x6ecdcd7cf0d7769full},
    {0x24e4ca4593d5069bull, 0x6ecdcd7cf0d7769full},
    {0x19dfa97812b62d61ull, 0x1075ad55cae42ed6ull},
    {0x19dfa97812b62d61ull, 0x1075ad55cae42ed6ull},
    {0x25d296d3f69ea1dcull, 0x074aa22705b2c077ull},
    {0x25d296d3f69ea1dcull, 0x074aa22705b2c077ull},
};
// clang-format on

// Small traces for the rules the corpus exercises little: B/E mismatch, flows backwards and
// unbound, v2 flows, async lanes and unmatched ends, objects, counters, bounds, bad events.
const char* const kEdgeCases[] = {
    R"j([{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"E","pid":1,"tid":1,"ts":5},
        {"ph":"E","pid":1,"tid":1,"ts":6},{"ph":"B","name":"open","pid":1,"tid":1,"ts":7},
        {"ph":"X","name":"x","pid":1,"tid":1,"ts":2,"dur":9},{"ph":"X","name":"y","pid":1,
        "tid":2,"ts":3},{"ph":"X","name":"z","pid":1,"tid":2,"ts":3,"dur":-4}])j",
    R"j([{"ph":"X","name":"p","pid":1,"tid":1,"ts":10,"dur":5},{"ph":"X","name":"c","pid":1,
        "tid":2,"ts":1,"dur":3},{"ph":"f","id":7,"pid":1,"tid":2,"ts":2,"bp":"e"},
        {"ph":"s","id":7,"pid":1,"tid":1,"ts":11},{"ph":"t","id":8,"pid":1,"tid":9,"ts":1},
        {"ph":"s","id":"0x1f","cat":"k","pid":1,"tid":2,"ts":1},{"ph":"f","id":"0x1f","cat":"k",
        "pid":1,"tid":1,"ts":9},{"ph":"s","name":"n","id":"abc","pid":1,"tid":1,"ts":12},
        {"ph":"t","name":"n","id":"abc","pid":1,"tid":2,"ts":2},{"ph":"f","name":"n","id":"abc",
        "pid":1,"tid":1,"ts":14}])j",
    R"j([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2,"bind_id":"9","flow_out":true},
        {"ph":"X","name":"b","pid":1,"tid":2,"ts":5,"dur":2,"bind_id":"9","flow_in":true},
        {"ph":"X","name":"c","pid":1,"tid":2,"ts":8,"dur":2,"bind_id":"3","flow_in":true}])j",
    R"j([{"ph":"b","name":"req","cat":"c","id":1,"pid":1,"ts":1,"args":{"k":1}},
        {"ph":"b","name":"req","cat":"c","id":2,"pid":1,"ts":2},{"ph":"e","name":"req","cat":"c",
        "id":1,"pid":1,"ts":5},{"ph":"e","cat":"c","id":3,"pid":1,"ts":6},{"ph":"S","name":"old",
        "id":4,"pid":2,"ts":1},{"ph":"F","id":4,"pid":2,"ts":3},{"ph":"b","name":"req","cat":"c",
        "id":5,"pid":1,"ts":6},{"ph":"e","name":"req","cat":"c","id":5,"pid":1,"ts":4},
        {"ph":"S","name":"old","id":6,"pid":2,"ts":2},{"ph":"X","name":"x","pid":1,"tid":1,
        "ts":9,"dur":1}])j",
    R"j({"displayTimeUnit":"ns","distributedInfo":{"rank":3},"traceEvents":[
        {"ph":"M","name":"process_name","pid":2,"args":{"name":"two"}},
        {"ph":"M","name":"process_sort_index","pid":2,"args":{"sort_index":-1}},
        {"ph":"M","name":"process_labels","pid":2,"args":{"labels":"L"}},
        {"ph":"M","name":"thread_name","pid":2,"tid":"w","args":{"name":"worker"}},
        {"ph":"M","name":"thread_sort_index","pid":2,"tid":"w","args":{"sort_index":"3"}},
        {"ph":"M","name":"thread_name","pid":1,"tid":1},{"ph":"M","name":"num_cpus","pid":1,
        "args":{"n":8}},{"ph":"C","name":"mem","pid":2,"ts":4,"args":{"a":1,"b":"2","c":null}},
        {"ph":"C","name":"mem","id":7,"pid":2,"ts":2,"args":{"":5}},{"ph":"C","name":"e","pid":2,
        "ts":2},{"ph":"C","name":"e","pid":2,"ts":2,"args":{"s":"x"}},
        {"ph":"N","name":"o","id":"0x1","pid":2,"ts":1},{"ph":"O","name":"o","id":"0x1","pid":2,
        "ts":2,"args":{"snapshot":{"v":1}}},{"ph":"N","name":"o","id":"0x1","pid":2,"ts":3},
        {"ph":"D","name":"o","id":"0x1","pid":2,"ts":4},{"ph":"D","name":"o","id":"0x2","pid":2,
        "ts":4},{"ph":"O","name":"q","id":1,"pid":2,"ts":4},
        {"ph":"i","name":"i1","pid":2,"tid":"w","ts":3,"s":"g"},{"ph":"I","name":"i2","pid":2,
        "tid":"w","ts":1},{"ph":"n","name":"i3","pid":2,"ts":2},{"ph":"R","name":"i4","pid":2,
        "tid":"w","ts":2,"s":"p"}]})j",
    R"j([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"Q","pid":1,"ts":1},
        {"ph":"XX","pid":1,"ts":1},{"pid":1,"ts":1},{"ph":"X","pid":1,"tid":1},
        {"ph":"X","pid":1,"tid":1,"ts":null},{"ph":"X","pid":1,"tid":1,"ts":1e300},
        {"ph":"T","pid":1,"ts":1},{"ph":"p","pid":1,"ts":1},{"ph":"P","pid":1,"ts":1},
        {"ph":"c","pid":1,"ts":1},{"ph":"(","pid":1,"ts":1},{"ph":")","pid":1,"ts":1},
        {"ph":"s","pid":1,"tid":1,"ts":1},{"ph":"D","pid":1,"ts":1},"str",,
        {"ph":"X","name":"b","pid":1,"tid":1,"ts":"1.0005","dur":"2"},{"ph":1},
        {"ph":"X","name":"c","pid":1,"tid":1,"ts":3,"dur":1,}, {"ph":"X","name":"d\u0041",
        "pid":1,"tid":1,"ts":3,"dur":1,"args":{"x":"\""}},])j",
    R"j([{"ph":"X","name":"a","pid":"p1","tid":"t1","ts":1,"dur":5},{"ph":"X","name":"b",
        "pid":"p1","tid":"t1","ts":2,"dur":5},{"ph":"X","name":"c","pid":"p1","tid":"t1","ts":3,
        "dur":1},{"ph":"X","name":"d","pid":10,"tid":2,"ts":3,"dur":1},{"ph":"X","name":"e",
        "pid":9,"tid":2,"ts":3,"dur":1},{"ph":"X","name":"f","pid":9,"tid":10,"ts":3,"dur":1},
        {"ph":"X","name":"g","pid":9,"tid":3,"ts":3,"dur":1},{"ph":"X","name":"h","pid":11,
        "tid":3,"ts":3,"dur":1},{"ph":"X","name":"i","pid":12,"tid":3,"ts":3,"dur":1,
        "args":[[[[1]]]]},{"ph":"i","pid":13,"tid":1,"ts":3,"s":"t"}])j",
    R"j({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}],"x":[)j",
};

std::string corpusDir() {
    return std::string(XT_SHARED_DIR) + "/corpus/chrome/";
}

std::vector<std::string> manifestPaths() {
    std::vector<std::string> out;
    std::ifstream in(corpusDir() + "MANIFEST.tsv");
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        const auto tab = line.find('\t');
        if (tab != std::string::npos && tab > 0) out.push_back(line.substr(0, tab));
    }
    return out;
}

std::string row(const std::string& path, const test::StoreDigest& d, std::uint64_t compatFlows) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "    {\"%s\", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
                  ", %" PRIu64 ", %" PRIu64 ", %" PRId64 ", %" PRIu64 ", 0x%016" PRIx64
                  "ull, 0x%016" PRIx64 "ull},\n",
                  path.c_str(), d.slices, d.flows, compatFlows, d.counters, d.instants, d.objects,
                  d.tracks, d.durationSum, d.depthSum, d.storeHash, d.reportHash);
    return buf;
}

} // namespace

TEST(TimelineImportGolden, EveryCorpusFileImportsToTheRecordedStore) {
    if (!std::filesystem::exists(corpusDir() + "MANIFEST.tsv"))
        GTEST_SKIP() << "shared corpus not found at " << corpusDir();
    const auto paths = manifestPaths();
    const bool recording = kGolden.empty();
    if (!recording) ASSERT_EQ(paths.size(), kGolden.size()) << "the corpus changed: re-record";
    std::string got;
    bool same = true;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        SCOPED_TRACE(paths[i]);
        auto r = importChromeTrace(corpusDir() + paths[i]);
        ASSERT_TRUE(r.isOk()) << r.status().toString();
        ImportOptions compat;
        compat.chromeCompatibleFlows = true;
        auto c = importChromeTrace(corpusDir() + paths[i], compat);
        ASSERT_TRUE(c.isOk()) << c.status().toString();
        const auto d = test::digest(*r);
        got += row(paths[i], d, c->flows().size());
        if (recording) continue;
        const Golden& g = kGolden[i];
        EXPECT_EQ(paths[i], g.path);
        EXPECT_EQ(d.slices, g.slices);
        EXPECT_EQ(d.flows, g.flows);
        EXPECT_EQ(c->flows().size(), g.compatFlows);
        EXPECT_EQ(d.counters, g.counters);
        EXPECT_EQ(d.instants, g.instants);
        EXPECT_EQ(d.objects, g.objects);
        EXPECT_EQ(d.tracks, g.tracks);
        EXPECT_EQ(d.durationSum, g.durationSum);
        EXPECT_EQ(d.depthSum, g.depthSum);
        EXPECT_EQ(d.storeHash, g.storeHash);
        EXPECT_EQ(d.reportHash, g.reportHash);
        same = same && d.storeHash == g.storeHash && d.reportHash == g.reportHash;
    }
    if (recording || !same) std::fputs(got.c_str(), stdout);
}

TEST(TimelineImportGolden, EdgeCasesImportToTheRecordedStore) {
    ImportOptions tight;
    tight.maxProcesses = 4;
    tight.maxThreads = 6;
    tight.maxJsonDepth = 3;
    std::string got;
    for (std::size_t i = 0; i < std::size(kEdgeCases); ++i) {
        for (int compat = 0; compat < 2; ++compat) {
            ImportOptions o = tight;
            o.chromeCompatibleFlows = compat;
            auto r = importChromeTraceBytes(kEdgeCases[i], o, "edge.json");
            ASSERT_TRUE(r.isOk()) << i << ": " << r.status().toString();
            const auto d = test::digest(*r);
            char buf[80];
            std::snprintf(buf, sizeof buf, "    {0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull},\n",
                          d.storeHash, d.reportHash);
            got += buf;
            const std::size_t k = 2 * i + compat;
            if (k < kEdgeHashes.size()) {
                EXPECT_EQ(d.storeHash, kEdgeHashes[k].first)
                    << "case " << i << " compat " << compat;
                EXPECT_EQ(d.reportHash, kEdgeHashes[k].second)
                    << "case " << i << " compat " << compat;
            }
        }
    }
    EXPECT_EQ(kEdgeHashes.size(), 2 * std::size(kEdgeCases)) << got;
    if (HasFailure()) std::fputs(got.c_str(), stdout);
}

namespace {

ImportOptions windowed(std::size_t bytes) {
    ImportOptions o;
    o.parseWindowBytes = bytes;
    return o;
}

void expectSameStore(const xt::Result<TraceStore>& got, const xt::Result<TraceStore>& want,
                     const std::string& what) {
    ASSERT_EQ(got.isOk(), want.isOk()) << what;
    if (!want.isOk()) return;
    const auto a = test::digest(*got), b = test::digest(*want);
    EXPECT_EQ(a.slices, b.slices) << what;
    EXPECT_EQ(a.flows, b.flows) << what;
    EXPECT_EQ(a.storeHash, b.storeHash) << what;
    EXPECT_EQ(a.reportHash, b.reportHash) << what;
    if (a.reportHash != b.reportHash) { // say how the reports differ
        for (const auto* r : {&got->report(), &want->report()}) {
            std::string lines = "events " + std::to_string(r->events) + " '" + r->displayTimeUnit +
                                "' " + r->distributedInfo + "\n";
            for (const auto& d : r->diagnostics.items())
                lines += "  " + d.toString() + "\n";
            ADD_FAILURE() << (r == &got->report() ? "windows:\n" : "one document:\n") << lines;
        }
    }
}

// A trace as PyTorch's exporter writes it (each event over several lines) with `n` events of
// every kind the importer handles; every 7th event's args hold a list of objects, one per line,
// so that a line may break between two objects of one event.
std::string prettyTrace(int n, bool objectForm) {
    std::string t = objectForm
                        ? "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0}],"
                          "\n  \"traceEvents\": [\n"
                        : "[\n";
    for (int i = 0; i < n; ++i) {
        const std::string ts = std::to_string(1000 + 10 * i);
        const std::string tid = std::to_string(1 + i % 3);
        std::string e;
        switch (i % 9) {
        case 0:
            e = "\"ph\": \"X\", \"name\": \"op\\u00e9 " + std::to_string(i % 5) +
                "\", \"pid\": 1, \"tid\": " + tid + ", \"ts\": " + ts + ", \"dur\": 7";
            break;
        case 1:
            e = "\"ph\": \"B\", \"name\": \"outer\", \"pid\": 1, \"tid\": " + tid +
                ", \"ts\": " + ts;
            break;
        case 2:
            e = "\"ph\": \"E\", \"pid\": 1, \"tid\": " + tid + ", \"ts\": " + ts;
            break;
        case 3:
            e = "\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": " + ts +
                ", \"args\": {\"bytes\": " + std::to_string(i * 100) + "}";
            break;
        case 4:
            e = "\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"launch\", \"id\": " +
                std::to_string(i) + ", \"pid\": 1, \"tid\": 1, \"ts\": " + ts;
            break;
        case 5:
            e = "\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"ac2g\", \"name\": \"launch\", \"id\": " +
                std::to_string(i - 1) + ", \"pid\": 1, \"tid\": 2, \"ts\": " + ts;
            break;
        case 6:
            e = "\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": " + tid +
                ", \"args\": {\"name\": \"worker \\\"" + tid + "\\\"\"}";
            break;
        case 7:
            e = "\"ph\": \"i\", \"s\": \"t\", \"name\": \"mark\", \"pid\": 1, \"tid\": " + tid +
                ", \"ts\": " + ts;
            break;
        default:
            e = "\"ph\": \"b\", \"cat\": \"io\", \"name\": \"read\", \"id\": \"0x" +
                std::to_string(i) + "\", \"pid\": 1, \"ts\": " + ts;
        }
        if (i % 7 == 0)
            e += ",\n    \"args\": {\"inputs\": [\n      {\"shape\": [2, 3]},\n      {\"shape\": "
                 "[]}\n    ]}";
        t += "  {\n    " + e + "\n  }" + (i + 1 < n ? ",\n" : "\n");
    }
    t += objectForm
             ? "  ],\n  \"displayTimeUnit\": \"ns\",\n  \"distributedInfo\": {\"rank\": 0}\n}\n"
             : "]\n";
    return t;
}

// The offset of the n-th occurrence of `what` in `s`.
std::size_t nth(const std::string& s, const std::string& what, int n) {
    std::size_t at = 0;
    for (int i = 0; i <= n; ++i)
        at = s.find(what, i ? at + 1 : 0);
    return at;
}

} // namespace

TEST(TimelineImportWindows, EveryCorpusFileImportsAsOneDocumentDoes) {
    if (!std::filesystem::exists(corpusDir() + "MANIFEST.tsv"))
        GTEST_SKIP() << "shared corpus not found at " << corpusDir();
    for (const auto& path : manifestPaths())
        expectSameStore(importChromeTrace(corpusDir() + path, windowed(4096)),
                        importChromeTrace(corpusDir() + path, windowed(0)), path);
}

// Cuts, stray bytes, bad numbers and bytes, missing or extra commas, keys after the events: the
// damage real traces show. (Valid JSON is the guarantee; these pin the usual damage too.)
TEST(TimelineImportWindows, DamagedTracesImportAsOneDocumentDoes) {
    std::vector<std::pair<std::string, std::string>> cases;
    for (bool objectForm : {false, true}) {
        const std::string good = prettyTrace(240, objectForm);
        const std::string form = objectForm ? "object " : "array ";
        cases.push_back({form + "as written", good});
        cases.push_back({form + "with a byte-order mark", "\xEF\xBB\xBF \n" + good});
        std::string t = good;
        t.insert(nth(t, "\"dur\": 7", 20) + 7, "x"); // 7x: not a number
        cases.push_back({form + "bad number in event 180", t});
        t = good;
        t.insert(nth(t, "outer", 15) + 2, "\xFF"); // not UTF-8
        cases.push_back({form + "invalid UTF-8", t});
        t = good;
        t.insert(nth(t, "  },\n", 100) + 5, "garbage\n");
        cases.push_back({form + "garbage between events", t});
        t = good; // objects nested in events, on lines indented as events are
        for (std::size_t at = 0; (at = t.find("\n      {", at)) != std::string::npos;)
            t.erase(at + 1, 4);
        cases.push_back({form + "misleading line breaks", t});
        t = good;
        t.insert(t.rfind("  }") + 3, ",");
        cases.push_back({form + "trailing comma", t});
        t = good;
        t.erase(nth(t, "  },\n", 60) + 3, 1); // no comma between two events
        cases.push_back({form + "missing comma", t});
        if (objectForm) {
            t = good;
            t.insert(t.rfind("}"), ",\n  \"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"late\", "
                                   "\"pid\": 2, \"tid\": 1, \"ts\": 5, \"dur\": 1}\n  ]\n");
            cases.push_back({form + "a second traceEvents", t});
            t = good;
            t.insert(t.rfind("\"displayTimeUnit\""), "\"bad\": [1,, 2],\n  ");
            cases.push_back({form + "a bad key after the events", t});
        }
        for (std::size_t len = 1; len < good.size(); len += 397)
            cases.push_back({form + "cut at " + std::to_string(len), good.substr(0, len)});
    }
    // Windows of a file are read from it (TraceBytes::copyText), of text in memory copied.
    xt::test::TempDir dir;
    const std::string path = dir.file("damaged.json");
    for (const auto& [what, text] : cases) {
        const auto whole = importChromeTraceBytes(text, windowed(0), "w.json");
        for (std::size_t window : {64, 700, 5000}) {
            SCOPED_TRACE(what + ", window " + std::to_string(window));
            expectSameStore(importChromeTraceBytes(text, windowed(window), "w.json"), whole, what);
        }
        std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
        SCOPED_TRACE(what + ", from a file");
        expectSameStore(importChromeTrace(path, windowed(700)),
                        importChromeTraceBytes(text, windowed(0), path), what);
    }
}

TEST(TimelineImportWindows, TheFilesPagesAreGivenBackBehindTheWindows) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("xt_windows_" + std::to_string(::getpid()) + ".json");
    const std::string text = prettyTrace(160000, true); // ~16 MB
    std::ofstream(path, std::ios::binary) << text;
    auto whole = importChromeTrace(path.string(), windowed(0));
    auto windows = importChromeTrace(path.string(), windowed(256 << 10));
    std::filesystem::remove(path);
    ASSERT_TRUE(whole.isOk() && windows.isOk());
    // The stores' texts, through an args range over the whole file.
    const ArgsRef all{0, std::uint32_t(text.size())};
    const std::uint64_t fileKb = text.size() / 1024;
    EXPECT_GT(xt::test::residentKbAt(whole->argsJson(all).data()), fileKb * 9 / 10);
    // A fault may map a whole large folio of the page cache (a file just written has them),
    // up to a few MB, so a little more than the last window stays.
    EXPECT_LT(xt::test::residentKbAt(windows->argsJson(all).data()), fileKb / 4);
    // (before anything reads the args back)
    EXPECT_EQ(windows->argsJson(all), text); // and the text reads back whole
    expectSameStore(windows, whole, "4 MB trace");
}
