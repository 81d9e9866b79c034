#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/json_kernel.h"

#include <simdjson.h>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace xt::timeline {

namespace od = simdjson::ondemand;

// ---------------------------------------------------------------------------------------------
// Structural scanning of the top level: finds event boundaries without a JSON parser, so that
// trailing commas, a missing closing bracket and garbage between events are tolerated.
namespace {

constexpr std::size_t kNpos = std::string_view::npos;
constexpr std::uint64_t kNoOff = Diagnostic::kNoOffset;

inline bool isWs(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t skipWs(std::string_view s, std::size_t i) {
    while (i < s.size() && isWs(s[i]))
        ++i;
    return i;
}

// `i` is at an opening quote; returns the index of the closing quote or kNpos.
std::size_t stringEnd(std::string_view s, std::size_t i) {
    const char* base = s.data();
    std::size_t j = i + 1;
    for (;;) {
        const void* q = std::memchr(base + j, '"', s.size() - j);
        if (!q) return kNpos;
        std::size_t k = static_cast<const char*>(q) - base;
        std::size_t bs = 0;
        while (k - bs > i && base[k - bs - 1] == '\\')
            ++bs;
        if ((bs & 1) == 0) return k;
        j = k + 1;
    }
}

// Index of the first '"', '{', '}', '[' or ']' in [i, n), or n. 32 bytes at a time with AVX2.
inline std::size_t nextStructural(const char* p, std::size_t i, std::size_t n) {
#if defined(__AVX2__)
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i open = _mm256_set1_epi8('{');  // '[' | 0x20 == '{'
    const __m256i close = _mm256_set1_epi8('}'); // ']' | 0x20 == '}'
    const __m256i lower = _mm256_set1_epi8(0x20);
    for (; i + 32 <= n; i += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
        const __m256i f = _mm256_or_si256(v, lower);
        const __m256i hit = _mm256_or_si256(
            _mm256_cmpeq_epi8(v, quote),
            _mm256_or_si256(_mm256_cmpeq_epi8(f, open), _mm256_cmpeq_epi8(f, close)));
        const auto mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(hit));
        if (mask) return i + static_cast<std::size_t>(__builtin_ctz(mask));
    }
#endif
    for (; i < n; ++i) {
        const char c = p[i];
        if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') return i;
    }
    return n;
}

// `i` is at the first byte of a JSON value; returns one past its end, or kNpos when the text
// ends first.
std::size_t valueEnd(std::string_view s, std::size_t i) {
    const char c0 = s[i];
    if (c0 == '"') {
        std::size_t e = stringEnd(s, i);
        return e == kNpos ? kNpos : e + 1;
    }
    if (c0 != '{' && c0 != '[') {
        while (i < s.size() && !isWs(s[i]) && s[i] != ',' && s[i] != ']' && s[i] != '}')
            ++i;
        return i;
    }
    int depth = 0;
    const std::size_t n = s.size();
    const char* p = s.data();
    for (i = nextStructural(p, i, n); i < n; i = nextStructural(p, i + 1, n)) {
        const char c = p[i];
        if (c == '"') {
            i = stringEnd(s, i);
            if (i == kNpos) return kNpos;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (--depth == 0) {
            return i + 1;
        }
    }
    return kNpos;
}

// Times (and durations) are kept within +-4.6e15 us (146 years either side of the epoch), so
// in nanoseconds they stay below 2^62 and any sum or difference of two fits in an int64.
constexpr double kMaxAbsMicros = 4.6e15;
bool timeInRange(double us) {
    return std::isfinite(us) && std::fabs(us) < kMaxAbsMicros;
}
std::int64_t toNs(double us) {
    return static_cast<std::int64_t>(std::llround(us * 1000.0));
}

// Microseconds written as decimal text -> nanoseconds, exactly (a double loses the last
// digits of epoch-based times). Falls back to double for exponents. False when not a time.
bool microsTextToNs(std::string_view t, std::int64_t& ns) {
    std::size_t i = 0;
    bool neg = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
    std::int64_t ip = 0;
    std::size_t digits = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        if (++digits > 16) break; // beyond 1e16 us: the double path rejects it
        ip = ip * 10 + (t[i++] - '0');
    }
    std::int64_t frac = 0;
    if (digits <= 16 && i < t.size() && t[i] == '.') {
        ++i;
        int fd = 0;
        bool roundUp = false;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            if (fd < 3)
                frac = frac * 10 + (t[i] - '0');
            else if (fd == 3)
                roundUp = t[i] >= '5';
            ++fd;
            ++i;
        }
        for (int k = fd; k < 3; ++k)
            frac *= 10;
        if (roundUp) ++frac;
    }
    if (digits == 0 || digits > 16 || i != t.size() || ip >= 4'600'000'000'000'000) {
        double d = 0;
        auto r = std::from_chars(t.data(), t.data() + t.size(), d);
        if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !timeInRange(d)) return false;
        ns = toNs(d);
        return true;
    }
    ns = ip * 1000 + frac;
    if (neg) ns = -ns;
    return true;
}

// Equality with a literal: the constant length lets the compiler inline the comparison.
template <std::size_t N> inline bool eq(std::string_view k, const char (&lit)[N]) {
    return k.size() == N - 1 && std::memcmp(k.data(), lit, N - 1) == 0;
}

std::string_view trimRight(std::string_view v) {
    while (!v.empty() && isWs(v.back()))
        v.remove_suffix(1);
    return v;
}

bool parseNumberText(std::string_view t, double& out) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), out);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Numeric ordering key for pid/tid text: numbers sort numerically before names.
std::tuple<int, double, std::string_view> idSortKey(std::string_view t) {
    double d = 0;
    if (!t.empty() && parseNumberText(t, d)) return {0, d, t};
    return {1, 0.0, t};
}

enum FlowFlags : std::uint8_t { kFlowIn = 1, kFlowOut = 2 };

struct RawSlice {
    std::int64_t start = 0, dur = 0;
    StringId name = 0, cat = 0;
    ArgsRef args;
    std::uint32_t order = 0;
    StringId bindId = 0;
    std::uint8_t flow = 0;
};

struct RawBE {
    std::int64_t ts = 0;
    std::uint32_t order = 0;
    bool begin = false;
    StringId name = 0, cat = 0, bindId = 0;
    std::uint8_t flow = 0;
    ArgsRef args;
    std::uint64_t offset = 0;
};

struct RawThread {
    std::uint32_t process = 0;
    StringId tid = 0;
    StringId name = 0;
    std::int64_t sortIndex = 0;
    std::vector<RawSlice> slices;
    std::vector<RawBE> be;
};

struct RawProcess {
    StringId pid = 0, name = 0, labels = 0;
    std::int64_t sortIndex = 0;
};

struct RawAsync {
    std::int64_t start = 0, end = 0;
    StringId name = 0, cat = 0;
    ArgsRef args;
    std::uint32_t order = 0;
};

struct FlowPoint {
    StringId cat = 0, name = 0;
    std::uint64_t id = 0;
    std::int64_t ts = 0;
    std::uint32_t thread = 0;
    char ph = 's';
    bool enclosing = true;
    std::uint32_t order = 0;
};

struct RawObject {
    std::uint32_t process = 0;
    StringId name = 0, id = 0;
    std::int64_t created = kNoTime, destroyed = kNoTime;
    std::uint32_t snapshots = 0;
    ArgsRef last;
};

