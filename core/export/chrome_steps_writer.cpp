#include "core/export/chrome_steps_writer.h"

#include "core/base/diagnostic_codes.h"
#include "core/base/json_writer.h"
#include "core/export/atomic_file.h"
#include "core/timeline/record_events.h"
#include "core/timeline/trace_store_builder.h"

#include <limits>
#include <optional>

namespace xt {

namespace {

// Milliseconds to microseconds, saturating for absurd (damaged) timestamps.
std::int64_t msToUs(std::int64_t ms) {
    std::int64_t us;
    if (__builtin_mul_overflow(ms, 1000, &us))
        return ms < 0 ? std::numeric_limits<std::int64_t>::min()
                      : std::numeric_limits<std::int64_t>::max();
    return us;
}

// One record: an X from the previous record's timestamp, or an instant for a rank's first
// record and for a timestamp that goes backwards.
struct StepEvent {
    int pid = 0;
    bool complete = false;
    std::int64_t startUs = 0, endUs = 0;
    const xdl::RecordEntry* entry = nullptr;
    const std::string* part = nullptr;
    bool restarted = false;
};

void writeStepArgs(JsonWriter& w, const StepEvent& s) {
    w.beginObject()
        .field("gstep", s.entry->gstep)
        .field("lstep", s.entry->lstep)
        .field("timestamp_ms", s.entry->timestamp)
        .field("record_bytes", static_cast<std::uint64_t>(s.entry->length))
        .field("part", *s.part);
    if (s.restarted) w.field("note", "timestamp went backwards (restarted job?)");
    w.endObject();
}

// The events of the steps, in the order the JSON file lists them.
class StepsSink {
public:
    virtual ~StepsSink() = default;
    virtual void processName(int pid, const std::string& name) = 0;
    virtual void processSortIndex(int pid) = 0; // the pid itself
    virtual void threadName(int pid) = 0;       // "steps"
    virtual void step(const StepEvent& s) = 0;
    virtual void recordBytes(int pid, std::int64_t ts, std::uint64_t bytes) = 0;
};

Status emitSteps(const std::vector<const xdl::RunReader*>& runs, StepsSink& sink,
                 const ProgressCallback& progress, ChromeStepsReport& report) {
    std::uint64_t total = 0, done = 0;
    for (const auto* run : runs)
        for (const auto& rank : run->ranks())
            total += rank.recordCount();
    int pid = 0;
    for (const auto* run : runs) {
        for (const auto& rank : run->ranks()) {
            ++pid;
            sink.processName(pid, run->files().label() + " rank " + std::to_string(rank.rank()));
            sink.processSortIndex(pid);
            sink.threadName(pid);
            for (std::size_t i = 0; i < rank.recordCount(); ++i, ++done) {
                if ((done & 0xfff) == 0 && !reportProgress(progress, done, total, "converting"))
                    return Status(ErrorCode::Cancelled, "conversion cancelled");
                StepEvent s;
                s.pid = pid;
                s.entry = &rank.entry(i);
                s.endUs = msToUs(s.entry->timestamp); // exact integer microseconds
                s.complete = i > 0 && rank.entry(i - 1).timestamp <= s.entry->timestamp;
                s.restarted = i > 0 && !s.complete;
                if (s.complete) s.startUs = msToUs(rank.entry(i - 1).timestamp);
                ++(s.complete ? report.steps : report.instants);
                s.part = &rank.parts()[rank.partOf(i)]->part().displayPath();
                sink.step(s);
                sink.recordBytes(pid, s.endUs, s.entry->length);
            }
        }
    }
    reportProgress(progress, total, total, "converting");
    return Status::ok();
}

class JsonSink final : public StepsSink {
public:
    explicit JsonSink(AtomicFile& out) : m_out(out) {
        out.write("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"xtview\"},"
                  "\"traceEvents\":[");
    }
    void end() { m_out.write("\n]}\n"); }

