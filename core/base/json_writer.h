#pragma once
// A small streaming JSON writer for machine-readable CLI output. Keys and values are appended in
// order; commas and escaping are handled here. Doubles that are not finite are written as null.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xt {

class JsonWriter {
public:
    explicit JsonWriter(bool pretty = false) : m_pretty(pretty) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view k);

    JsonWriter& value(std::string_view v);
    JsonWriter& value(const char* v) { return value(std::string_view(v)); }
    JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
    JsonWriter& value(std::int64_t v);
    JsonWriter& value(std::uint64_t v);
    JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
    JsonWriter& value(double v);
    JsonWriter& value(bool v);
    JsonWriter& null();

    template <class T> JsonWriter& field(std::string_view k, const T& v) { return key(k).value(v); }

    const std::string& str() const { return m_out; }
    std::string take() { return std::move(m_out); }

    static void appendEscaped(std::string& out, std::string_view s);

private:
    void beforeValue();
    JsonWriter& close(char bracket);
    void newline();

    bool m_pretty;
    std::string m_out;
    std::vector<bool> m_first; // per open container: no element written yet
    bool m_afterKey = false;
};

} // namespace xt