// The fields of one event, as read by the On-Demand parser.
struct EventFields {
    std::string_view ph;
    bool hasPh = false;
    StringId name = 0, cat = 0, pid = 0, tid = 0, bindId = 0;
    std::uint64_t id = 0;    // idKey() of the id text
    std::string_view idText; // valid while the event is dispatched
    bool hasId = false, hasBindId = false;
    std::int64_t ts = 0, dur = 0; // ns
    bool hasTs = false, tsNull = false, tsInRange = true, hasDur = false, durInRange = true;
    char bp = 0, scope = 0;
    bool flowIn = false, flowOut = false;
    ArgsRef args;
};

struct KeyHash {
    std::size_t operator()(const std::tuple<std::uint32_t, StringId, std::uint64_t>& k) const {
        auto [a, b, c] = k;
        return std::hash<std::uint64_t>()((std::uint64_t(a) << 32 | b) * 0x9E3779B97F4A7C15ull ^
                                          c * 0xC2B2AE3D27D4EB4Full);
    }
};

} // namespace

// ---------------------------------------------------------------------------------------------
// TraceStoreBuilder: collects events in arrival order, then sorts, matches and resolves them
// into the immutable store.
class TraceStoreBuilder {
public:
    TraceStoreBuilder(TraceBytes bytes, std::string file, const ImportOptions& options)
        : m_options(options) {
        // Events sit at depth 2 (inside the array, or inside the object's traceEvents).
        // An allocation failure here shows up again, and is handled, at the first iterate().
        [[maybe_unused]] const auto err =
            m_parser.allocate(simdjson::SIMDJSON_PADDING, options.maxJsonDepth + 2u);
        m_store.m_bytes = std::move(bytes);
        m_report.file = std::move(file);
        m_report.container = traceContainerName(m_store.m_bytes.container());
        m_report.inputBytes = m_store.m_bytes.inputSize();
        m_report.jsonBytes = m_store.m_bytes.text().size();
        m_text = m_store.m_bytes.text();
        m_phaseCounts.fill(0);
    }

    Status parse(const ProgressCallback& progress);
    // Whether the event's process and thread fit the bounds of ImportOptions; reported when not.
    bool admit(const EventFields& f, char ph, std::size_t offset);
    // Whether `json`, found `outer` levels deep in an event, nests arrays and objects past
    // ImportOptions::maxJsonDepth (the event object is level 1; quoted text does not count).
    bool tooDeep(std::string_view json, std::uint32_t outer) const;
    // Frees the parsers' buffers (the structural index is ~4 bytes per JSON token) before
    // finish() allocates the final columns.
    void releaseParsers() {
        m_parser = od::parser{};
        m_argsParser = od::parser{};
    }
    TraceStore finish();

private:
    void warn(const char* code, std::uint64_t offset, std::string message,
              Severity sev = Severity::Warning) {
        m_report.diagnostics.add(sev, code, m_report.file, offset,
                                 static_cast<std::int64_t>(m_record), std::move(message));
    }
    Status parseEventArray(std::size_t pos, const ProgressCallback& progress, std::size_t& endPos);
    void parseEvent(std::size_t begin, std::size_t end);
    void acceptEvent(EventFields& f, bool ok, std::size_t begin);
    // One simdjson pass over the whole document; false (with the offset from which the
    // tolerant path must take over) at the first thing it cannot read.
    Status fastParse(const ProgressCallback& progress, bool& done, std::size_t& resumeAt);
    Status fastEvents(od::array& events, const ProgressCallback& progress, bool& done,
                      std::size_t& resumeAt);
    std::size_t m_skipBefore = 0; // tolerant path: events before this offset were read already
    std::size_t m_eventEnd = 0;   // tolerant path: end of the event being read
    bool readFields(od::object& obj, EventFields& f, std::size_t begin);
    void dispatch(EventFields& f, std::size_t offset);
    void handleMetadata(const EventFields& f, std::size_t offset);
    void handleCounter(const EventFields& f, std::size_t offset);

    StringId intern(std::string_view s) { return m_store.m_strings.intern(s); }
    // pid, tid and cat repeat from one event to the next: remember the last one of each.
    struct TextCache {
        std::string text;
        StringId id = 0;
        bool valid = false;
    };
    StringId internCached(std::string_view s, TextCache& c) {
        if (c.valid && c.text == s) return c.id;
        c.text.assign(s);
        c.id = intern(s);
        c.valid = true;
        return c.id;
    }
    TextCache m_pidCache, m_tidCache, m_catCache;
    // A 64-bit key for an id: decimal and 0x-hex numbers below 2^62 are their value (tagged by
    // base), anything else the interned text. Ids are unique per flow, so most never reach the
    // string table.
    std::uint64_t idKey(std::string_view t) {
        std::uint64_t v = 0;
        std::uint64_t tag = 0;
        std::string_view d = t;
        int base = 10;
        if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
            d.remove_prefix(2);
            base = 16;
            tag = 1ull << 62;
        }
        if (!d.empty() && d.size() <= 15) {
            auto r = std::from_chars(d.data(), d.data() + d.size(), v, base);
            if (r.ec == std::errc() && r.ptr == d.data() + d.size() &&
                (base == 16 || d[0] != '0' || d.size() == 1))
                return tag | v;
        }
        return (2ull << 62) | intern(t);
    }
    std::uint32_t processIndex(StringId pid);
    std::uint32_t threadIndex(StringId pid, StringId tid);
    void seeTime(std::int64_t t) {
        if (m_store.m_begin == kNoTime || t < m_store.m_begin) m_store.m_begin = t;
        if (m_store.m_end == kNoTime || t > m_store.m_end) m_store.m_end = t;
    }
    // A padded view of [begin,end) of the text: in place when enough bytes follow, else a copy.
    simdjson::padded_string_view paddedView(std::size_t begin, std::size_t end);

    std::uint32_t findEnclosing(const Track& t, std::int64_t ts) const;
    std::uint32_t findNext(const Track& t, std::int64_t ts) const;

    ImportOptions m_options;
    TraceStore m_store;
    ImportReport m_report;
    std::string_view m_text;
    od::parser m_parser;
    od::parser m_argsParser;
    simdjson::padded_string m_tail;
    std::uint64_t m_record = 0;
    std::array<std::uint64_t, 256> m_phaseCounts;
    std::map<std::string, std::uint64_t, std::less<>> m_otherPhases;

    std::vector<RawProcess> m_processes;
    std::unordered_map<StringId, std::uint32_t> m_processByPid;
    std::vector<RawThread> m_threads;
    std::unordered_map<std::uint64_t, std::uint32_t> m_threadByKey;
    StringId m_lastPid = kNoIndex, m_lastTid = kNoIndex;
    std::uint32_t m_lastThread = 0;

    // Async: open b / S events by (process, cat, id); finished intervals per process.
    std::unordered_map<std::tuple<std::uint32_t, StringId, std::uint64_t>, std::vector<RawAsync>,
                       KeyHash>
        m_openAsync, m_openLegacyAsync;         // (process, cat, id)
    std::vector<std::vector<RawAsync>> m_async; // per raw process
    std::vector<FlowPoint> m_flowPoints;        // grouped by (cat, name, id) at the end
    struct RawInstant {
        Instant in;
        std::uint32_t rawProcess, rawThread;
    };
    std::vector<RawInstant> m_instants;
    std::map<std::pair<std::uint32_t, StringId>, std::uint32_t> m_counterIndex;
    std::vector<CounterSeries> m_counters; // process = raw process index until finish
    std::unordered_map<std::tuple<std::uint32_t, StringId, std::uint64_t>, std::uint32_t, KeyHash>
        m_liveObjects; // (process, name, id)
    std::vector<RawObject> m_objects;
};

