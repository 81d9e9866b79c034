#include "seeds.h"

#include "core/summary/summary_builder.h"
#include "core/xdl/wire.h"
#include "fuzz_targets.h"
#include "step_stats.pb.h"
#include "temp_dir.h"

#include <cstring>
#include <fstream>

namespace xt::fuzz {

namespace {

std::string xdlFile() {
    using namespace xt::xdl;
    std::string out;
    const std::string header = encodeHeader({"loss", "fc1/weight", "step/ids"});
    appendLength(out, static_cast<std::uint32_t>(header.size()));
    out += header;
    RecordEncoder enc;
    for (std::int64_t g = 0; g < 3; ++g) {
        enc.begin(g, g + 1);
        const float loss = 1.5f - 0.25f * float(g);
        enc.addColumn(Dtype::Float, {}, Bytes(reinterpret_cast<const std::uint8_t*>(&loss), 4));
        const double w[6] = {0.5, -1.0, 2.0, 0.0, 1e300, -3.25};
        const std::int64_t shape[2] = {2, 3};
        enc.addColumn(Dtype::Double, shape,
                      Bytes(reinterpret_cast<const std::uint8_t*>(w), sizeof w));
        const std::int32_t ids[2] = {7, -1};
        const std::int64_t shape1[1] = {2};
        enc.addColumn(Dtype::Int32, shape1,
                      Bytes(reinterpret_cast<const std::uint8_t*>(ids), sizeof ids));
        (void)enc.finish(1700000000000 + g * 100);
        const Bytes b = enc.framed();
        out.append(reinterpret_cast<const char*>(b.data()), b.size());
    }
    return out;
}

// The summary of a part file, as the store builds it.
std::string summaryOf(const std::string& part) {
    const xt::test::TempDir dir;
    const std::string path = dir.file("train.trace.0.1");
    std::ofstream(path, std::ios::binary) << part;
    auto file = MappedFile::open(path);
    summary::PartSummary s;
    Diagnostics diag;
    std::string out;
    if (file && summary::extendSummary(s, *file, true, diag)) out = summary::serializeSummary(s);
    return out;
}

std::string discoveryEntry(std::uint8_t flags, const std::string& name, const std::string& body) {
    std::string s;
    s += char(flags);
    s += char(name.size());
    s += name;
    s += char(body.size() & 0xff);
    s += char(body.size() >> 8 & 0xff);
    return s + body;
}

std::string stepStats() {
    xt::tf::RunMetadata rm;
    auto* dev = rm.mutable_step_stats()->add_dev_stats();
    dev->set_device("/job:localhost/replica:0/task:0/device:GPU:0");
    auto add = [&](xt::tf::DeviceStepStats* d, const char* name, const char* label, int start,
                   int dur, int bytes) {
        auto* ns = d->add_node_stats();
        ns->set_node_name(name);
        ns->set_timeline_label(label);
        ns->set_all_start_micros(start);
        ns->set_all_end_rel_micros(dur);
        if (bytes) {
            auto* a =
                ns->add_output()->mutable_tensor_description()->mutable_allocation_description();
            a->set_requested_bytes(bytes);
            a->set_allocator_name("GPU_0_bfc");
        }
    };
    add(dev, "x", "x = Const()", 0, 10, 100);
    add(dev, "y", "y = Const()", 5, 10, 300);
    add(dev, "mm", "mm = MatMul(x, y/_3)", 20, 30, 50);
    auto* gpu = rm.mutable_step_stats()->add_dev_stats();
    gpu->set_device("/device:GPU:0/stream:7");
    add(gpu, "mm:MatMul", "sgemm @@mm:MatMul#id=3#", 22, 20, 0);
    return rm.SerializeAsString();
}

std::string webhdfs(int code, const std::string& location, const std::string& body) {
    std::string s;
    s += char(code & 0xff);
    s += char(code >> 8 & 0xff);
    s += char(location.size());
    return s + location + body;
}

} // namespace

const std::vector<std::string>& targetNames() {
    static const std::vector<std::string> names = {"xdl_record", "run_discovery",    "chrome_json",
                                                   "step_stats", "webhdfs_response", "summary"};
    return names;
}

FuzzFn targetFunction(const std::string& t) {
    if (t == "xdl_record") return xdlRecord;
    if (t == "run_discovery") return runDiscovery;
    if (t == "chrome_json") return chromeJson;
    if (t == "step_stats") return stepStats;
    if (t == "webhdfs_response") return webhdfsResponse;
    if (t == "summary") return summary;
    return nullptr;
}

std::vector<std::pair<std::string, std::string>> seedsFor(const std::string& t) {
    using namespace xt::xdl;
    if (t == "xdl_record") {
        const std::string file = xdlFile();
        return {
            {"file", file},
            {"meta", encodeMeta(MetaInfo{1, 3, 0, 2, 1700000000000, 1700000000200})},
            {"header_only",
             file.substr(0, 4 + readLength(reinterpret_cast<const std::uint8_t*>(file.data())))}};
    }
    if (t == "run_discovery") {
        const std::string file = xdlFile();
        const std::string meta = encodeMeta(MetaInfo{1, 3, 0, 2, 1700000000000, 1700000000200});
        return {{"one_run", discoveryEntry(2, "fuzzrun", file) +
                                discoveryEntry(2 | 4, "fuzzrun", meta) +
                                discoveryEntry(2, std::string("fuzzrun\x01\x02", 9), file)},
                {"two_ranks_sub", discoveryEntry(2 | 1, std::string("r\x01\x01", 3), file) +
                                      discoveryEntry(2 | 1, std::string("r\x00\x03", 3), file) +
                                      discoveryEntry(0, "notes.txt", "hello")}};
    }
    if (t == "chrome_json") {
        return {
            {"array", R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10,"args":{"k":1}},
{"ph":"B","name":"b","pid":1,"tid":1,"ts":2},{"ph":"E","pid":1,"tid":1,"ts":5},
{"ph":"i","name":"i","pid":1,"tid":2,"ts":3,"s":"g"},
{"ph":"C","name":"mem","pid":1,"ts":4,"args":{"bytes":100}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},
{"ph":"s","id":"0x1","name":"f","cat":"c","pid":1,"tid":1,"ts":1},
{"ph":"f","bp":"e","id":"0x1","name":"f","cat":"c","pid":1,"tid":2,"ts":3},
{"ph":"b","id":7,"name":"as","cat":"c","pid":"p","tid":1,"ts":1},
{"ph":"e","id":7,"name":"as","cat":"c","pid":"p","tid":1,"ts":9},
{"ph":"N","id":"o1","name":"T","pid":1,"ts":1},{"ph":"D","id":"o1","name":"T","pid":1,"ts":8},)"},
            {"object", R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"X","name":"x","pid":1,)"
                       R"("tid":1,"ts":1.5,"dur":2,"bind_id":3,"flow_out":true},{"ph":"X","na)"
                       R"(me":"y","pid":1,"tid":1,"ts":5,"dur":1,"bind_id":3,"flow_in":true}]})"},
        };
    }
    if (t == "step_stats") return {{"run_metadata", stepStats()}};
    if (t == "summary") return {{"part", summaryOf(xdlFile())}};
    if (t == "webhdfs_response") {
        return {
            {"filestatus", webhdfs(200, "",
                                   R"({"FileStatus":{"pathSuffix":"","type":"FILE","length":12,)"
                                   R"("modificationTime":1700000000000,"fileId":16386}})")},
            {"liststatus", webhdfs(200, "",
                                   R"({"FileStatuses":{"FileStatus":[{"pathSuffix":"a","type":)"
                                   R"("DIRECTORY","length":0},{"pathSuffix":"b","type":"FILE",)"
                                   R"("length":5}]}})")},
            {"boolean", webhdfs(200, "", R"({"boolean":true})")},
            {"remote_exception",
             webhdfs(403, "",
                     R"({"RemoteException":{"exception":"AccessControlException",)"
                     R"("javaClassName":"x","message":"Permission denied"}})")},
            {"redirect", webhdfs(307, "http://dn1:9864/webhdfs/v1/f?op=OPEN", "")},
        };
    }
    return {};
}

} // namespace xt::fuzz
