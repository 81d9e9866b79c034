// The Chrome reader proper: a one-pass simdjson read of the whole document, falling back to
// the tolerant walk of ChromeJsonTokenizer from the first event it cannot read; each event's
// fields read by ChromeEventParser and dispatched by phase into a TraceStoreBuilder. A large
// text is read in windows of its events array (ImportOptions::parseWindowBytes), so that
// simdjson's index covers one window, not the whole file, and the pages of a mapped file are
// given back behind the windows; valid JSON gives the same outcome.
#include "core/timeline/chrome_trace_reader.h"

#include "core/base/byte_format.h"
#include "core/base/diagnostic_codes.h"
#include "core/timeline/chrome_event_parser.h"
#include "core/timeline/chrome_json_tokenizer.h"
#include "core/timeline/json_kernel.h"
#include "core/timeline/trace_store_builder.h"

#include <cstring>
#include <optional>

namespace xt::timeline {

namespace od = simdjson::ondemand;
using json::isWs;
using json::skipWs;
using json::stringEnd;

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
    // The document in `text` (the whole text, or a copy of part of it whose byte j is text byte
    // j + delta): an event array, or an object whose traceEvents holds one.
    Status readDocument(std::string_view text, std::size_t capacity, std::ptrdiff_t delta,
                        bool& done, std::size_t& resumeAt);
    Status fastEvents(od::array& events, bool& done, std::size_t& resumeAt);
    // Windows: where the events array opens (the text's first byte, or a top-level traceEvents
    // value; kNpos when keys before it cannot be stepped over), where a window may end, and the
    // windowed read of the document that starts at `pos`.
    std::size_t eventsArrayAt(std::size_t pos) const;
    std::size_t findCut(std::size_t from) const;
    Status windowedParse(std::size_t pos, std::size_t eventsAt, bool& done, std::size_t& resumeAt);
    // Reads prefix + text[begin, end) + suffix as a document.
    Status readWindow(std::string_view prefix, std::size_t begin, std::size_t end,
                      std::string_view suffix, bool& done, std::size_t& resumeAt);
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
    std::size_t m_lastBegin = kNpos; // the last event read by the one-pass read
    HugePageVector<char> m_window;   // a window's document, padded (grows, never shrinks)
    std::string_view m_eventIndent;  // before the first event, when it starts a line
    std::size_t m_releasedTo = 0;    // text pages before this were given back
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
    if (done) reportProgress(m_options.progress, m_text.size(), m_text.size(), "parsing");
    if (!done) {
        // Non-strict JSON (trailing comma, missing brackets, a bad event): walk the top level
        // and parse each remaining event on its own.
        m_skipBefore = resumeAt;
        m_record = 0;
        m_releasedTo = 0; // the walk reads from the start again
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
    const std::size_t window = m_options.parseWindowBytes;
    if (window && m_text.size() / 2 > window) {
        const std::size_t pos = skipBomAndWhitespace(m_text);
        const std::size_t eventsAt = eventsArrayAt(pos);
        if (eventsAt != kNpos) {
            // The first event's indentation, when it starts a line: events start lines so.
            const std::size_t first = skipWs(m_text, eventsAt + 1);
            const std::size_t lineStart = m_text.rfind('\n', first);
            if (first < m_text.size() && lineStart != kNpos && lineStart > eventsAt)
                m_eventIndent = m_text.substr(lineStart + 1, first - lineStart - 1);
            if (findCut(eventsAt + 1 + window) != kNpos)
                return windowedParse(pos, eventsAt, done, resumeAt);
        }
    }
    if (m_text.size() >= 0xFFFFFF00ull) return Status::ok(); // beyond simdjson's 4 GiB
    return readDocument(m_text, m_capacity, 0, done, resumeAt);
}

Status ChromeTraceReader::readDocument(std::string_view text, std::size_t capacity,
                                       std::ptrdiff_t delta, bool& done, std::size_t& resumeAt) {
    done = false;
    resumeAt = m_lastBegin == kNpos ? 0 : m_lastBegin + 1;
    m_parser->readingCopy(text.data(), text.size(), delta);
    od::document doc;
    if (m_parser->documentParser()
            .iterate(simdjson::padded_string_view(text.data(), text.size(), capacity))
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
    std::size_t lastGood = resumeAt;
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
                report.distributedInfo = std::string(json::trimRight(raw)); // as the walk
        }
    }
    if (!sawEvents) warn(codes::kNoTraceEvents, 0, "object form without a traceEvents array");
    done = true;
    return Status::ok();
}

Status ChromeTraceReader::fastEvents(od::array& events, bool& done, std::size_t& resumeAt) {
    // On failure the tolerant walk re-reads from the first event not accepted here.
    auto fail = [&](std::size_t at) {
        resumeAt = at;
        done = false;
        return Status::ok();
    };
    for (auto er : events) {
        const std::size_t afterLast = m_lastBegin == kNpos ? 0 : m_lastBegin + 1;
        od::value ev;
        if (std::move(er).get(ev)) return fail(afterLast);
        const char* loc = nullptr;
        if (ev.current_location().get(loc)) return fail(afterLast);
        const std::size_t begin = m_parser->offsetOf(loc);
        od::object obj;
        if (ev.get_object().get(obj)) return fail(begin);
        ChromeEvent e;
        if (!m_parser->read(obj, e)) return fail(begin);
        acceptEvent(e, true, begin);
        ++m_record;
        m_lastBegin = begin;
        if (begin >= m_nextReport) {
            m_nextReport = begin + kProgressStep;
            if (!reportProgress(m_options.progress, begin, m_text.size(), "parsing"))
                return Status(ErrorCode::Cancelled, "import cancelled");
        }
    }
    resumeAt = m_lastBegin == kNpos ? 0 : m_lastBegin + 1;
    done = true;
    return Status::ok();
}