bool TraceStoreBuilder::admit(const EventFields& f, char ph, std::size_t offset) {
    if (!m_processByPid.count(f.pid) && m_processes.size() >= m_options.maxProcesses) {
        warn("too-many-processes", offset,
             "more than " + std::to_string(m_options.maxProcesses) +
                 " processes (ImportOptions::maxProcesses): event skipped",
             Severity::Error);
        return false;
    }
    bool threaded = ph == 'X' || ph == 'B' || ph == 'E' || ph == 's' || ph == 't' || ph == 'f';
    if (ph == 'i' || ph == 'I' || ph == 'R') threaded = f.scope != 'p' && f.scope != 'g';
    if (ph == 'M') threaded = m_store.m_strings.view(f.name).starts_with("thread_");
    if (threaded && m_threads.size() >= m_options.maxThreads &&
        !(f.pid == m_lastPid && f.tid == m_lastTid) &&
        !m_threadByKey.count((std::uint64_t(f.pid) << 32) | f.tid)) {
        warn("too-many-threads", offset,
             "more than " + std::to_string(m_options.maxThreads) +
                 " threads (ImportOptions::maxThreads): event skipped",
             Severity::Error);
        return false;
    }
    return true;
}

bool TraceStoreBuilder::tooDeep(std::string_view json, std::uint32_t outer) const {
    std::uint32_t depth = outer;
    const char* p = json.data();
    const std::size_t n = json.size();
    for (std::size_t i = nextStructural(p, 0, n); i < n; i = nextStructural(p, i + 1, n)) {
        const char c = p[i];
        if (c == '"') {
            i = stringEnd(json, i);
            if (i == kNpos) return false;
        } else if (c == '{' || c == '[') {
            if (++depth > m_options.maxJsonDepth) return true;
        } else if (depth > outer) {
            --depth;
        }
    }
    return false;
}

std::uint32_t TraceStoreBuilder::processIndex(StringId pid) {
    auto [it, inserted] =
        m_processByPid.try_emplace(pid, static_cast<std::uint32_t>(m_processes.size()));
    if (inserted) {
        m_processes.push_back(RawProcess{pid, 0, 0, 0});
        m_async.emplace_back();
    }
    return it->second;
}

std::uint32_t TraceStoreBuilder::threadIndex(StringId pid, StringId tid) {
    if (pid == m_lastPid && tid == m_lastTid) return m_lastThread;
    const std::uint64_t key = (std::uint64_t(pid) << 32) | tid;
    auto it = m_threadByKey.find(key);
    std::uint32_t idx;
    if (it != m_threadByKey.end()) {
        idx = it->second;
    } else {
        idx = static_cast<std::uint32_t>(m_threads.size());
        RawThread t;
        t.process = processIndex(pid);
        t.tid = tid;
        m_threads.push_back(std::move(t));
        m_threadByKey.emplace(key, idx);
    }
    m_lastPid = pid;
    m_lastTid = tid;
    m_lastThread = idx;
    return idx;
}

simdjson::padded_string_view TraceStoreBuilder::paddedView(std::size_t begin, std::size_t end) {
    const std::size_t len = end - begin;
    if (m_store.m_bytes.capacityFrom(begin) >= len + simdjson::SIMDJSON_PADDING)
        return simdjson::padded_string_view(m_text.data() + begin, len,
                                            m_store.m_bytes.capacityFrom(begin));
    m_tail = simdjson::padded_string(m_text.data() + begin, len);
    return simdjson::padded_string_view(m_tail.data(), len, len + simdjson::SIMDJSON_PADDING);
}

// A key without copying when it has no escapes (nearly always): the raw bytes up to the quote.
static bool keyView(od::field& field, std::string_view& out) {
    const char* r = field.key().raw();
    std::size_t n = 0;
    while (r[n] != '"') {
        if (r[n] == '\\') return !field.unescaped_key().get(out);
        ++n;
    }
    out = std::string_view(r, n);
    return true;
}

// A string value without copying when it has no escapes; else unescaped by simdjson.
static bool stringView(od::value& v, std::string_view& out) {
    std::string_view tok = trimRight(v.raw_json_token());
    if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"' &&
        tok.find('\\') == std::string_view::npos) {
        out = tok.substr(1, tok.size() - 2);
        return true;
    }
    return !v.get_string().get(out);
}

Status TraceStoreBuilder::parse(const ProgressCallback& progress) {
    std::string_view s = m_text;
    std::size_t pos = 0;
    if (s.size() >= 3 && s.substr(0, 3) == "\xEF\xBB\xBF") pos = 3; // UTF-8 BOM
    pos = skipWs(s, pos);
    if (pos >= s.size())
        return Status(ErrorCode::Corrupt, m_report.file + ": empty input, not a Chrome trace");
    if (m_store.m_bytes.truncated())
        warn("truncated-gzip", m_report.inputBytes,
             "gzip stream ends early; reading what it holds");
    bool done = false;
    std::size_t resumeAt = 0;
    XT_RETURN_IF_ERROR(fastParse(progress, done, resumeAt));
    if (done) return Status::ok();
    // Non-strict JSON (trailing comma, missing brackets, a bad event): scan the top level
    // ourselves and parse each remaining event on its own.
    m_skipBefore = resumeAt;
    m_record = 0;
    std::size_t endPos = 0;
    if (s[pos] == '[') {
        XT_RETURN_IF_ERROR(parseEventArray(pos + 1, progress, endPos));
    } else if (s[pos] == '{') {
        m_report.objectForm = true;
        // Walk the top-level keys; only traceEvents and displayTimeUnit matter here.
        std::size_t i = pos + 1;
        bool sawEvents = false;
        for (;;) {
            i = skipWs(s, i);
            while (i < s.size() && s[i] == ',')
                i = skipWs(s, i + 1);
            if (i >= s.size()) {
                warn("missing-closing-brace", i, "top-level object is not closed", Severity::Info);
                break;
            }
            if (s[i] == '}') break;
            if (s[i] != '"') {
                warn("malformed-top-level", i, "expected a key in the top-level object");
                break;
            }
            std::size_t ke = stringEnd(s, i);
            if (ke == kNpos) {
                warn("truncated-top-level", i, "text ends inside a top-level key");
                break;
            }
            std::string_view key = s.substr(i + 1, ke - i - 1);
            i = skipWs(s, ke + 1);
            if (i >= s.size() || s[i] != ':') {
                warn("malformed-top-level", i, "expected ':' after a top-level key");
                break;
            }
            i = skipWs(s, i + 1);
            if (i >= s.size()) {
                warn("truncated-top-level", i, "text ends before a top-level value");
                break;
            }
            if (key == "traceEvents" && s[i] == '[') {
                sawEvents = true;
                XT_RETURN_IF_ERROR(parseEventArray(i + 1, progress, endPos));
                if (endPos >= s.size()) break;
                i = endPos;
                continue;
            }
            std::size_t ve = valueEnd(s, i);
            if (ve == kNpos) {
                warn("truncated-top-level", i, "text ends inside the value of a top-level key");
                break;
            }
            if (key == "displayTimeUnit" && s[i] == '"')
                m_report.displayTimeUnit = std::string(s.substr(i + 1, ve - i - 2));
            if (key == "distributedInfo" && s[i] == '{')
                m_report.distributedInfo = std::string(s.substr(i, ve - i));
            i = ve;
        }
        if (!sawEvents) warn("no-trace-events", pos, "object form without a traceEvents array");
    } else {
        return Status(ErrorCode::Corrupt,
                      m_report.file + ": not a Chrome trace (expected '[' or '{' at the start)");
    }
    return Status::ok();
}

