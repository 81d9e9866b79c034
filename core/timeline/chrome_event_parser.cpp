#include "core/timeline/chrome_event_parser.h"
#include "core/timeline/chrome_json_tokenizer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace xt::timeline {

namespace od = simdjson::ondemand;
using json::trimRight;

namespace {

// TraceStoreBuilder::microsInRange for the doubles of JSON (exact: 4.6e15 < 2^53).
bool timeInRange(double us) {
    return std::isfinite(us) && std::fabs(us) < double(TraceStoreBuilder::kMaxAbsMicros);
}

bool parseNumberText(std::string_view t, double& out) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), out);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Equality with a literal: the constant length lets the compiler inline the comparison.
template <std::size_t N> inline bool eq(std::string_view k, const char (&lit)[N]) {
    return k.size() == N - 1 && std::memcmp(k.data(), lit, N - 1) == 0;
}

// A key without copying when it has no escapes (nearly always): the raw bytes up to the quote.
bool keyView(od::field& field, std::string_view& out) {
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
bool stringView(od::value& v, std::string_view& out) {
    std::string_view tok = trimRight(v.raw_json_token());
    if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"' &&
        tok.find('\\') == std::string_view::npos) {
        out = tok.substr(1, tok.size() - 2);
        return true;
    }
    return !v.get_string().get(out);
}

// Text of a scalar id-like value: strings unescaped, numbers as written (so ids beyond 2^64
// survive), objects as JSON.
bool idText(od::value v, std::string_view& out) {
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
bool timeValue(od::value v, std::int64_t& ns, bool& isNull, bool& inRange) {
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

} // namespace

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
        ns = static_cast<std::int64_t>(std::llround(d * 1000.0));
        return true;
    }
    ns = ip * 1000 + frac;
    if (neg) ns = -ns;
    return true;
}

ChromeEventParser::ChromeEventParser(TraceStoreBuilder& builder, std::string_view text,
                                     std::size_t capacity, std::uint32_t maxJsonDepth)
    : m_builder(builder), m_text(text), m_capacity(capacity), m_maxJsonDepth(maxJsonDepth) {
    // Events sit at depth 2 (inside the array, or inside the object's traceEvents).
    // An allocation failure here shows up again, and is handled, at the first iterate().
    [[maybe_unused]] const auto err =
        m_parser.allocate(simdjson::SIMDJSON_PADDING, maxJsonDepth + 2u);
}

void ChromeEventParser::release() {
    m_parser = od::parser{};
    m_argsParser = od::parser{};
}

StringId ChromeEventParser::internCached(std::string_view s, TextCache& c) {
    if (c.valid && c.text == s) return c.id;
    c.text.assign(s);
    c.id = m_builder.intern(s);
    c.valid = true;
    return c.id;
}

simdjson::padded_string_view ChromeEventParser::paddedView(std::size_t begin, std::size_t end) {
    const std::size_t len = end - begin;
    if (m_capacity - begin >= len + simdjson::SIMDJSON_PADDING)
        return simdjson::padded_string_view(m_text.data() + begin, len, m_capacity - begin);
    m_tail = simdjson::padded_string(m_text.data() + begin, len);
    readingCopy(m_tail.data(), len, std::ptrdiff_t(begin));
    return simdjson::padded_string_view(m_tail.data(), len, len + simdjson::SIMDJSON_PADDING);
}

bool ChromeEventParser::parse(std::size_t begin, std::size_t end, ChromeEvent& e) {
    od::document doc;
    od::object obj;
    auto view = paddedView(begin, end);
    return !m_parser.iterate(view).get(doc) && !doc.get_object().get(obj) && read(obj, e);
}

bool ChromeEventParser::tooDeep(std::size_t begin, std::size_t end) const {
    return end > begin && json::nestsDeeper(m_text.substr(begin, end - begin), 0, m_maxJsonDepth);
}

