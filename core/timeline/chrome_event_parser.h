#pragma once
// Reads the fields of one Chrome trace event with simdjson On-Demand into a ChromeEvent:
// strings interned in the order they are written, ids as TraceStoreBuilder::idKey, times as
// nanoseconds (exact for decimal microseconds), args kept as a byte range of the text. Also
// reads the args objects of metadata and counter events. Internal to the Chrome reader; built
// with the reader's SIMD flags.

#include "core/timeline/trace_store_builder.h"

#include <simdjson.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace xt::timeline {

struct ChromeEvent {
    std::string_view ph;
    bool hasPh = false;
    StringId name = 0, cat = 0, pid = 0, tid = 0, bindId = 0;
    std::uint64_t id = 0;    // idKey() of the id text
    std::string_view idText; // valid until the next event is read
    bool hasId = false, hasBindId = false;
    std::int64_t ts = 0, dur = 0; // ns
    bool hasTs = false, tsNull = false, tsInRange = true, hasDur = false, durInRange = true;
    char bp = 0, scope = 0;
    bool flowIn = false, flowOut = false;
    ArgsRef args;
};

// One field of an args object: its value as text (strings unescaped, numbers and booleans as
// written, objects as JSON) and as a number (numbers, numeric strings).
struct ArgField {
    std::string_view key;
    bool hasText = false, hasNumber = false;
    std::string_view text;
    double number = 0;
};

// Microseconds written as decimal text -> nanoseconds, exactly (a double loses the last digits
// of epoch-based times); exponents through double. False when not a time within +-4.6e15 us.
bool microsTextToNs(std::string_view text, std::int64_t& ns);

class ChromeEventParser {
public:
    // `text` must stay readable TraceBytes::kPadding bytes past its end (capacity: from 0).
    ChromeEventParser(TraceStoreBuilder& builder, std::string_view text, std::size_t capacity,
                      std::uint32_t maxJsonDepth);

    // The document parser, for a one-pass read of the whole text or of a copy of part of it.
    simdjson::ondemand::parser& documentParser() { return m_parser; }
    // The copy of part of the text that documents are read from next: its byte j is text byte
    // j + delta (documents read in place need none).
    void readingCopy(const char* data, std::size_t size, std::ptrdiff_t delta) {
        m_copy = {data, size, delta};
    }
    // The text offset of a byte of the text or of the current copy.
    std::size_t offsetOf(const char* p) const {
        return p >= m_text.data() && p < m_text.data() + m_text.size()
                   ? std::size_t(p - m_text.data())
                   : std::size_t(p - m_copy.data + m_copy.delta);
    }
    // The fields of an event object; false when they cannot be read (malformed, or args nested
    // past maxJsonDepth).
    bool read(simdjson::ondemand::object& obj, ChromeEvent& e);
    // The same for the event at [begin, end) parsed on its own.
    bool parse(std::size_t begin, std::size_t end, ChromeEvent& e);
    // Whether [begin, end) nests past maxJsonDepth: why an event could not be read.
    bool tooDeep(std::size_t begin, std::size_t end) const;
    // The fields of an args object, in order (only those named in `keys` when it is not
    // empty); false when it is not an object. Views are valid until the next call.
    bool readArgs(ArgsRef args, std::vector<ArgField>& out,
                  std::initializer_list<std::string_view> keys = {});
    // Frees the parsers' buffers (~4 bytes per JSON token).
    void release();

private:
    struct TextCache {
        std::string text;
        StringId id = 0;
        bool valid = false;
    };
    StringId internCached(std::string_view s, TextCache& c);
    bool readArgsField(simdjson::ondemand::value v, ChromeEvent& e);
    simdjson::padded_string_view paddedView(std::size_t begin, std::size_t end);

    struct Copy {
        const char* data = nullptr;
        std::size_t size = 0;
        std::ptrdiff_t delta = 0;
    };

    TraceStoreBuilder& m_builder;
    std::string_view m_text;
    Copy m_copy;
    std::size_t m_capacity;
    std::uint32_t m_maxJsonDepth;
    simdjson::ondemand::parser m_parser, m_argsParser;
    simdjson::padded_string m_tail; // an event too close to the end to be parsed in place
    simdjson::padded_string m_argsCopy;
    TextCache m_pidCache, m_tidCache, m_catCache; // repeat from one event to the next
};

} // namespace xt::timeline