Status TraceStoreBuilder::fastParse(const ProgressCallback& progress, bool& done,
                                    std::size_t& resumeAt) {
    done = false;
    resumeAt = 0;
    if (m_text.size() >= 0xFFFFFF00ull) return Status::ok(); // beyond simdjson's 4 GiB
    od::document doc;
    if (m_parser
            .iterate(simdjson::padded_string_view(m_text.data(), m_text.size(),
                                                  m_store.m_bytes.capacityFrom(0)))
            .get(doc))
        return Status::ok();
    od::json_type t;
    if (doc.type().get(t)) return Status::ok();
    if (t == od::json_type::array) {
        od::array events;
        if (doc.get_array().get(events)) return Status::ok();
        return fastEvents(events, progress, done, resumeAt);
    }
    if (t != od::json_type::object) return Status::ok();
    m_report.objectForm = true;
    od::object top;
    if (doc.get_object().get(top)) return Status::ok();
    bool sawEvents = false;
    std::size_t lastGood = 0;
    for (auto fr : top) {
        od::field field;
        std::string_view key;
        if (std::move(fr).get(field) || !keyView(field, key)) {
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
            XT_RETURN_IF_ERROR(fastEvents(events, progress, eventsDone, resumeAt));
            if (!eventsDone) return Status::ok();
            lastGood = resumeAt;
        } else if (key == "displayTimeUnit") {
            std::string_view sv;
            if (stringView(v, sv)) m_report.displayTimeUnit = std::string(sv);
        } else if (key == "distributedInfo") {
            od::object info;
            std::string_view raw;
            if (!v.get_object().get(info) && !info.raw_json().get(raw))
                m_report.distributedInfo = std::string(raw);
        }
    }
    if (!sawEvents) warn("no-trace-events", 0, "object form without a traceEvents array");
    done = true;
    return Status::ok();
}

Status TraceStoreBuilder::fastEvents(od::array& events, const ProgressCallback& progress,
                                     bool& done, std::size_t& resumeAt) {
    std::size_t nextReport = 4u << 20;
    std::size_t lastBegin = kNpos;
    // On failure the tolerant path re-reads from the first event not accepted here.
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
        EventFields f;
        if (!readFields(obj, f, begin)) return fail(begin);
        acceptEvent(f, true, begin);
        ++m_record;
        lastBegin = begin;
        if (begin >= nextReport) {
            nextReport = begin + (4u << 20);
            if (!reportProgress(progress, begin, m_text.size(), "parsing"))
                return Status(ErrorCode::Cancelled, "import cancelled");
        }
    }
    reportProgress(progress, m_text.size(), m_text.size(), "parsing");
    resumeAt = lastBegin == kNpos ? 0 : lastBegin + 1;
    done = true;
    return Status::ok();
}

Status TraceStoreBuilder::parseEventArray(std::size_t pos, const ProgressCallback& progress,
                                          std::size_t& endPos) {
    std::string_view s = m_text;
    std::size_t nextReport = pos + (4u << 20);
    bool lastWasComma = false;
    for (;;) {
        pos = skipWs(s, pos);
        if (pos >= s.size()) {
            warn("missing-closing-bracket", pos, "event array is not closed", Severity::Info);
            break;
        }
        const char c = s[pos];
        if (c == ']') {
            if (lastWasComma) warn("trailing-comma", pos, "comma before ']'", Severity::Info);
            ++pos;
            break;
        }
        if (c == ',') {
            if (lastWasComma) warn("empty-array-element", pos, "two commas in a row");
            lastWasComma = true;
            ++pos;
            continue;
        }
        lastWasComma = false;
        std::size_t e = valueEnd(s, pos);
        if (e == kNpos) {
            warn("truncated-event", pos, "the text ends inside an event");
            pos = s.size();
            break;
        }
        if (e == pos) e = pos + 1; // a stray byte ('}', ':'): step over it
        if (pos < m_skipBefore) {
            // Already read by the fast path.
        } else if (c == '{') {
            parseEvent(pos, e);
        } else {
            warn("non-object-event", pos, "array element is not an object");
        }
        ++m_record;
        pos = e;
        if (pos >= nextReport && pos >= m_skipBefore) {
            nextReport = pos + (4u << 20);
            if (!reportProgress(progress, pos, s.size(), "parsing"))
                return Status(ErrorCode::Cancelled, "import cancelled");
        }
    }
    reportProgress(progress, s.size(), s.size(), "parsing");
    endPos = pos;
    return Status::ok();
}

// Text of a scalar id-like value: strings unescaped, numbers as written (so ids beyond 2^64
// survive).
static bool idText(od::value v, std::string_view& out) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t == od::json_type::string) return stringView(v, out);
    if (t == od::json_type::number || t == od::json_type::boolean) {
        out = trimRight(v.raw_json_token());
        return true;
    }
    if (t == od::json_type::object) {
        od::object o;
        if (v.get_object().get(o)) return false;
        return !o.raw_json().get(out);
    }
    return false;
}

// A time field: number or numeric string, in microseconds -> ns. `isNull` for JSON null.
static bool timeValue(od::value v, std::int64_t& ns, bool& isNull, bool& inRange) {
    od::json_type t;
    if (v.type().get(t)) return false;
    std::string_view text;
    if (t == od::json_type::number) {
        text = trimRight(v.raw_json_token());
    } else if (t == od::json_type::null) {
        isNull = true;
        return true;
    } else if (t == od::json_type::string) {
        if (v.get_string().get(text)) return false;
    } else {
        return false;
    }
    inRange = microsTextToNs(text, ns);
    return true;
}

static bool numberValue(od::value v, double& out, bool& isNull) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t == od::json_type::number) return !v.get_double().get(out);
    if (t == od::json_type::null) {
        isNull = true;
        return true;
    }
    if (t == od::json_type::string) {
        std::string_view sv;
        if (v.get_string().get(sv)) return false;
        return parseNumberText(sv, out);
    }
    return false;
}

