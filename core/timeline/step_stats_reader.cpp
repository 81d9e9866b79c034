#include "core/timeline/step_stats_reader.h"

#include "core/base/byte_format.h"
#include "core/base/diagnostic_codes.h"
#include "core/base/json_writer.h"
#include "core/timeline/record_events.h"
#include "core/timeline/trace_store_builder.h"
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

// What a StepStats message becomes, event by event, in the order timeline.py writes them.
class StepStatsSink {
public:
    virtual ~StepStatsSink() = default;
    virtual void processName(std::int64_t pid, const std::string& name) = 0;
    virtual void op(std::int64_t pid, std::int64_t tid, std::int64_t ts, std::int64_t dur,
                    const std::string& op, const std::string& node,
                    const std::vector<std::string>& inputs) = 0;
    // 's' at the producer's end, 't' at the consumer's start.
    virtual void flow(char ph, const std::string& tensor, std::int64_t pid, std::int64_t tid,
                      std::int64_t ts, std::int64_t id) = 0;
    // N, O (with the description as snapshot) and D of one tensor.
    virtual void tensor(const Tensor& t) = 0;
    virtual void memory(std::int64_t pid, std::int64_t ts, const std::string& allocator,
                        std::int64_t total) = 0;
};

void writeOpArgs(JsonWriter& w, const std::string& op, const std::string& node,
                 const std::vector<std::string>& inputs) {
    w.beginObject().field("name", node).field("op", op);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        w.field("input" + std::to_string(i), inputs[i]);
    w.endObject();
}

void writeSnapshotArgs(JsonWriter& w, const Tensor& t) {
    w.beginObject().key("snapshot").beginObject();
    w.field("tensor_description", t.description).endObject().endObject();
}

// The Chrome trace JSON (object form).
class JsonSink final : public StepStatsSink {
public:
    JsonSink() { w.beginObject().key("traceEvents").beginArray(); }
    std::string take() {
        w.endArray().endObject();
        return w.take();
    }

    void processName(std::int64_t pid, const std::string& name) override {
        w.beginObject().field("ph", "M").field("name", "process_name").field("pid", pid);
        w.key("args").beginObject().field("name", name).endObject().endObject();
    }
    void op(std::int64_t pid, std::int64_t tid, std::int64_t ts, std::int64_t dur,
            const std::string& op, const std::string& node,
            const std::vector<std::string>& inputs) override {
        w.beginObject().field("ph", "X").field("cat", "Op").field("name", op);
        w.field("pid", pid).field("tid", tid).field("ts", ts).field("dur", dur);
        writeOpArgs(w.key("args"), op, node, inputs);
        w.endObject();
    }
    void flow(char ph, const std::string& tensor, std::int64_t pid, std::int64_t tid,
              std::int64_t ts, std::int64_t id) override {
        w.beginObject().field("ph", std::string(1, ph)).field("cat", "DataFlow");
        w.field("name", tensor).field("pid", pid).field("tid", tid).field("ts", ts);
        w.field("id", id).endObject();
    }
    void tensor(const Tensor& t) override {
        object("N", t, t.create);
        w.endObject();
        object("O", t, t.create);
        writeSnapshotArgs(w.key("args"), t);
        w.endObject();
        object("D", t, t.lastUnref);
        w.endObject();
    }
    void memory(std::int64_t pid, std::int64_t ts, const std::string& allocator,
                std::int64_t total) override {
        w.beginObject().field("ph", "C").field("cat", "Memory").field("name", "Memory");
        w.field("pid", pid).field("ts", ts);
        w.key("args").beginObject().field(allocator, total).endObject().endObject();
    }

private:
    void object(const char* ph, const Tensor& t, std::int64_t ts) {
        w.beginObject().field("ph", ph).field("cat", "Tensor").field("name", t.name);
        w.field("pid", t.pid).field("tid", t.tid).field("ts", ts).field("id", t.objectId);
    }
    JsonWriter w;
};