bool ChromeEventParser::readArgsField(od::value v, ChromeEvent& e) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t != od::json_type::object) return true; // args that are not an object are ignored
    od::object a;
    std::string_view sv;
    if (v.get_object().get(a) || a.raw_json().get(sv)) return false;
    e.args.offset = offsetOf(sv.data()); // the view is into the text or a copy of part of it
    e.args.size = static_cast<std::uint32_t>(trimRight(sv).size());
    // Only args are kept and decoded later: bound their nesting (a shallow object cannot be
    // deep, so short args skip the scan).
    return !(e.args.size > 2 * m_maxJsonDepth && json::nestsDeeper(sv, 1, m_maxJsonDepth));
}

bool ChromeEventParser::read(od::object& obj, ChromeEvent& f) {
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
            } else if (eq(key, "pid")) {
                if (!idText(v, sv)) return false;
                f.pid = internCached(sv, m_pidCache);
            }
            break;
        case 'n':
            if (eq(key, "name")) {
                if (!idText(v, sv)) return false;
                f.name = m_builder.intern(sv);
            }
            break;
        case 'c':
            if (eq(key, "cat")) {
                if (!idText(v, sv)) return false;
                f.cat = internCached(sv, m_catCache);
            }
            break;
        case 't':
            if (eq(key, "tid")) {
                if (!idText(v, sv)) return false;
                f.tid = internCached(sv, m_tidCache);
            } else if (eq(key, "ts")) {
                bool isNull = false;
                if (!timeValue(v, f.ts, isNull, f.tsInRange)) return false;
                f.hasTs = !isNull;
                f.tsNull = isNull;
            }
            break;
        case 'd':
            if (eq(key, "dur")) {
                bool isNull = false;
                if (!timeValue(v, f.dur, isNull, f.durInRange)) return false;
                f.hasDur = !isNull;
            }
            break;
        case 'i':
            if (eq(key, "id") || (eq(key, "id2") && !f.hasId)) {
                if (!idText(v, sv)) return false;
                f.idText = sv;
                f.id = m_builder.idKey(sv);
                f.hasId = true;
            }
            break;
        case 'b':
            if (eq(key, "bp")) {
                if (v.get_string().get(sv)) return false;
                f.bp = sv.empty() ? 0 : sv[0];
            } else if (eq(key, "bind_id")) {
                if (!idText(v, sv)) return false;
                f.bindId = m_builder.intern(sv);
                f.hasBindId = true;
            }
            break;
        case 's':
            if (eq(key, "s")) {
                if (v.get_string().get(sv)) return false;
                f.scope = sv.empty() ? 0 : sv[0];
            }
            break;
        case 'f':
            if (eq(key, "flow_in") || eq(key, "flow_out")) {
                bool b = false;
                if (v.get_bool().get(b)) return false;
                (eq(key, "flow_in") ? f.flowIn : f.flowOut) = b;
            }
            break;
        case 'a':
            if (eq(key, "args") && !readArgsField(v, f)) return false;
            break;
        default:
            break;
        }
        // Unknown or unused keys: the iterator skips their values.
    }
    return true;
}

bool ChromeEventParser::readArgs(ArgsRef args, std::vector<ArgField>& out,
                                 std::initializer_list<std::string_view> keys) {
    out.clear();
    od::document doc;
    od::object obj;
    m_argsCopy = simdjson::padded_string(m_text.substr(args.offset, args.size));
    if (m_argsParser.iterate(m_argsCopy).get(doc) || doc.get_object().get(obj)) return false;
    for (auto fr : obj) {
        od::field field;
        ArgField a;
        if (std::move(fr).get(field) || field.unescaped_key().get(a.key)) break;
        if (keys.size() && std::find(keys.begin(), keys.end(), a.key) == keys.end()) continue;
        od::value v = field.value();
        od::json_type t;
        if (!v.type().get(t)) {
            if (t == od::json_type::number) {
                a.hasText = true;
                a.text = trimRight(v.raw_json_token());
                a.hasNumber = !v.get_double().get(a.number);
            } else if (t == od::json_type::string) {
                a.hasText = stringView(v, a.text);
                a.hasNumber = a.hasText && parseNumberText(a.text, a.number);
            } else if (t != od::json_type::null) {
                a.hasText = idText(v, a.text);
            }
        }
        out.push_back(a);
    }
    return true;
}

} // namespace xt::timeline