bool TraceStoreBuilder::readFields(od::object& obj, EventFields& f, std::size_t begin) {
    for (auto fr : obj) {
        od::field field;
        if (std::move(fr).get(field)) return false;
        std::string_view key;
        if (!keyView(field, key)) return false;
        od::value v = field.value();
        if (key.empty()) continue;
        std::string_view sv;
        switch (key[0]) {
        case 'p':
            if (eq(key, "ph")) {
                if (!stringView(v, f.ph)) return false;
                f.hasPh = true;
                continue;
            }
            if (eq(key, "pid")) {
                if (!idText(v, sv)) return false;
                f.pid = internCached(sv, m_pidCache);
                continue;
            }
            break;
        case 'n':
            if (eq(key, "name")) {
                if (!idText(v, sv)) return false;
                f.name = intern(sv);
                continue;
            }
            break;
        case 'c':
            if (eq(key, "cat")) {
                if (!idText(v, sv)) return false;
                f.cat = internCached(sv, m_catCache);
                continue;
            }
            break;
        case 't':
            if (eq(key, "tid")) {
                if (!idText(v, sv)) return false;
                f.tid = internCached(sv, m_tidCache);
                continue;
            }
            if (eq(key, "ts")) {
                bool isNull = false;
                if (!timeValue(v, f.ts, isNull, f.tsInRange)) return false;
                f.hasTs = !isNull;
                f.tsNull = isNull;
                continue;
            }
            break;
        case 'd':
            if (eq(key, "dur")) {
                bool isNull = false;
                if (!timeValue(v, f.dur, isNull, f.durInRange)) return false;
                f.hasDur = !isNull;
                continue;
            }
            break;
        case 'i':
            if (eq(key, "id") || (eq(key, "id2") && !f.hasId)) {
                if (!idText(v, sv)) return false;
                f.idText = sv;
                f.id = idKey(sv);
                f.hasId = true;
                continue;
            }
            break;
        case 'b':
            if (eq(key, "bp")) {
                if (v.get_string().get(sv)) return false;
                f.bp = sv.empty() ? 0 : sv[0];
                continue;
            }
            if (eq(key, "bind_id")) {
                if (!idText(v, sv)) return false;
                f.bindId = intern(sv);
                f.hasBindId = true;
                continue;
            }
            break;
        case 's':
            if (eq(key, "s")) {
                if (v.get_string().get(sv)) return false;
                f.scope = sv.empty() ? 0 : sv[0];
                continue;
            }
            break;
        case 'f':
            if (eq(key, "flow_in") || eq(key, "flow_out")) {
                bool b = false;
                if (v.get_bool().get(b)) return false;
                (eq(key, "flow_in") ? f.flowIn : f.flowOut) = b;
                continue;
            }
            break;
        case 'a':
            if (eq(key, "args")) {
                od::json_type t;
                if (v.type().get(t)) return false;
                if (t == od::json_type::object) {
                    od::object a;
                    if (v.get_object().get(a)) return false;
                    if (a.raw_json().get(sv)) return false;
                    // The view points into the text or into m_tail (copied tail events).
                    const char* base =
                        sv.data() >= m_text.data() && sv.data() < m_text.data() + m_text.size()
                            ? m_text.data()
                            : m_tail.data() - begin;
                    f.args.offset = static_cast<std::uint64_t>(sv.data() - base);
                    f.args.size = static_cast<std::uint32_t>(trimRight(sv).size());
                    // Only args are kept and decoded later: bound their nesting (a shallow
                    // object cannot be deep, so short args skip the scan).
                    if (f.args.size > 2 * m_options.maxJsonDepth && tooDeep(sv, 1)) return false;
                    continue;
                }
            }
            break;
        default:
            break;
        }
        // Unknown or unused key: the iterator skips its value.
    }
    return true;
}

void TraceStoreBuilder::parseEvent(std::size_t begin, std::size_t end) {
    od::document doc;
    EventFields f;
    auto view = paddedView(begin, end);
    m_eventEnd = end;
    bool ok = !m_parser.iterate(view).get(doc);
    od::object obj;
    if (ok) ok = !doc.get_object().get(obj);
    if (ok) ok = readFields(obj, f, begin);
    acceptEvent(f, ok, begin);
}

void TraceStoreBuilder::acceptEvent(EventFields& f, bool ok, std::size_t begin) {
    ++m_report.events;
    if (f.hasPh) {
        if (f.ph.size() == 1) {
            ++m_phaseCounts[static_cast<unsigned char>(f.ph[0])];
        } else {
            ++m_otherPhases[std::string(f.ph)];
        }
    }
    if (!ok) {
        if (m_eventEnd > begin && tooDeep(m_text.substr(begin, m_eventEnd - begin), 0))
            warn("nesting-too-deep", begin,
                 "event nests arrays/objects deeper than " +
                     std::to_string(m_options.maxJsonDepth) +
                     " levels (ImportOptions::maxJsonDepth): skipped",
                 Severity::Error);
        else
            warn("malformed-event", begin, "event is not valid JSON");
        return;
    }
    if (!f.hasPh) {
        warn("missing-phase", begin, "event has no \"ph\"");
        return;
    }
    dispatch(f, begin);
}

