#include "core/timeline/chrome_json_tokenizer.h"

#include "core/base/diagnostic_codes.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <cstring>

namespace xt::timeline {

namespace json {

namespace {
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
} // namespace

std::size_t skipWs(std::string_view s, std::size_t i) {
    while (i < s.size() && isWs(s[i]))
        ++i;
    return i;
}

std::string_view trimRight(std::string_view v) {
    while (!v.empty() && isWs(v.back()))
        v.remove_suffix(1);
    return v;
}

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

bool nestsDeeper(std::string_view json, std::uint32_t outer, std::uint32_t maxDepth) {
    std::uint32_t depth = outer;
    const char* p = json.data();
    const std::size_t n = json.size();
    for (std::size_t i = nextStructural(p, 0, n); i < n; i = nextStructural(p, i + 1, n)) {
        const char c = p[i];
        if (c == '"') {
            i = stringEnd(json, i);
            if (i == kNpos) return false;
        } else if (c == '{' || c == '[') {
            if (++depth > maxDepth) return true;
        } else if (depth > outer) {
            --depth;
        }
    }
    return false;
}

} // namespace json

using namespace json;

Status ChromeJsonTokenizer::walk(std::size_t pos, TopLevel& top, const std::string& file) {
    if (m_text[pos] == '[') {
        std::size_t endPos = 0;
        return walkArray(pos + 1, endPos);
    }
    if (m_text[pos] == '{') {
        top.objectForm = true;
        return walkObject(pos, top);
    }
    return Status(ErrorCode::Corrupt,
                  file + ": not a Chrome trace (expected '[' or '{' at the start)");
}

// Walks the top-level keys; only traceEvents, displayTimeUnit and distributedInfo matter.
Status ChromeJsonTokenizer::walkObject(std::size_t pos, TopLevel& top) {
    const std::string_view s = m_text;
    auto warn = [&](const DiagnosticCode& code, std::size_t at, const char* message) {
        m_handler.warn(code, at, message);
    };
    std::size_t i = pos + 1;
    bool sawEvents = false;
    for (;;) {
        i = skipWs(s, i);
        while (i < s.size() && s[i] == ',')
            i = skipWs(s, i + 1);
        if (i >= s.size()) {
            warn(codes::kMissingClosingBrace, i, "top-level object is not closed");
            break;
        }
        if (s[i] == '}') break;
        if (s[i] != '"') {
            warn(codes::kMalformedTopLevel, i, "expected a key in the top-level object");
            break;
        }
        std::size_t ke = stringEnd(s, i);
        if (ke == kNpos) {
            warn(codes::kTruncatedTopLevel, i, "text ends inside a top-level key");
            break;
        }
        std::string_view key = s.substr(i + 1, ke - i - 1);
        i = skipWs(s, ke + 1);
        if (i >= s.size() || s[i] != ':') {
            warn(codes::kMalformedTopLevel, i, "expected ':' after a top-level key");
            break;
        }
        i = skipWs(s, i + 1);
        if (i >= s.size()) {
            warn(codes::kTruncatedTopLevel, i, "text ends before a top-level value");
            break;
        }
        if (key == "traceEvents" && s[i] == '[') {
            sawEvents = true;
            std::size_t endPos = 0;
            XT_RETURN_IF_ERROR(walkArray(i + 1, endPos));
            if (endPos >= s.size()) break;
            i = endPos;
            continue;
        }
        std::size_t ve = valueEnd(s, i);
        if (ve == kNpos) {
            warn(codes::kTruncatedTopLevel, i, "text ends inside the value of a top-level key");
            break;
        }
        if (key == "displayTimeUnit" && s[i] == '"')
            top.displayTimeUnit = std::string(s.substr(i + 1, ve - i - 2));
        if (key == "distributedInfo" && s[i] == '{')
            top.distributedInfo = std::string(s.substr(i, ve - i));
        i = ve;
    }
    if (!sawEvents) warn(codes::kNoTraceEvents, pos, "object form without a traceEvents array");
    return Status::ok();
}

Status ChromeJsonTokenizer::walkArray(std::size_t pos, std::size_t& endPos) {
    const std::string_view s = m_text;
    m_handler.arrayBegin(pos);
    bool lastWasComma = false;
    for (;;) {
        pos = skipWs(s, pos);
        if (pos >= s.size()) {
            m_handler.warn(codes::kMissingClosingBracket, pos, "event array is not closed");
            break;
        }
        const char c = s[pos];
        if (c == ']') {
            if (lastWasComma) m_handler.warn(codes::kTrailingComma, pos, "comma before ']'");
            ++pos;
            break;
        }
        if (c == ',') {
            if (lastWasComma) m_handler.warn(codes::kEmptyArrayElement, pos, "two commas in a row");
            lastWasComma = true;
            ++pos;
            continue;
        }
        lastWasComma = false;
        std::size_t e = valueEnd(s, pos);
        if (e == kNpos) {
            m_handler.warn(codes::kTruncatedEvent, pos, "the text ends inside an event");
            pos = s.size();
            break;
        }
        if (e == pos) e = pos + 1; // a stray byte ('}', ':'): step over it
        if (!m_handler.element(pos, e)) return Status(ErrorCode::Cancelled, "import cancelled");
        pos = e;
    }
    m_handler.arrayEnd();
    endPos = pos;
    return Status::ok();
}

} // namespace xt::timeline
