// The Chrome reader proper: a one-pass simdjson read of the whole document, falling back to
// the tolerant walk of ChromeJsonTokenizer from the first event it cannot read; each event's
// fields read by ChromeEventParser and dispatched by phase into a TraceStoreBuilder.
#include "core/timeline/chrome_trace_reader.h"

#include "core/base/byte_format.h"
#include "core/base/diagnostic_codes.h"
#include "core/timeline/chrome_event_parser.h"
#include "core/timeline/chrome_json_tokenizer.h"
#include "core/timeline/json_kernel.h"
#include "core/timeline/trace_store_builder.h"

#include <optional>

namespace xt::timeline {

namespace od = simdjson::ondemand;

namespace {

constexpr std::size_t kNpos = std::string_view::npos;
constexpr std::size_t kProgressStep = 4u << 20;

class ChromeTraceReader final : public ChromeJsonTokenizer::Handler {
public:
    ChromeTraceReader(TraceBytes bytes, const std::string& name, const ImportOptions& options)
        : m_options(options), m_builder(name, options), m_truncated(bytes.truncated()) {
        m_capacity = bytes.capacityFrom(0);
        m_builder.setText(std::move(bytes));
        m_text = m_builder.text();
        m_parser.emplace(m_builder, m_text, m_capacity, options.maxJsonDepth);
    }

    Status parse();
    TraceStore finish() {
        m_parser->release(); // before finish() allocates the final columns
        return m_builder.finish();
    }

private:
    // ChromeJsonTokenizer::Handler: the tolerant walk.
    void arrayBegin(std::size_t pos) override { m_nextReport = pos + kProgressStep; }
    bool element(std::size_t begin, std::size_t end) override;
    void arrayEnd() override {
        reportProgress(m_options.progress, m_text.size(), m_text.size(), "parsing");
    }
    void warn(const DiagnosticCode& code, std::uint64_t offset, std::string message) override {
        m_builder.setPosition(m_record, offset);
        m_builder.warn(code, std::move(message));
    }

    // One simdjson pass over the whole document; not `done` (with the offset from which the
    // tolerant walk must take over) at the first thing it cannot read.
    Status fastParse(bool& done, std::size_t& resumeAt);
    Status fastEvents(od::array& events, bool& done, std::size_t& resumeAt);
    void acceptEvent(ChromeEvent& e, bool ok, std::size_t begin);
    void dispatch(const ChromeEvent& e);
    bool admit(const ChromeEvent& e, char ph);
    void dispatchTimed(const ChromeEvent& e, char ph);
    void addSlice(const ChromeEvent& e, char ph);
    void addObjectEvent(const ChromeEvent& e, char ph);
    void handleMetadata(const ChromeEvent& e);
    void handleCounter(const ChromeEvent& e);