void TraceStoreBuilder::dispatch(EventFields& f, std::size_t offset) {
    if (f.ph.size() != 1) {
        warn("unknown-phase", offset, "unknown phase \"" + std::string(f.ph) + "\"");
        return;
    }
    const char ph = f.ph[0];
    if (!admit(f, ph, offset)) return;
    if (ph == 'M') {
        handleMetadata(f, offset);
        return;
    }
    // Every other known phase needs a time stamp.
    static constexpr std::string_view kKnown = "XBEiInCbeSTFpstfNODPRc()";
    if (kKnown.find(ph) == std::string_view::npos) {
        warn("unknown-phase", offset, std::string("unknown phase \"") + ph + "\"");
        return;
    }
    if (!f.hasTs) {
        warn(f.tsNull ? "null-ts" : "missing-ts", offset, "event has no usable \"ts\"");
        return;
    }
    if (!f.tsInRange) {
        warn("ts-out-of-range", offset, "\"ts\" is not a time within +-4.6e15 us");
        return;
    }
    const std::int64_t ts = f.ts;
    const auto order = static_cast<std::uint32_t>(m_record);
    switch (ph) {
    case 'X': {
        std::int64_t dur = 0;
        if (!f.hasDur) {
            warn("x-without-dur", offset, "X event without \"dur\": zero length", Severity::Info);
        } else if (!f.durInRange || f.dur < 0) {
            warn("bad-dur", offset, "X event with a negative or huge \"dur\": zero length",
                 Severity::Info);
        } else {
            dur = f.dur;
        }
        seeTime(ts);
        seeTime(ts + dur);
        auto& t = m_threads[threadIndex(f.pid, f.tid)];
        std::uint8_t flow = (f.flowIn ? kFlowIn : 0) | (f.flowOut ? kFlowOut : 0);
        t.slices.push_back(
            RawSlice{ts, dur, f.name, f.cat, f.args, order, f.hasBindId ? f.bindId : 0, flow});
        return;
    }
    case 'B':
    case 'E': {
        seeTime(ts);
        auto& t = m_threads[threadIndex(f.pid, f.tid)];
        std::uint8_t flow = (f.flowIn ? kFlowIn : 0) | (f.flowOut ? kFlowOut : 0);
        t.be.push_back(RawBE{ts, order, ph == 'B', f.name, f.cat, f.hasBindId ? f.bindId : 0, flow,
                             f.args, offset});
        return;
    }
    case 'i':
    case 'I':
    case 'R':
    case 'n': {
        seeTime(ts);
        RawInstant ri;
        ri.in.ts = ts;
        ri.in.name = f.name;
        ri.in.cat = f.cat;
        ri.in.phase = ph;
        ri.in.scope = ph == 'n' || f.scope == 'p'
                          ? InstantScope::Process
                          : (f.scope == 'g' ? InstantScope::Global : InstantScope::Thread);
        ri.rawProcess = processIndex(f.pid);
        ri.rawThread = ri.in.scope == InstantScope::Thread ? threadIndex(f.pid, f.tid) : kNoIndex;
        m_instants.push_back(ri);
        return;
    }
    case 'C':
        seeTime(ts);
        handleCounter(f, offset);
        return;
    case 'b':
    case 'S': {
        seeTime(ts);
        auto& open = ph == 'b' ? m_openAsync : m_openLegacyAsync;
        open[{processIndex(f.pid), f.cat, f.id}].push_back(
            RawAsync{ts, kNoTime, f.name, f.cat, f.args, order});
        return;
    }
    case 'e':
    case 'F': {
        seeTime(ts);
        auto& open = ph == 'e' ? m_openAsync : m_openLegacyAsync;
        const std::uint32_t p = processIndex(f.pid);
        auto it = open.find({p, f.cat, f.id});
        if (it == open.end() || it->second.empty()) {
            warn("unmatched-async-end", offset,
                 std::string("async '") + ph + "' without an open begin: skipped");
            return;
        }
        RawAsync a = it->second.back();
        it->second.pop_back();
        a.end = std::max(ts, a.start);
        m_async[p].push_back(a);
        return;
    }
    case 's':
    case 't':
    case 'f': {
        seeTime(ts);
        if (!f.hasId) {
            warn("flow-without-id", offset, "flow event without \"id\": skipped");
            return;
        }
        FlowPoint fp;
        fp.ts = ts;
        fp.thread = threadIndex(f.pid, f.tid);
        fp.ph = ph;
        fp.enclosing = ph != 'f' || f.bp == 'e';
        fp.order = order;
        fp.name = f.name;
        fp.cat = f.cat;
        fp.id = f.id;
        m_flowPoints.push_back(fp);
        return;
    }
    case 'N':
    case 'O':
    case 'D': {
        seeTime(ts);
        const std::uint32_t p = processIndex(f.pid);
        auto key = std::make_tuple(p, f.name, f.id);
        auto it = m_liveObjects.find(key);
        if (ph == 'N') {
            if (it != m_liveObjects.end()) {
                m_objects[it->second].destroyed = ts;
                warn("object-recreated", offset, "N for a live object: the old one ends here",
                     Severity::Info);
            }
            m_liveObjects[key] = static_cast<std::uint32_t>(m_objects.size());
            m_objects.push_back(RawObject{p, f.name, intern(f.idText), ts, kNoTime, 0, {}});
        } else if (it == m_liveObjects.end()) {
            warn(ph == 'O' ? "object-snapshot-without-create" : "object-delete-without-create",
                 offset, std::string("'") + ph + "' for an object never created: skipped");
        } else if (ph == 'O') {
            ++m_objects[it->second].snapshots;
            m_objects[it->second].last = f.args;
        } else {
            m_objects[it->second].destroyed = ts;
            m_liveObjects.erase(it);
        }
        return;
    }
    case 'T':
    case 'p':
        warn("async-step-ignored", offset, "async step events are counted, not drawn",
             Severity::Info);
        return;
    case 'P':
        warn("sample-ignored", offset, "sample events are counted, not drawn", Severity::Info);
        return;
    case 'c':
        warn("clock-sync-ignored", offset, "clock sync events are counted only", Severity::Info);
        return;
    default:
        warn("context-ignored", offset, "context events are counted only", Severity::Info);
        return;
    }
}

void TraceStoreBuilder::handleMetadata(const EventFields& f, std::size_t offset) {
    const std::string_view name = m_store.m_strings.view(f.name);
    const bool proc = name.starts_with("process_");
    const bool thr = name.starts_with("thread_");
    if (!proc && !thr) return; // other metadata (e.g. num_cpus) carries nothing we draw
    if (f.args.empty()) {
        warn("metadata-without-args", offset, "M event without args: skipped");
        return;
    }
    od::document doc;
    od::object obj;
    std::string_view json = m_text.substr(f.args.offset, f.args.size);
    simdjson::padded_string copy(json); // small; keeps the tail-copy case simple
    if (m_argsParser.iterate(copy).get(doc) || doc.get_object().get(obj)) {
        warn("malformed-event", offset, "metadata args are not an object");
        return;
    }
    for (auto fr : obj) {
        od::field field;
        std::string_view key, sv;
        if (std::move(fr).get(field) || field.unescaped_key().get(key)) break;
        od::value v = field.value();
        if (key == "name" && (name == "process_name" || name == "thread_name")) {
            if (!idText(v, sv)) continue;
            if (proc)
                m_processes[processIndex(f.pid)].name = intern(sv);
            else
                m_threads[threadIndex(f.pid, f.tid)].name = intern(sv);
        } else if (key == "sort_index") {
            double d = 0;
            bool isNull = false;
            if (!numberValue(v, d, isNull) || isNull) continue;
            if (proc)
                m_processes[processIndex(f.pid)].sortIndex = static_cast<std::int64_t>(d);
            else
                m_threads[threadIndex(f.pid, f.tid)].sortIndex = static_cast<std::int64_t>(d);
        } else if (key == "labels" && proc) {
            if (!idText(v, sv)) continue;
            m_processes[processIndex(f.pid)].labels = intern(sv);
        }
    }
}

void TraceStoreBuilder::handleCounter(const EventFields& f, std::size_t offset) {
    if (f.args.empty()) {
        warn("counter-without-args", offset, "C event without args: skipped");
        return;
    }
    od::document doc;
    od::object obj;
    simdjson::padded_string copy(m_text.substr(f.args.offset, f.args.size));
    if (m_argsParser.iterate(copy).get(doc) || doc.get_object().get(obj)) {
        warn("malformed-event", offset, "counter args are not an object");
        return;
    }
    const std::uint32_t p = processIndex(f.pid);
    const std::int64_t ts = f.ts;
    std::string base(m_store.m_strings.view(f.name));
    if (f.hasId) {
        base += ' ';
        base += f.idText;
    }
    bool any = false;
    for (auto fr : obj) {
        od::field field;
        std::string_view key;
        if (std::move(fr).get(field) || field.unescaped_key().get(key)) break;
        double d = 0;
        bool isNull = false;
        if (!numberValue(field.value(), d, isNull) || isNull) continue;
        std::string seriesName = key.empty() ? base : base + " " + std::string(key);
        const StringId sid = intern(seriesName);
        auto [it, inserted] =
            m_counterIndex.try_emplace({p, sid}, static_cast<std::uint32_t>(m_counters.size()));
        if (inserted) {
            CounterSeries cs;
            cs.process = p;
            cs.name = sid;
            cs.key = intern(key);
            m_counters.push_back(std::move(cs));
        }
        m_counters[it->second].ts.push_back(ts);
        m_counters[it->second].values.push_back(d);
        any = true;
    }
    if (!any) warn("counter-without-values", offset, "C event without numeric args: skipped");
}

std::uint32_t TraceStoreBuilder::findEnclosing(const Track& t, std::int64_t ts) const {
    const auto& st = m_store.m_start;
    auto first = st.begin() + t.sliceBegin, last = st.begin() + t.sliceEnd;
    auto it = std::upper_bound(first, last, ts);
    if (it == first) return kNoIndex;
    auto s = static_cast<std::uint32_t>((it - st.begin()) - 1);
    while (s != kNoIndex && m_store.sliceEnd(s) < ts)
        s = m_store.m_parent[s];
    return s;
}

