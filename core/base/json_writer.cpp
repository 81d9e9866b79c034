#include "core/base/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace xt {

void JsonWriter::newline() {
    if (!m_pretty) return;
    m_out += '\n';
    m_out.append(m_first.size() * 2, ' ');
}

void JsonWriter::beforeValue() {
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_first.empty()) {
        if (!m_first.back()) m_out += ',';
        m_first.back() = false;
        newline();
    }
}

JsonWriter& JsonWriter::beginObject() {
    beforeValue();
    m_out += '{';
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
    bool empty = m_first.back();
    m_first.pop_back();
    if (!empty) newline();
    m_out += bracket;
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    return close('}');
}

JsonWriter& JsonWriter::beginArray() {
    beforeValue();
    m_out += '[';
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    return close(']');
}

JsonWriter& JsonWriter::key(std::string_view k) {
    beforeValue();
    appendEscaped(m_out, k);
    m_out += m_pretty ? ": " : ":";
    m_afterKey = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
    beforeValue();
    appendEscaped(m_out, v);
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
    beforeValue();
    m_out += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
    beforeValue();
    m_out += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    beforeValue();
    if (!std::isfinite(v)) {
        m_out += "null";
        return *this;
    }
    char buf[32];
    // Shortest representation that round-trips.
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    m_out.append(buf, res.ptr);
    return *this;
}

JsonWriter& JsonWriter::value(bool v) {
    beforeValue();
    m_out += v ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    beforeValue();
    m_out += "null";
    return *this;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
static size_t utf8SequenceLength(std::string_view s, size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
    return n;
}

void JsonWriter::appendEscaped(std::string& out, std::string_view s) {
    out += '"';
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else if (size_t n = utf8SequenceLength(s, i); n > 0) {
                out.append(s.substr(i, n));
                i += n;
                continue;
            } else {
                out += "\\ufffd"; // a byte that is not UTF-8: keep the output valid JSON
            }
        }
        ++i;
    }
    out += '"';
}

} // namespace xt