    void processName(int pid, const std::string& name) override {
        metadata(pid, "process_name", "name", name);
    }
    void processSortIndex(int pid) override {
        metadata(pid, "process_sort_index", "sort_index", pid);
    }
    void threadName(int pid) override { metadata(pid, "thread_name", "name", "steps"); }
    void step(const StepEvent& s) override {
        JsonWriter w;
        w.beginObject()
            .field("name", "step " + std::to_string(s.entry->gstep))
            .field("cat", "xdl.step")
            .field("pid", s.pid)
            .field("tid", 1);
        if (s.complete)
            w.field("ph", "X").field("ts", s.startUs).field("dur", s.endUs - s.startUs);
        else
            w.field("ph", "i").field("s", "t").field("ts", s.endUs);
        writeStepArgs(w.key("args"), s);
        w.endObject();
        write(w.str());
    }
    void recordBytes(int pid, std::int64_t ts, std::uint64_t bytes) override {
        JsonWriter c;
        c.beginObject()
            .field("ph", "C")
            .field("name", "record bytes")
            .field("pid", pid)
            .field("ts", ts)
            .key("args")
            .beginObject()
            .field("bytes", bytes)
            .endObject()
            .endObject();
        m_out.write(",\n");
        m_out.write(c.str());
    }

private:
    template <class V> void metadata(int pid, const char* name, const char* key, const V& value) {
        JsonWriter w;
        w.beginObject().field("ph", "M").field("pid", pid).field("tid", 1).field("name", name);
        w.key("args").beginObject().field(key, value).endObject().endObject();
        write(w.str());
    }
    void write(const std::string& event) {
        m_out.write(m_first ? "\n" : ",\n");
        m_first = false;
        m_out.write(event);
    }
    AtomicFile& m_out;
    bool m_first = true;
};

// The store the Chrome reader makes of JsonSink's file, built directly: each event counted,
// located by its record number and its strings interned in the order the JSON writes them.
class BuilderSink final : public StepsSink {
public:
    explicit BuilderSink(timeline::TraceStoreBuilder& b) : m_b(b), m_events(b) {}
    void end() { m_events.end(); }

    void processName(int pid, const std::string& name) override {
        const auto p = metadata(pid, "process_name", false);
        if (p) m_b.setProcessName(m_b.process(p->first), m_b.intern(name));
    }
    void processSortIndex(int pid) override {
        const auto p = metadata(pid, "process_sort_index", false);
        if (p) m_b.setProcessSortIndex(m_b.process(p->first), pid);
    }
    void threadName(int pid) override {
        const auto p = metadata(pid, "thread_name", true);
        if (p) m_b.setThreadName(m_b.thread(p->first, p->second), m_b.intern("steps"));
    }
    void step(const StepEvent& s) override {
        timeline::SliceEvent e;
        e.name = m_b.intern("step " + std::to_string(s.entry->gstep));
        e.cat = m_b.intern("xdl.step");
        const timeline::StringId pid = m_b.intern(std::to_string(s.pid)), tid = m_b.intern("1");
        if (!m_events.start(s.complete ? "X" : "i", pid, tid, true)) return;
        if (!m_events.time(s.complete ? s.startUs : s.endUs, e.ts)) return;
        JsonWriter args;
        writeStepArgs(args, s);
        e.args = m_b.addArgs(args.str());
        if (!s.complete) {
            timeline::Instant in;
            in.ts = e.ts;
            in.name = e.name;
            in.cat = e.cat;
            m_b.addInstant(m_b.process(pid), m_b.thread(pid, tid), in);
            return;
        }
        const std::int64_t dur = s.endUs - s.startUs;
        e.dur = m_events.duration(dur);
        m_b.addComplete(m_b.thread(pid, tid), e);
    }
    void recordBytes(int pid, std::int64_t ts, std::uint64_t bytes) override {
        m_b.intern("record bytes");
        const timeline::StringId p = m_b.intern(std::to_string(pid));
        std::int64_t ns = 0;
        if (!m_events.start("C", p, 0, false) || !m_events.time(ts, ns)) return;
        const std::uint32_t process = m_b.process(p);
        m_b.addCounter(process, m_b.intern("record bytes bytes"), "bytes", ns,
                       static_cast<double>(bytes));
    }

private:
    // An M event's pid and tid ("1"), when admitted.
    std::optional<std::pair<timeline::StringId, timeline::StringId>>
    metadata(int pid, const char* name, bool threaded) {
        const timeline::StringId p = m_b.intern(std::to_string(pid)), t = m_b.intern("1");
        m_b.intern(name);
        if (!m_events.start("M", p, t, threaded)) return std::nullopt;
        return std::pair(p, t);
    }

    timeline::TraceStoreBuilder& m_b;
    timeline::RecordEvents m_events;
};

} // namespace

Result<ChromeStepsReport> writeChromeSteps(const std::vector<xdl::RunReader>& runs,
                                           const std::string& outPath,
                                           const ProgressCallback& progress) {
    XT_ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::create(outPath));
    std::vector<const xdl::RunReader*> list;
    for (const auto& run : runs)
        list.push_back(&run);
    ChromeStepsReport report;
    JsonSink sink(out);
    XT_RETURN_IF_ERROR(emitSteps(list, sink, progress, report));
    sink.end();
    XT_RETURN_IF_ERROR(out.commit());
    return report;
}

Result<timeline::TraceStore> xdlStepsTrace(const xdl::RunReader& run,
                                           const ProgressCallback& progress) {
    timeline::TraceStoreBuilder builder(run.files().label() + " steps");
    BuilderSink sink(builder);
    ChromeStepsReport report;
    XT_RETURN_IF_ERROR(emitSteps({&run}, sink, progress, report));
    sink.end();
    timeline::ImportReport& r = builder.report();
    r.container = "xdl";
    r.objectForm = true; // as writeChromeSteps writes it
    r.displayTimeUnit = "ms";
    return builder.finish();
}

} // namespace xt