// The store the Chrome reader makes of JsonSink's text, built directly: every event counted,
// located by its record number, its strings interned in the order the JSON writes them and
// checked as the reader checks them, so that both ways give the same store.
class BuilderSink final : public StepStatsSink {
public:
    explicit BuilderSink(TraceStoreBuilder& b) : m_b(b), m_events(b) {}
    void end() { m_events.end(); }

    void processName(std::int64_t pid, const std::string& name) override {
        m_b.intern("process_name");
        const StringId p = m_b.intern(std::to_string(pid));
        if (!m_events.start("M", p, 0, false)) return;
        const StringId value = m_b.intern(name);
        m_b.setProcessName(m_b.process(p), value);
    }
    void op(std::int64_t pid, std::int64_t tid, std::int64_t ts, std::int64_t dur,
            const std::string& op, const std::string& node,
            const std::vector<std::string>& inputs) override {
        SliceEvent s;
        s.cat = m_b.intern("Op");
        s.name = m_b.intern(op);
        const StringId p = m_b.intern(std::to_string(pid)), t = m_b.intern(std::to_string(tid));
        if (!m_events.start("X", p, t, true) || !m_events.time(ts, s.ts)) return;
        s.dur = m_events.duration(dur);
        JsonWriter args;
        writeOpArgs(args, op, node, inputs);
        s.args = m_b.addArgs(args.str());
        m_b.addComplete(m_b.thread(p, t), s);
    }
    void flow(char ph, const std::string& tensor, std::int64_t pid, std::int64_t tid,
              std::int64_t ts, std::int64_t id) override {
        const StringId cat = m_b.intern("DataFlow"), name = m_b.intern(tensor);
        const StringId p = m_b.intern(std::to_string(pid)), t = m_b.intern(std::to_string(tid));
        const std::uint64_t key = m_b.idKey(std::to_string(id));
        std::int64_t ns = 0;
        if (!m_events.start(std::string(1, ph).c_str(), p, t, true) || !m_events.time(ts, ns))
            return;
        m_b.addFlowPoint(m_b.thread(p, t), ph, cat, name, key, ns, true);
    }
    void tensor(const Tensor& t) override {
        object('N', t, t.create);
        object('O', t, t.create);
        object('D', t, t.lastUnref);
    }
    void memory(std::int64_t pid, std::int64_t ts, const std::string& allocator,
                std::int64_t total) override {
        m_b.intern("Memory");
        const StringId p = m_b.intern(std::to_string(pid));
        std::int64_t ns = 0;
        if (!m_events.start("C", p, 0, false) || !m_events.time(ts, ns)) return;
        const std::uint32_t process = m_b.process(p);
        const StringId series = m_b.intern(allocator.empty() ? "Memory" : "Memory " + allocator);
        m_b.addCounter(process, series, allocator, ns, static_cast<double>(total));
    }

private:
    void object(char ph, const Tensor& t, std::int64_t ts) {
        m_b.intern("Tensor");
        const StringId name = m_b.intern(t.name);
        const StringId p = m_b.intern(std::to_string(t.pid));
        m_b.intern(std::to_string(t.tid));
        const std::string idText = std::to_string(t.objectId);
        const std::uint64_t key = m_b.idKey(idText);
        std::int64_t ns = 0;
        if (!m_events.start(std::string(1, ph).c_str(), p, 0, false) || !m_events.time(ts, ns))
            return;
        const std::uint32_t process = m_b.process(p);
        if (ph == 'N') {
            m_b.objectCreated(process, name, key, m_b.intern(idText), ns);
        } else if (ph == 'O') {
            JsonWriter args;
            writeSnapshotArgs(args, t);
            m_b.objectSnapshot(process, name, key, m_b.addArgs(args.str()));
        } else {
            m_b.objectDeleted(process, name, key, ns);
        }
    }