std::size_t ChromeTraceReader::eventsArrayAt(std::size_t pos) const {
    const std::string_view s = m_text;
    if (pos >= s.size()) return kNpos;
    if (s[pos] == '[') return pos;
    if (s[pos] != '{') return kNpos;
    for (std::size_t i = skipWs(s, pos + 1); i < s.size() && s[i] == '"';) {
        const std::size_t keyEnd = stringEnd(s, i);
        if (keyEnd == kNpos) return kNpos;
        const std::string_view key = s.substr(i + 1, keyEnd - i - 1);
        i = skipWs(s, keyEnd + 1);
        if (i >= s.size() || s[i] != ':') return kNpos;
        i = skipWs(s, i + 1);
        if (i >= s.size()) return kNpos;
        if (key == "traceEvents") return s[i] == '[' ? i : kNpos;
        const std::size_t end = json::valueEnd(s, i);
        if (end == kNpos) return kNpos;
        i = skipWs(s, end);
        if (i >= s.size() || s[i] != ',') return kNpos;
        i = skipWs(s, i + 1);
    }
    return kNpos;
}

// The first comma after `from` that ends a line between two objects: '}', whitespace, ',',
// whitespace holding a line break, then the first event's indentation and '{'. A line break is
// never inside a JSON string, so the comma is structure; it may still sit between objects nested
// in one event and indented as events are, which the window's read then finds (the tolerant
// walk takes over from that event: slower, the same result).
std::size_t ChromeTraceReader::findCut(std::size_t from) const {
    const char* p = m_text.data();
    const std::size_t n = m_text.size();
    for (std::size_t nl = from; nl < n; ++nl) {
        const void* q = std::memchr(p + nl, '\n', n - nl);
        if (!q) return kNpos;
        nl = std::size_t(static_cast<const char*>(q) - p);
        const std::size_t next = skipWs(m_text, nl + 1);
        if (next >= n || p[next] != '{') continue;
        if (m_eventIndent.data() && m_text.substr(nl + 1, next - nl - 1) != m_eventIndent) continue;
        std::size_t k = nl;
        while (k > from && isWs(p[k - 1]))
            --k;
        if (k <= from || p[k - 1] != ',') continue;
        const std::size_t comma = k - 1;
        while (k > from + 1 && isWs(p[k - 2]))
            --k;
        if (k > from + 1 && p[k - 2] == '}') return comma;
    }
    return kNpos;
}

// The keys before traceEvents (with an empty array for it), then the events array in windows
// cut by findCut, each read as an array of its own, then the rest of the document with the
// array's last events; every event at its text offset. A window that cannot be read ends the
// one-pass read there, as the whole document's read would end at its first unreadable event.
Status ChromeTraceReader::windowedParse(std::size_t pos, std::size_t eventsAt, bool& done,
                                        std::size_t& resumeAt) {
    const bool objectForm = eventsAt > pos;
    if (objectForm) {
        XT_RETURN_IF_ERROR(readWindow("", pos, eventsAt, "[]}", done, resumeAt));
        if (!done) return Status::ok();
    }
    for (std::size_t start = eventsAt + 1;;) {
        const std::size_t cut = findCut(start + m_options.parseWindowBytes);
        if (cut == kNpos)
            return readWindow(objectForm ? "{\"traceEvents\":[" : "[", start, m_text.size(), "",
                              done, resumeAt);
        XT_RETURN_IF_ERROR(readWindow("[", start, cut, "]", done, resumeAt));
        if (!done) return Status::ok();
        m_builder.releaseText(m_releasedTo, cut);
        m_releasedTo = cut;
        start = cut + 1;
    }
}

Status ChromeTraceReader::readWindow(std::string_view prefix, std::size_t begin, std::size_t end,
                                     std::string_view suffix, bool& done, std::size_t& resumeAt) {
    const std::size_t size = prefix.size() + (end - begin) + suffix.size();
    // Room for the windows after this one too (each is cut a little past the window size), so
    // that neither the copy nor the parser's index moves to fresh memory from window to window.
    od::parser& parser = m_parser->documentParser();
    if (parser.capacity() < size) {
        // Should this fail, iterate() allocates what this window needs, or says it cannot.
        [[maybe_unused]] const simdjson::error_code error =
            parser.allocate(size + size / 8, parser.max_depth());
    }
    if (m_window.size() < size + simdjson::SIMDJSON_PADDING)
        m_window.resize(size + size / 8 + simdjson::SIMDJSON_PADDING);
    char* out = m_window.data();
    std::memcpy(out, prefix.data(), prefix.size());
    m_builder.copyText(begin, end, out + prefix.size());
    std::memcpy(out + prefix.size() + (end - begin), suffix.data(), suffix.size());
    std::memset(out + size, 0, simdjson::SIMDJSON_PADDING);
    return readDocument(std::string_view(out, size), m_window.size(),
                        std::ptrdiff_t(begin) - std::ptrdiff_t(prefix.size()), done, resumeAt);
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
    if (begin >= m_releasedTo + kProgressStep) { // the walk only goes forward
        m_builder.releaseText(m_releasedTo, begin);
        m_releasedTo = begin;
    }
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
