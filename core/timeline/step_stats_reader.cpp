#include "core/timeline/step_stats_reader.h"

#include "core/base/byte_format.h"
#include "core/base/json_writer.h"
#include "core/timeline/json_kernel.h"
#include "step_stats.pb.h"

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace xt::timeline {

namespace {

struct OpLabel {
    std::string op = "unknown";
    std::vector<std::string> inputs;
};

// "name = Op(in, in)" -> Op and inputs; anything else -> unknown, no inputs. The same match as
// TF's regex (.*) = (.*)\((.*)\) (greedy groups, '.' not matching line ends), by hand: a
// backtracking std::regex recurses once per character and overflows the stack on long labels.
OpLabel parseOpLabel(const std::string& label) {
    OpLabel r;
    if (label.size() < 5 || label.back() != ')') return r;
    if (label.find_first_of("\n\r") != std::string::npos) return r;
    const std::size_t open = label.rfind('(', label.size() - 2);
    if (open == std::string::npos || open < 3) return r;
    const std::size_t eq = label.rfind(" = ", open - 3);
    if (eq == std::string::npos) return r;
    r.op = label.substr(eq + 3, open - eq - 3);
    const std::string in = label.substr(open + 1, label.size() - open - 2);
    std::size_t p = 0;
    while (!in.empty() && p <= in.size()) {
        const std::size_t q = in.find(", ", p);
        r.inputs.push_back(in.substr(p, q == std::string::npos ? std::string::npos : q - p));
        if (q == std::string::npos) break;
        p = q + 2;
    }
    return r;
}

// a + b without signed overflow (times come from the file).
std::int64_t addSat(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

// GPU tracer labels carry "@@name:op#id..."; node names have the form "name:op".
std::pair<std::string, std::string> parseKernelLabel(const std::string& label,
                                                     std::string nodeName) {
    const auto start = label.find("@@");
    const auto end = label.find('#');
    if (start != std::string::npos && end != std::string::npos && start + 2 < end)
        nodeName = label.substr(start + 2, end - start - 2);
    const auto colon = nodeName.find(':');
    if (colon == std::string::npos) return {nodeName, "unknown"};
    const auto colon2 = nodeName.find(':', colon + 1);
    return {nodeName.substr(0, colon),
            nodeName.substr(colon + 1, colon2 == std::string::npos ? colon2 : colon2 - colon - 1)};
}

bool isGpuTracer(const std::string& device) {
    return device.find("/stream:") != std::string::npos ||
           device.find("/memcpy") != std::string::npos;
}

std::size_t score(const xt::tf::StepStats& s) {
    std::size_t n = 0;
    for (const auto& d : s.dev_stats())
        for (const auto& ns : d.node_stats())
            n += !ns.node_name().empty();
    return n;
}

struct Tensor {
    std::string name;
    std::int64_t pid = 0, tid = 0;
    std::int64_t create = 0, lastUnref = 0, flowTime = 0;
    std::int64_t bytes = 0;
    std::string allocator;
    std::string description; // the TensorDescription as timeline.py's snapshot writes it
    std::int64_t objectId = 0;
};

} // namespace

bool looksLikeStepStats(std::string_view bytes) {
    // Both messages start with field 1, length-delimited (0x0a), as a JSON text starting with a
    // line feed does: sniffBytes tells them apart.
    return sniffBytes(bytes, bytes.size()) == ByteFormat::Protobuf;
}

Result<std::string> stepStatsToChromeJson(std::string_view bytes, const StepStatsLimits& limits) {
    // Both readings are tried; the wrong one may log about invalid UTF-8, which is expected.
    google::protobuf::LogSilencer silencer;
    xt::tf::RunMetadata rm;
    xt::tf::StepStats direct;
    const bool rmOk = rm.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
    const bool ssOk = direct.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
    const std::size_t rmScore = rmOk ? score(rm.step_stats()) : 0;
    const std::size_t ssScore = ssOk ? score(direct) : 0;
    if (rmScore == 0 && ssScore == 0)
        return Status(ErrorCode::Corrupt, "not a TensorFlow RunMetadata or StepStats message");
    const xt::tf::StepStats& ss = rmScore >= ssScore ? rm.step_stats() : direct;
    std::uint64_t events = 0;
    for (const auto& d : ss.dev_stats())
        for (const auto& ns : d.node_stats())
            events += 1 + 3 * std::uint64_t(ns.output_size());
    if (events > limits.maxEvents)
        return Status(ErrorCode::Unsupported,
                      "StepStats with " + std::to_string(ss.dev_stats_size()) + " devices would " +
                          "make " + std::to_string(events) + " trace events, over the limit of " +
                          std::to_string(limits.maxEvents) + " (StepStatsLimits::maxEvents)");

    JsonWriter w;
    w.beginObject().key("traceEvents").beginArray();
    auto meta = [&](const char* name, std::int64_t pid, const std::string& value) {
        w.beginObject().field("ph", "M").field("name", name).field("pid", pid);
        w.key("args").beginObject().field("name", value).endObject().endObject();
    };
    // Pids: Allocators first, then Compute and Tensors per device (timeline.py's order).
    const std::int64_t allocatorsPid = 0;
    meta("process_name", allocatorsPid, "Allocators");
    std::vector<std::int64_t> devicePid, tensorPid;
    std::int64_t nextPid = 1;
    for (const auto& d : ss.dev_stats()) {
        devicePid.push_back(nextPid);
        meta("process_name", nextPid++, d.device() + " Compute");
        tensorPid.push_back(nextPid);
        meta("process_name", nextPid++, d.device() + " Tensors");
    }
    // Lanes: the first lane whose last op ended before this op starts, else a new one.
    std::vector<std::vector<std::int64_t>> lane(ss.dev_stats_size());
    for (int di = 0; di < ss.dev_stats_size(); ++di) {
        std::vector<std::int64_t> laneEnd;
        for (const auto& ns : ss.dev_stats(di).node_stats()) {
            std::size_t l = 0;
            while (l < laneEnd.size() && !(ns.all_start_micros() > laneEnd[l]))
                ++l;
            if (l == laneEnd.size()) {
                if (laneEnd.size() >= limits.maxLanes)
                    return Status(ErrorCode::Unsupported,
                                  "device " + std::to_string(di) + " (" +
                                      ss.dev_stats(di).device() + "), node " +
                                      std::to_string(lane[di].size()) + ": more than " +
                                      std::to_string(limits.maxLanes) +
                                      " concurrent ops (StepStatsLimits::maxLanes)");
                laneEnd.push_back(0);
            }
            laneEnd[l] = addSat(ns.all_start_micros(), ns.all_end_rel_micros());
            lane[di].push_back(static_cast<std::int64_t>(l));
        }
    }
    // Tensors: every output of every op, named "node" or "node:slot".
    std::vector<Tensor> tensors;
    std::unordered_map<std::string, std::size_t> tensorByName;
    for (int di = 0; di < ss.dev_stats_size(); ++di) {
        const auto& d = ss.dev_stats(di);
        for (int ni = 0; ni < d.node_stats_size(); ++ni) {
            const auto& ns = d.node_stats(ni);
            const std::int64_t start = ns.all_start_micros();
            const std::int64_t end = addSat(start, ns.all_end_rel_micros());
            for (int oi = 0; oi < ns.output_size(); ++oi) {
                Tensor t;
                t.name = oi ? ns.node_name() + ":" + std::to_string(oi) : ns.node_name();
                t.pid = tensorPid[di];
                t.tid = lane[di][ni];
                t.create = start;
                t.lastUnref = end;
                t.flowTime = end;
                const auto& alloc = ns.output(oi).tensor_description().allocation_description();
                t.bytes = alloc.requested_bytes();
                t.allocator = alloc.allocator_name();
                // Text format without quotes: str(tensor_description).replace('"', '').
                google::protobuf::TextFormat::PrintToString(ns.output(oi).tensor_description(),
                                                            &t.description);
                std::erase(t.description, '"');
                t.objectId = static_cast<std::int64_t>(tensors.size());
                tensorByName[t.name] = tensors.size();
                tensors.push_back(std::move(t));
            }
        }
    }
    // Ops and dataflow.
    std::int64_t flowId = 0;
    for (int di = 0; di < ss.dev_stats_size(); ++di) {
        const auto& d = ss.dev_stats(di);
        const bool gpu = isGpuTracer(d.device());
        for (int ni = 0; ni < d.node_stats_size(); ++ni) {
            const auto& ns = d.node_stats(ni);
            const std::int64_t start = ns.all_start_micros();
            const std::int64_t end = addSat(start, ns.all_end_rel_micros());
            const std::int64_t tid = lane[di][ni];
            std::string name = ns.node_name(), op;
            OpLabel label;
            if (gpu) {
                std::tie(name, op) = parseKernelLabel(ns.timeline_label(), name);
            } else if (name == "RecvTensor") {
                op = "RecvTensor";
            } else {
                label = parseOpLabel(ns.timeline_label());
                op = label.op;
            }
            w.beginObject().field("ph", "X").field("cat", "Op").field("name", op);
            w.field("pid", devicePid[di]).field("tid", tid).field("ts", start);
            w.field("dur", ns.all_end_rel_micros());
            w.key("args").beginObject().field("name", name).field("op", op);
            for (std::size_t i = 0; i < label.inputs.size(); ++i)
                w.field("input" + std::to_string(i), label.inputs[i]);
            w.endObject().endObject();
            for (std::string input : label.inputs) {
                if (!tensorByName.count(input)) {
                    // Send/Recv partitioning appends "/_N": the flow comes from the original.
                    const auto idx = input.rfind("/_");
                    if (idx != std::string::npos && idx > 0) input = input.substr(0, idx);
                }
                auto it = tensorByName.find(input);
                if (it == tensorByName.end()) continue;
                Tensor& t = tensors[it->second];
                t.lastUnref = std::max(t.lastUnref, addSat(end, -1)); // as timeline.py does
                const std::int64_t producerPid = devicePid[static_cast<std::size_t>(
                    std::find(tensorPid.begin(), tensorPid.end(), t.pid) - tensorPid.begin())];
                if (producerPid == devicePid[di] && t.tid == tid) continue; // same lane
                const std::int64_t id = flowId++;
                w.beginObject().field("ph", "s").field("cat", "DataFlow").field("name", input);
                w.field("pid", producerPid).field("tid", t.tid).field("ts", t.flowTime);
                w.field("id", id).endObject();
                w.beginObject().field("ph", "t").field("cat", "DataFlow").field("name", input);
                w.field("pid", devicePid[di]).field("tid", tid).field("ts", start);
                w.field("id", id).endObject();
            }
        }
    }
    // Tensor objects and per-allocator memory in use.
    std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> allocs;
    for (const Tensor& t : tensors) {
        w.beginObject().field("ph", "N").field("cat", "Tensor").field("name", t.name);
        w.field("pid", t.pid).field("tid", t.tid).field("ts", t.create).field("id", t.objectId);
        w.endObject();
        w.beginObject().field("ph", "O").field("cat", "Tensor").field("name", t.name);
        w.field("pid", t.pid).field("tid", t.tid).field("ts", t.create).field("id", t.objectId);
        w.key("args").beginObject().key("snapshot").beginObject();
        w.field("tensor_description", t.description).endObject().endObject().endObject();
        w.beginObject().field("ph", "D").field("cat", "Tensor").field("name", t.name);
        w.field("pid", t.pid).field("tid", t.tid).field("ts", t.lastUnref).field("id", t.objectId);
        w.endObject();
        allocs[t.allocator].push_back({t.create, t.bytes}); // "" too, as timeline.py
        allocs[t.allocator].push_back({t.lastUnref, -t.bytes});
    }
    for (auto& [allocator, events] : allocs) {
        std::stable_sort(events.begin(), events.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::int64_t total = 0;
        for (std::size_t i = 0; i < events.size(); ++i) {
            total += events[i].second;
            if (i + 1 < events.size() && events[i + 1].first == events[i].first) continue;
            w.beginObject().field("ph", "C").field("cat", "Memory").field("name", "Memory");
            w.field("pid", allocatorsPid).field("ts", events[i].first);
            w.key("args").beginObject().field(allocator, total).endObject().endObject();
        }
    }
    w.endArray().endObject();
    return w.take();
}

Result<TraceStore> importStepStats(const std::string& path, const ImportOptions& options,
                                   const StepStatsLimits& limits) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status(ErrorCode::NotFound, "cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string raw = ss.str();
    auto json = stepStatsToChromeJson(raw, limits);
    if (!json) return Status(json.status().code(), path + ": " + json.status().message());
    if (!jsonKernelSupported())
        return Status(ErrorCode::Unsupported, "this build's JSON parser needs an AVX2 CPU");
    auto bytes = TraceBytes::fromMemory(std::move(json.value()));
    if (!bytes) return bytes.status();
    bytes->setOrigin(TraceContainer::StepStats, raw.size());
    return importChromeTraceParsed(std::move(bytes), options, path);
}

} // namespace xt::timeline