    TraceStoreBuilder& m_b;
    RecordEvents m_events;
};

// The message: a RunMetadata or a bare StepStats, whichever reading names more nodes.
struct Message {
    xt::tf::RunMetadata rm;
    xt::tf::StepStats direct;
    const xt::tf::StepStats* ss = nullptr;
};

Status parseMessage(std::string_view bytes, Message& m, const StepStatsLimits& limits) {
    // Both readings are tried; the wrong one may log about invalid UTF-8, which is expected.
    google::protobuf::LogSilencer silencer;
    const bool rmOk = m.rm.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
    const bool ssOk = m.direct.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
    const std::size_t rmScore = rmOk ? score(m.rm.step_stats()) : 0;
    const std::size_t ssScore = ssOk ? score(m.direct) : 0;
    if (rmScore == 0 && ssScore == 0)
        return Status(ErrorCode::Corrupt, "not a TensorFlow RunMetadata or StepStats message");
    m.ss = rmScore >= ssScore ? &m.rm.step_stats() : &m.direct;
    std::uint64_t events = 0;
    for (const auto& d : m.ss->dev_stats())
        for (const auto& ns : d.node_stats())
            events += 1 + 3 * std::uint64_t(ns.output_size());
    if (events > limits.maxEvents)
        return Status(ErrorCode::Unsupported,
                      "StepStats with " + std::to_string(m.ss->dev_stats_size()) +
                          " devices would make " + std::to_string(events) +
                          " trace events, over the limit of " + std::to_string(limits.maxEvents) +
                          " (StepStatsLimits::maxEvents)");
    return Status::ok();
}

// Lanes: the first lane whose last op ended before this op starts, else a new one.
Status assignLanes(const xt::tf::StepStats& ss, const StepStatsLimits& limits,
                   std::vector<std::vector<std::int64_t>>& lane) {
    lane.assign(ss.dev_stats_size(), {});
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
    return Status::ok();
}

// The layout of the converted trace: pids, lanes and every output tensor.
struct Layout {
    std::int64_t allocatorsPid = 0;
    std::vector<std::int64_t> devicePid, tensorPid;
    std::vector<std::vector<std::int64_t>> lane;
    std::vector<Tensor> tensors;
    std::unordered_map<std::string, std::size_t> tensorByName;
};

// Tensors: every output of every op, named "node" or "node:slot".
void collectTensors(const xt::tf::StepStats& ss, Layout& l) {
    for (int di = 0; di < ss.dev_stats_size(); ++di) {
        const auto& d = ss.dev_stats(di);
        for (int ni = 0; ni < d.node_stats_size(); ++ni) {
            const auto& ns = d.node_stats(ni);
            const std::int64_t start = ns.all_start_micros();
            const std::int64_t end = addSat(start, ns.all_end_rel_micros());
            for (int oi = 0; oi < ns.output_size(); ++oi) {
                Tensor t;
                t.name = oi ? ns.node_name() + ":" + std::to_string(oi) : ns.node_name();
                t.pid = l.tensorPid[di];
                t.tid = l.lane[di][ni];
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
                t.objectId = static_cast<std::int64_t>(l.tensors.size());
                l.tensorByName[t.name] = l.tensors.size();
                l.tensors.push_back(std::move(t));
            }
        }
    }
}