    ImportOptions m_options;
    TraceStoreBuilder m_builder;
    std::optional<ChromeEventParser> m_parser;
    std::string_view m_text;
    std::size_t m_capacity = 0; // readable bytes from m_text.data()
    bool m_truncated = false;
    std::uint64_t m_record = 0;
    std::size_t m_skipBefore = 0; // tolerant walk: events before this offset were read already
    std::size_t m_eventEnd = 0;   // tolerant walk: end of the event being read
    std::size_t m_nextReport = 0;
    std::vector<ArgField> m_args;
};

Status ChromeTraceReader::parse() {
    ImportReport& report = m_builder.report();
    const std::size_t pos = skipBomAndWhitespace(m_text); // as sniffBytes reads the start
    if (pos >= m_text.size())
        return Status(ErrorCode::Corrupt, report.file + ": empty input, not a Chrome trace");
    if (m_truncated)
        warn(codes::kTruncatedGzip, report.inputBytes,
             "gzip stream ends early; reading what it holds");
    bool done = false;
    std::size_t resumeAt = 0;
    XT_RETURN_IF_ERROR(fastParse(done, resumeAt));
    if (!done) {
        // Non-strict JSON (trailing comma, missing brackets, a bad event): walk the top level
        // and parse each remaining event on its own.
        m_skipBefore = resumeAt;
        m_record = 0;
        ChromeJsonTokenizer::TopLevel top{report.objectForm, report.displayTimeUnit,
                                          report.distributedInfo};
        XT_RETURN_IF_ERROR(ChromeJsonTokenizer(m_text, *this).walk(pos, top, report.file));
        report.objectForm = top.objectForm;
        report.displayTimeUnit = std::move(top.displayTimeUnit);
        report.distributedInfo = std::move(top.distributedInfo);
    }
    m_builder.setPosition(m_record);
    return Status::ok();
}

Status ChromeTraceReader::fastParse(bool& done, std::size_t& resumeAt) {
    done = false;
    resumeAt = 0;
    if (m_text.size() >= 0xFFFFFF00ull) return Status::ok(); // beyond simdjson's 4 GiB
    od::document doc;
    if (m_parser->documentParser()
            .iterate(simdjson::padded_string_view(m_text.data(), m_text.size(), m_capacity))
            .get(doc))
        return Status::ok();
    od::json_type t;
    if (doc.type().get(t)) return Status::ok();
    if (t == od::json_type::array) {
        od::array events;
        if (doc.get_array().get(events)) return Status::ok();
        return fastEvents(events, done, resumeAt);
    }
    if (t != od::json_type::object) return Status::ok();
    ImportReport& report = m_builder.report();
    report.objectForm = true;
    od::object top;
    if (doc.get_object().get(top)) return Status::ok();
    bool sawEvents = false;
    std::size_t lastGood = 0;
    for (auto fr : top) {
        od::field field;
        std::string_view key;
        if (std::move(fr).get(field) || field.unescaped_key().get(key)) {
            resumeAt = lastGood;
            return Status::ok();
        }
        od::value v = field.value();
        if (key == "traceEvents") {
            od::array events;
            if (v.get_array().get(events)) {
                resumeAt = lastGood;
                return Status::ok();
            }
            sawEvents = true;
            bool eventsDone = false;
            XT_RETURN_IF_ERROR(fastEvents(events, eventsDone, resumeAt));
            if (!eventsDone) return Status::ok();
            lastGood = resumeAt;
        } else if (key == "displayTimeUnit") {
            std::string_view sv;
            if (!v.get_string().get(sv)) report.displayTimeUnit = std::string(sv);
        } else if (key == "distributedInfo") {
            od::object info;
            std::string_view raw;
            if (!v.get_object().get(info) && !info.raw_json().get(raw))
                report.distributedInfo = std::string(raw);
        }
    }
    if (!sawEvents) warn(codes::kNoTraceEvents, 0, "object form without a traceEvents array");
    done = true;
    return Status::ok();
}

Status ChromeTraceReader::fastEvents(od::array& events, bool& done, std::size_t& resumeAt) {
    std::size_t nextReport = kProgressStep;
    std::size_t lastBegin = kNpos;
    // On failure the tolerant walk re-reads from the first event not accepted here.
    auto fail = [&](std::size_t at) {
        resumeAt = at;
        done = false;
        return Status::ok();
    };
    for (auto er : events) {
        const std::size_t afterLast = lastBegin == kNpos ? 0 : lastBegin + 1;
        od::value ev;
        if (std::move(er).get(ev)) return fail(afterLast);
        const char* loc = nullptr;
        if (ev.current_location().get(loc)) return fail(afterLast);
        const auto begin = static_cast<std::size_t>(loc - m_text.data());
        od::object obj;
        if (ev.get_object().get(obj)) return fail(begin);
        ChromeEvent e;
        if (!m_parser->read(obj, e, begin)) return fail(begin);
        acceptEvent(e, true, begin);
        ++m_record;
        lastBegin = begin;
        if (begin >= nextReport) {
            nextReport = begin + kProgressStep;
            if (!reportProgress(m_options.progress, begin, m_text.size(), "parsing"))
                return Status(ErrorCode::Cancelled, "import cancelled");
        }
    }
    reportProgress(m_options.progress, m_text.size(), m_text.size(), "parsing");
    resumeAt = lastBegin == kNpos ? 0 : lastBegin + 1;
    done = true;
    return Status::ok();
}

bool ChromeTraceReader::element(std::size_t begin, std::size_t end) {
    if (begin < m_skipBefore) {
        // Already read by the one-pass read.
    } else if (m_text[begin] == '{') {
        m_eventEnd = end;
        ChromeEvent e;
        const bool ok = m_parser->parse(begin, end, e);
        acceptEvent(e, ok, begin);
    } else {
        warn(codes::kNonObjectEvent, begin, "array element is not an object");
    }
    ++m_record;
    if (end >= m_nextReport && end >= m_skipBefore) {
        m_nextReport = end + kProgressStep;
        if (!reportProgress(m_options.progress, end, m_text.size(), "parsing")) return false;
    }
    return true;
}

void ChromeTraceReader::acceptEvent(ChromeEvent& e, bool ok, std::size_t begin) {
    m_builder.setPosition(m_record, begin);
    m_builder.countEvent();
    if (e.hasPh) m_builder.countPhase(e.ph);
    if (!ok) {
        if (m_parser->tooDeep(begin, m_eventEnd))
            m_builder.warn(codes::kNestingTooDeep,
                           "event nests arrays/objects deeper than " +
                               std::to_string(m_options.maxJsonDepth) +
                               " levels (ImportOptions::maxJsonDepth): skipped");
        else
            m_builder.warn(codes::kMalformedEvent, "event is not valid JSON");
        return;
    }
    if (!e.hasPh) {
        m_builder.warn(codes::kMissingPhase, "event has no \"ph\"");
        return;
    }
    dispatch(e);
}

bool ChromeTraceReader::admit(const ChromeEvent& e, char ph) {
    bool threaded = ph == 'X' || ph == 'B' || ph == 'E' || ph == 's' || ph == 't' || ph == 'f';
    if (ph == 'i' || ph == 'I' || ph == 'R') threaded = e.scope != 'p' && e.scope != 'g';
    if (ph == 'M') threaded = m_builder.str(e.name).starts_with("thread_");
    return m_builder.admit(e.pid, e.tid, threaded);
}

void ChromeTraceReader::dispatch(const ChromeEvent& e) {
    if (e.ph.size() != 1) {
        m_builder.warn(codes::kUnknownPhase, "unknown phase \"" + std::string(e.ph) + "\"");
        return;
    }
    const char ph = e.ph[0];
    if (!admit(e, ph)) return;
    if (ph == 'M') {
        handleMetadata(e);
        return;
    }
    // Every other known phase needs a time stamp.
    static constexpr std::string_view kKnown = "XBEiInCbeSTFpstfNODPRc()";
    if (kKnown.find(ph) == std::string_view::npos) {
        m_builder.warn(codes::kUnknownPhase, std::string("unknown phase \"") + ph + "\"");
        return;
    }
    if (!e.hasTs) {
        m_builder.warn(e.tsNull ? codes::kNullTs : codes::kMissingTs, "event has no usable \"ts\"");
        return;
    }
    if (!e.tsInRange) {
        m_builder.warn(codes::kTsOutOfRange, "\"ts\" is not a time within +-4.6e15 us");
        return;
    }
    dispatchTimed(e, ph);
}

void ChromeTraceReader::dispatchTimed(const ChromeEvent& e, char ph) {
    TraceStoreBuilder& b = m_builder;
    switch (ph) {
    case 'X':
    case 'B':
    case 'E':
        addSlice(e, ph);
        return;
    case 'i':
    case 'I':
    case 'R':
    case 'n': {
        Instant in;
        in.ts = e.ts;
        in.name = e.name;
        in.cat = e.cat;
        in.phase = ph;
        in.scope = ph == 'n' || e.scope == 'p'
                       ? InstantScope::Process
                       : (e.scope == 'g' ? InstantScope::Global : InstantScope::Thread);
        const std::uint32_t p = b.process(e.pid);
        b.addInstant(p, in.scope == InstantScope::Thread ? b.thread(e.pid, e.tid) : kNoIndex, in);
        return;
    }
    case 'C':
        b.seeTime(e.ts);
        handleCounter(e);
        return;
    case 'b':
    case 'S':
        b.asyncBegin(ph == 'b' ? AsyncKind::Nestable : AsyncKind::Legacy, b.process(e.pid), e.cat,
                     e.id, e.name, e.ts, e.args);
        return;
    case 'e':
    case 'F':
        b.asyncEnd(ph == 'e' ? AsyncKind::Nestable : AsyncKind::Legacy, b.process(e.pid), e.cat,
                   e.id, e.ts);
        return;
    case 's':
    case 't':
    case 'f':
        b.seeTime(e.ts);
        if (!e.hasId) {
            b.warn(codes::kFlowWithoutId, "flow event without \"id\": skipped");
            return;
        }
        b.addFlowPoint(b.thread(e.pid, e.tid), ph, e.cat, e.name, e.id, e.ts,
                       ph != 'f' || e.bp == 'e');
        return;
    case 'N':
    case 'O':
    case 'D':
        addObjectEvent(e, ph);
        return;
    case 'T':
    case 'p':
        b.warn(codes::kAsyncStepIgnored, "async step events are counted, not drawn");
        return;
    case 'P':
        b.warn(codes::kSampleIgnored, "sample events are counted, not drawn");
        return;
    case 'c':
        b.warn(codes::kClockSyncIgnored, "clock sync events are counted only");
        return;
    default:
        b.warn(codes::kContextIgnored, "context events are counted only");
        return;
    }
}

void ChromeTraceReader::addSlice(const ChromeEvent& e, char ph) {
    TraceStoreBuilder& b = m_builder;
    SliceEvent s;
    s.ts = e.ts;
    s.name = e.name;
    s.cat = e.cat;
    s.args = e.args;
    s.bindId = e.hasBindId ? e.bindId : 0;
    s.flowIn = e.flowIn;
    s.flowOut = e.flowOut;
    if (ph == 'B') {
        b.addBegin(b.thread(e.pid, e.tid), s);
        return;
    }
    if (ph == 'E') {
        b.addEnd(b.thread(e.pid, e.tid), e.ts);
        return;
    }
    if (!e.hasDur)
        b.warn(codes::kXWithoutDur, "X event without \"dur\": zero length");
    else if (!e.durInRange || e.dur < 0)
        b.warn(codes::kBadDur, "X event with a negative or huge \"dur\": zero length");
    else
        s.dur = e.dur;
    b.addComplete(b.thread(e.pid, e.tid), s);
}

void ChromeTraceReader::addObjectEvent(const ChromeEvent& e, char ph) {
    TraceStoreBuilder& b = m_builder;
    b.seeTime(e.ts);
    const std::uint32_t p = b.process(e.pid);
    if (ph == 'N')
        b.objectCreated(p, e.name, e.id, b.intern(e.idText), e.ts);
    else if (ph == 'O')
        b.objectSnapshot(p, e.name, e.id, e.args);
    else
        b.objectDeleted(p, e.name, e.id, e.ts);
}

void ChromeTraceReader::handleMetadata(const ChromeEvent& e) {
    TraceStoreBuilder& b = m_builder;
    const std::string_view name = b.str(e.name);
    const bool proc = name.starts_with("process_");
    const bool thr = name.starts_with("thread_");
    if (!proc && !thr) return; // other metadata (e.g. num_cpus) carries nothing we draw
    if (e.args.empty()) {
        b.warn(codes::kMetadataWithoutArgs, "M event without args: skipped");
        return;
    }
    if (!m_parser->readArgs(e.args, m_args, {"name", "sort_index", "labels"})) {
        b.warn(codes::kMalformedEvent, "metadata args are not an object");
        return;
    }
    for (const ArgField& a : m_args) {
        if (a.key == "name" && (name == "process_name" || name == "thread_name")) {
            if (!a.hasText) continue;
            const StringId s = b.intern(a.text);
            if (proc)
                b.setProcessName(b.process(e.pid), s);
            else
                b.setThreadName(b.thread(e.pid, e.tid), s);
        } else if (a.key == "sort_index") {
            if (!a.hasNumber) continue;
            const auto index = static_cast<std::int64_t>(a.number);
            if (proc)
                b.setProcessSortIndex(b.process(e.pid), index);
            else
                b.setThreadSortIndex(b.thread(e.pid, e.tid), index);
        } else if (a.key == "labels" && proc) {
            if (!a.hasText) continue;
            b.setProcessLabels(b.process(e.pid), b.intern(a.text));
        }
    }
}

void ChromeTraceReader::handleCounter(const ChromeEvent& e) {
    TraceStoreBuilder& b = m_builder;
    if (e.args.empty()) {
        b.warn(codes::kCounterWithoutArgs, "C event without args: skipped");
        return;
    }
    if (!m_parser->readArgs(e.args, m_args)) {
        b.warn(codes::kMalformedEvent, "counter args are not an object");
        return;
    }
    const std::uint32_t p = b.process(e.pid);
    std::string base(b.str(e.name));
    if (e.hasId) {
        base += ' ';
        base += e.idText;
    }
    bool any = false;
    for (const ArgField& a : m_args) {
        if (!a.hasNumber) continue;
        const StringId series = b.intern(a.key.empty() ? base : base + " " + std::string(a.key));
        b.addCounter(p, series, a.key, e.ts, a.number);
        any = true;
    }
    if (!any) b.warn(codes::kCounterWithoutValues, "C event without numeric args: skipped");
}

} // namespace

Result<TraceStore> importChromeTraceParsed(Result<TraceBytes> bytes, const ImportOptions& options,
                                           const std::string& name) {
    XT_ASSIGN_OR_RETURN(TraceBytes text, std::move(bytes));
    ChromeTraceReader reader(std::move(text), name, options);
    XT_RETURN_IF_ERROR(reader.parse());
    return reader.finish();
}

} // namespace xt::timeline
