#pragma once
// Structural scanning of Chrome JSON text without a parser: value boundaries, nesting depth and
// the walk over the top level (a bare event array, or an object whose traceEvents holds it),
// tolerant of what real traces contain: trailing commas, a missing closing bracket, garbage
// between events. Used where the one-pass parse of the whole document gives up.

#include "core/base/diagnostic_codes.h"
#include "core/base/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace xt::timeline {

namespace json {
constexpr std::size_t kNpos = std::string_view::npos;

inline bool isWs(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
std::size_t skipWs(std::string_view s, std::size_t i);
std::string_view trimRight(std::string_view v);
// `i` is at an opening quote; returns the index of the closing quote or kNpos.
std::size_t stringEnd(std::string_view s, std::size_t i);
// `i` is at the first byte of a value; returns one past its end, or kNpos when the text ends
// first.
std::size_t valueEnd(std::string_view s, std::size_t i);
// Whether `json`, found `outer` levels deep, nests arrays and objects deeper than `maxDepth`
// (quoted text does not count).
bool nestsDeeper(std::string_view json, std::uint32_t outer, std::uint32_t maxDepth);
} // namespace json

class ChromeJsonTokenizer {
public:
    // What the walk finds, event array by event array. element() gets each array element's byte
    // range [begin, end), its first byte at `begin` (a stray byte is a range of one); false cancels
    // the walk.
    class Handler {
    public:
        virtual ~Handler() = default;
        virtual void arrayBegin(std::size_t pos) = 0;
        virtual bool element(std::size_t begin, std::size_t end) = 0;
        virtual void arrayEnd() = 0;
        virtual void warn(const DiagnosticCode& code, std::uint64_t offset,
                          std::string message) = 0;
    };
    struct TopLevel {
        bool objectForm = false;
        std::string displayTimeUnit; // as written
        std::string distributedInfo; // the object's JSON text
    };

    ChromeJsonTokenizer(std::string_view text, Handler& handler)
        : m_text(text), m_handler(handler) {}
    // Walks the document whose first byte (after whitespace and a byte-order mark) is at `pos`:
    // Corrupt when it is neither an array nor an object, Cancelled when element() says so.
    Status walk(std::size_t pos, TopLevel& top, const std::string& file);

private:
    Status walkObject(std::size_t pos, TopLevel& top);
    Status walkArray(std::size_t pos, std::size_t& endPos);

    std::string_view m_text;
    Handler& m_handler;
};

} // namespace xt::timeline