// One op and the dataflow into it from each input produced on another lane.
void emitOp(const xt::tf::NodeExecStats& ns, std::size_t di, std::int64_t tid, bool gpu, Layout& l,
            std::int64_t& flowId, StepStatsSink& sink) {
    const std::int64_t start = ns.all_start_micros();
    const std::int64_t end = addSat(start, ns.all_end_rel_micros());
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
    sink.op(l.devicePid[di], tid, start, ns.all_end_rel_micros(), op, name, label.inputs);
    for (std::string input : label.inputs) {
        if (!l.tensorByName.count(input)) {
            // Send/Recv partitioning appends "/_N": the flow comes from the original.
            const auto idx = input.rfind("/_");
            if (idx != std::string::npos && idx > 0) input = input.substr(0, idx);
        }
        auto it = l.tensorByName.find(input);
        if (it == l.tensorByName.end()) continue;
        Tensor& t = l.tensors[it->second];
        t.lastUnref = std::max(t.lastUnref, addSat(end, -1)); // as timeline.py does
        const std::int64_t producerPid = l.devicePid[static_cast<std::size_t>(
            std::find(l.tensorPid.begin(), l.tensorPid.end(), t.pid) - l.tensorPid.begin())];
        if (producerPid == l.devicePid[di] && t.tid == tid) continue; // same lane
        const std::int64_t id = flowId++;
        sink.flow('s', input, producerPid, t.tid, t.flowTime, id);
        sink.flow('t', input, l.devicePid[di], tid, start, id);
    }
}

// Tensor objects, then per-allocator memory in use.
void emitTensors(const Layout& l, StepStatsSink& sink) {
    std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> allocs;
    for (const Tensor& t : l.tensors) {
        sink.tensor(t);
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
            sink.memory(l.allocatorsPid, events[i].first, allocator, total);
        }
    }
}

Status convertStepStats(std::string_view bytes, const StepStatsLimits& limits,
                        StepStatsSink& sink) {
    Message m;
    XT_RETURN_IF_ERROR(parseMessage(bytes, m, limits));
    const xt::tf::StepStats& ss = *m.ss;
    Layout l;
    // Pids: Allocators first, then Compute and Tensors per device (timeline.py's order).
    sink.processName(l.allocatorsPid, "Allocators");
    std::int64_t nextPid = 1;
    for (const auto& d : ss.dev_stats()) {
        l.devicePid.push_back(nextPid);
        sink.processName(nextPid++, d.device() + " Compute");
        l.tensorPid.push_back(nextPid);
        sink.processName(nextPid++, d.device() + " Tensors");
    }
    XT_RETURN_IF_ERROR(assignLanes(ss, limits, l.lane));
    collectTensors(ss, l);
    std::int64_t flowId = 0;
    for (int di = 0; di < ss.dev_stats_size(); ++di) {
        const auto& d = ss.dev_stats(di);
        const bool gpu = isGpuTracer(d.device());
        for (int ni = 0; ni < d.node_stats_size(); ++ni)
            emitOp(d.node_stats(ni), static_cast<std::size_t>(di), l.lane[di][ni], gpu, l, flowId,
                   sink);
    }
    emitTensors(l, sink);
    return Status::ok();
}

} // namespace

bool looksLikeStepStats(std::string_view bytes) {
    // Both messages start with field 1, length-delimited (0x0a), as a JSON text starting with a
    // line feed does: sniffBytes tells them apart.
    return sniffBytes(bytes, bytes.size()) == ByteFormat::Protobuf;
}

Result<std::string> stepStatsToChromeJson(std::string_view bytes, const StepStatsLimits& limits) {
    JsonSink sink;
    XT_RETURN_IF_ERROR(convertStepStats(bytes, limits, sink));
    return sink.take();
}

Result<TraceStore> importStepStats(const std::string& path, const ImportOptions& options,
                                   const StepStatsLimits& limits) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status(ErrorCode::NotFound, "cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string raw = ss.str();
    TraceStoreBuilder builder(path, options);
    BuilderSink sink(builder);
    const Status converted = convertStepStats(raw, limits, sink);
    if (!converted.isOk()) return Status(converted.code(), path + ": " + converted.message());
    sink.end();
    ImportReport& report = builder.report();
    report.container = traceContainerName(TraceContainer::StepStats);
    report.inputBytes = raw.size();
    report.objectForm = true; // as the Chrome trace timeline.py writes
    return builder.finish();
}

} // namespace xt::timeline