std::uint32_t TraceStoreBuilder::findNext(const Track& t, std::int64_t ts) const {
    const auto& st = m_store.m_start;
    auto first = st.begin() + t.sliceBegin, last = st.begin() + t.sliceEnd;
    auto it = std::lower_bound(first, last, ts);
    return it == last ? kNoIndex : static_cast<std::uint32_t>(it - st.begin());
}

TraceStore TraceStoreBuilder::finish() {
    TraceStore& st = m_store;
    // Close what is still open at the end of the trace.
    const std::int64_t traceEnd = st.m_end == kNoTime ? 0 : st.m_end;
    for (auto* open : {&m_openAsync, &m_openLegacyAsync}) {
        for (auto& [key, stack] : *open) {
            for (auto& a : stack) {
                a.end = std::max(traceEnd, a.start);
                m_async[std::get<0>(key)].push_back(a);
                warn("unterminated-async", kNoOff, "async begin without end: closed at trace end",
                     Severity::Info);
            }
        }
    }

    // Display order: processes by (sort_index, pid), threads by (sort_index, tid).
    const StringTable& strs = st.m_strings;
    std::vector<std::uint32_t> procOrder(m_processes.size());
    for (std::uint32_t i = 0; i < procOrder.size(); ++i)
        procOrder[i] = i;
    std::stable_sort(procOrder.begin(), procOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto &pa = m_processes[a], &pb = m_processes[b];
        if (pa.sortIndex != pb.sortIndex) return pa.sortIndex < pb.sortIndex;
        return idSortKey(strs.view(pa.pid)) < idSortKey(strs.view(pb.pid));
    });
    std::vector<std::uint32_t> procRank(m_processes.size());
    for (std::uint32_t i = 0; i < procOrder.size(); ++i) {
        procRank[procOrder[i]] = i;
        const auto& rp = m_processes[procOrder[i]];
        st.m_processes.push_back(Process{rp.pid, rp.name, rp.labels, rp.sortIndex});
    }
    std::vector<std::uint32_t> thrOrder(m_threads.size());
    for (std::uint32_t i = 0; i < thrOrder.size(); ++i)
        thrOrder[i] = i;
    std::stable_sort(thrOrder.begin(), thrOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto &ta = m_threads[a], &tb = m_threads[b];
        if (ta.process != tb.process) return procRank[ta.process] < procRank[tb.process];
        if (ta.sortIndex != tb.sortIndex) return ta.sortIndex < tb.sortIndex;
        return idSortKey(strs.view(ta.tid)) < idSortKey(strs.view(tb.tid));
    });
    std::vector<std::uint32_t> thrRank(m_threads.size());
    std::vector<std::uint32_t> threadTrack(m_threads.size());

    // Thread tracks: X slices plus matched B/E pairs, sorted, with depth and parent.
    std::vector<StringId> bindIds; // per final slice, for flow v2
    std::vector<std::uint8_t> bindFlags;
    std::vector<RawSlice> work;
    std::vector<std::uint32_t> stack;
    for (std::uint32_t r = 0; r < thrOrder.size(); ++r) {
        RawThread& rt = m_threads[thrOrder[r]];
        thrRank[thrOrder[r]] = r;
        st.m_threads.push_back(Thread{procRank[rt.process], rt.tid, rt.name, rt.sortIndex});
        work = std::move(rt.slices);
        // B/E: stable order by time, then matched with a stack.
        std::stable_sort(rt.be.begin(), rt.be.end(),
                         [](const RawBE& a, const RawBE& b) { return a.ts < b.ts; });
        std::vector<const RawBE*> open;
        for (const RawBE& e : rt.be) {
            if (e.begin) {
                open.push_back(&e);
                continue;
            }
            if (open.empty()) {
                m_record = e.order;
                warn("unmatched-end", e.offset, "E without a matching B: skipped");
                continue;
            }
            const RawBE* b = open.back();
            open.pop_back();
            work.push_back(RawSlice{b->ts, e.ts - b->ts, b->name, b->cat, b->args, b->order,
                                    b->bindId, b->flow});
        }
        for (const RawBE* b : open) {
            m_record = b->order;
            warn("unterminated-begin", b->offset, "B without E: closed at trace end",
                 Severity::Info);
            work.push_back(RawSlice{b->ts, std::max<std::int64_t>(0, traceEnd - b->ts), b->name,
                                    b->cat, b->args, b->order, b->bindId, b->flow});
        }
        rt.be = {};
        std::sort(work.begin(), work.end(), [](const RawSlice& a, const RawSlice& b) {
            if (a.start != b.start) return a.start < b.start;
            if (a.dur != b.dur) return a.dur > b.dur;
            return a.order < b.order;
        });
        Track track;
        track.kind = TrackKind::Thread;
        track.process = procRank[rt.process];
        track.thread = r;
        track.sliceBegin = static_cast<std::uint32_t>(st.m_start.size());
        stack.clear();
        std::uint64_t overlaps = 0;
        for (const RawSlice& s : work) {
            const auto idx = static_cast<std::uint32_t>(st.m_start.size());
            while (!stack.empty() && st.sliceEnd(stack.back()) <= s.start)
                stack.pop_back();
            const std::uint32_t parent = stack.empty() ? kNoIndex : stack.back();
            if (parent != kNoIndex && s.start + s.dur > st.sliceEnd(parent)) ++overlaps;
            const auto depth =
                static_cast<std::uint16_t>(std::min<std::size_t>(stack.size(), 0xffff));
            track.maxDepth = std::max(track.maxDepth, depth);
            st.m_start.push_back(s.start);
            st.m_dur.push_back(s.dur);
            st.m_name.push_back(s.name);
            st.m_cat.push_back(s.cat);
            st.m_depth.push_back(depth);
            st.m_parent.push_back(parent);
            st.m_track.push_back(static_cast<std::uint32_t>(st.m_tracks.size()));
            st.m_argsOffset.push_back(s.args.offset);
            st.m_argsSize.push_back(s.args.size);
            bindIds.push_back(s.bindId);
            bindFlags.push_back(s.flow);
            stack.push_back(idx);
        }
        if (overlaps)
            for (std::uint64_t k = 0; k < overlaps; ++k)
                warn("overlapping-slice", kNoOff,
                     "slice overlaps its neighbour on one thread: drawn one row deeper",
                     Severity::Info);
        track.sliceEnd = static_cast<std::uint32_t>(st.m_start.size());
        threadTrack[thrOrder[r]] = static_cast<std::uint32_t>(st.m_tracks.size());
        st.m_tracks.push_back(track);
        work = {};
    }

    // Async lanes per process, grouped by name; first free lane wins.
    for (std::uint32_t pr = 0; pr < procOrder.size(); ++pr) {
        auto& list = m_async[procOrder[pr]];
        std::stable_sort(list.begin(), list.end(), [](const RawAsync& a, const RawAsync& b) {
            if (a.name != b.name) return a.name < b.name;
            if (a.start != b.start) return a.start < b.start;
            return a.order < b.order;
        });
        std::size_t i = 0;
        while (i < list.size()) {
            std::size_t j = i;
            while (j < list.size() && list[j].name == list[i].name)
                ++j;
            std::vector<std::int64_t> laneEnd;
            std::vector<std::vector<const RawAsync*>> lanes;
            for (std::size_t k = i; k < j; ++k) {
                std::size_t lane = 0;
                while (lane < laneEnd.size() && laneEnd[lane] > list[k].start)
                    ++lane;
                if (lane == laneEnd.size()) {
                    laneEnd.push_back(0);
                    lanes.emplace_back();
                }
                laneEnd[lane] = list[k].end;
                lanes[lane].push_back(&list[k]);
            }
            for (auto& lane : lanes) {
                Track track;
                track.kind = TrackKind::Async;
                track.process = pr;
                track.name = list[i].name;
                track.sliceBegin = static_cast<std::uint32_t>(st.m_start.size());
                for (const RawAsync* a : lane) {
                    st.m_start.push_back(a->start);
                    st.m_dur.push_back(a->end - a->start);
                    st.m_name.push_back(a->name);
                    st.m_cat.push_back(a->cat);
                    st.m_depth.push_back(0);
                    st.m_parent.push_back(kNoIndex);
                    st.m_track.push_back(static_cast<std::uint32_t>(st.m_tracks.size()));
                    st.m_argsOffset.push_back(a->args.offset);
                    st.m_argsSize.push_back(a->args.size);
                    bindIds.push_back(0);
                    bindFlags.push_back(0);
                }
                track.sliceEnd = static_cast<std::uint32_t>(st.m_start.size());
                st.m_tracks.push_back(track);
            }
            i = j;
        }
        list = {};
    }

    // Flow v1: points of one (cat, name, id) in time order; s starts a chain, t continues it,
    // f ends it. Each point binds to a slice on its thread. A t or f outside a chain waits for
    // the next s of its id and binds to it: an arrow back in time (TF dataflow into an op that
    // starts before its producer ends). chromeCompatibleFlows drops it instead, as catapult does.
    auto phRank = [](char c) { return c == 's' ? 0 : (c == 't' ? 1 : 2); };
    std::sort(m_flowPoints.begin(), m_flowPoints.end(),
              [&](const FlowPoint& a, const FlowPoint& b) {
                  if (a.cat != b.cat) return a.cat < b.cat;
                  if (a.name != b.name) return a.name < b.name;
                  if (a.id != b.id) return a.id < b.id;
                  if (a.ts != b.ts) return a.ts < b.ts;
                  if (phRank(a.ph) != phRank(b.ph)) return phRank(a.ph) < phRank(b.ph);
                  return a.order < b.order;
              });
    std::uint32_t prev = kNoIndex;
    bool inChain = false;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> waiting; // (slice, order) before an s
    auto withoutStart = [&](std::uint32_t order) {
        m_record = order;
        warn("flow-without-start", kNoOff, "flow step or end without a start: skipped");
    };
    auto dropWaiting = [&] {
        for (const auto& w : waiting)
            withoutStart(w.second);
        waiting.clear();
    };
    for (std::size_t i = 0; i < m_flowPoints.size(); ++i) {
        const FlowPoint& p = m_flowPoints[i];
        if (i == 0 || p.cat != m_flowPoints[i - 1].cat || p.name != m_flowPoints[i - 1].name ||
            p.id != m_flowPoints[i - 1].id) {
            dropWaiting();
            inChain = false; // a new (cat, name, id)
        }
        const Track& tr = st.m_tracks[threadTrack[p.thread]];
        std::uint32_t slice = p.enclosing ? findEnclosing(tr, p.ts) : findNext(tr, p.ts);
        if (slice == kNoIndex && !p.enclosing) slice = findEnclosing(tr, p.ts);
        m_record = p.order;
        if (slice == kNoIndex) {
            warn("unbound-flow", kNoOff, "flow event with no slice to attach to: skipped");
            if (p.ph == 'f') inChain = false;
            continue;
        }
        if (p.ph == 's') {
            for (const auto& [to, order] : waiting) {
                st.m_flows.push_back(Flow{slice, to, p.name, p.cat});
                m_record = order;
                warn("backwards-flow", kNoOff,
                     "flow step or end before its start: bound to the start that follows it",
                     Severity::Info);
            }
            waiting.clear();
            prev = slice;
            inChain = true;
            continue;
        }
        if (!inChain) {
            if (m_options.chromeCompatibleFlows)
                withoutStart(p.order);
            else
                waiting.emplace_back(slice, p.order);
            continue;
        }
        st.m_flows.push_back(Flow{prev, slice, p.name, p.cat});
        prev = slice;
        if (p.ph == 'f') inChain = false;
    }
    dropWaiting();
    m_flowPoints = {};
    // Flow v2: slices carrying bind_id with flow_out start an arrow; flow_in ends it.
    {
        std::vector<std::uint32_t> bound;
        for (std::uint32_t i = 0; i < bindIds.size(); ++i)
            if (bindIds[i] != 0 && bindFlags[i] != 0) bound.push_back(i);
        std::stable_sort(bound.begin(), bound.end(), [&](std::uint32_t a, std::uint32_t b) {
            return st.m_start[a] < st.m_start[b];
        });
        std::unordered_map<StringId, std::uint32_t> lastOut;
        for (std::uint32_t s : bound) {
            if (bindFlags[s] & kFlowIn) {
                auto it = lastOut.find(bindIds[s]);
                if (it != lastOut.end())
                    st.m_flows.push_back(Flow{it->second, s, st.m_name[it->second], 0});
                else
                    warn("flow-without-start", kNoOff, "flow_in with no earlier flow_out");
            }
            if (bindFlags[s] & kFlowOut) lastOut[bindIds[s]] = s;
        }
    }

    for (auto& ri : m_instants) {
        ri.in.process = procRank[ri.rawProcess];
        ri.in.thread = ri.rawThread == kNoIndex ? kNoIndex : thrRank[ri.rawThread];
        st.m_instants.push_back(ri.in);
    }
    std::stable_sort(st.m_instants.begin(), st.m_instants.end(),
                     [](const Instant& a, const Instant& b) { return a.ts < b.ts; });
    m_instants = {};
    for (auto& cs : m_counters) {
        cs.process = procRank[cs.process];
        std::vector<std::uint32_t> idx(cs.ts.size());
        for (std::uint32_t i = 0; i < idx.size(); ++i)
            idx[i] = i;
        std::stable_sort(idx.begin(), idx.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return cs.ts[a] < cs.ts[b]; });
        CounterSeries sorted;
        sorted.process = cs.process;
        sorted.name = cs.name;
        sorted.key = cs.key;
        for (auto i : idx) {
            sorted.ts.push_back(cs.ts[i]);
            sorted.values.push_back(cs.values[i]);
        }
        st.m_counters.push_back(std::move(sorted));
    }
    for (const auto& o : m_objects)
        st.m_objects.push_back(ObjectLifetime{procRank[o.process], o.name, o.id, o.created,
                                              o.destroyed, o.snapshots, o.last});

    // Phase counts as written.
    for (int c = 0; c < 256; ++c)
        if (m_phaseCounts[c])
            m_report.phases[std::string(1, static_cast<char>(c))] = m_phaseCounts[c];
    for (auto& [k, v] : m_otherPhases)
        m_report.phases[k] += v;
    st.m_report = std::move(m_report);
    return std::move(m_store);
}

// ---------------------------------------------------------------------------------------------

Result<TraceStore> importChromeTraceParsed(Result<TraceBytes> bytes, const ImportOptions& options,
                                           const std::string& name) {
    if (!bytes) return bytes.status();
    TraceStoreBuilder builder(std::move(bytes.value()), name, options);
    XT_RETURN_IF_ERROR(builder.parse(options.progress));
    builder.releaseParsers();
    return builder.finish();
}

} // namespace xt::timeline
