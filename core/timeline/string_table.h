#pragma once
// Interned strings: each distinct string gets a dense 32-bit id; id 0 is the empty string.
// Views returned by view() stay valid for the table's lifetime (moves included).

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace xt::timeline {

using StringId = std::uint32_t;

class StringTable {
public:
    StringTable();
    StringTable(StringTable&&) noexcept = default;
    StringTable& operator=(StringTable&&) noexcept = default;
    StringTable(const StringTable&) = delete;
    StringTable& operator=(const StringTable&) = delete;

    StringId intern(std::string_view s);
    // The id of `s` when it was interned, else kNotFound.
    StringId find(std::string_view s) const;
    std::string_view view(StringId id) const { return m_strings[id]; }
    std::size_t size() const { return m_strings.size(); }

    static constexpr StringId kEmpty = 0;
    static constexpr StringId kNotFound = 0xffffffffu;

private:
    std::deque<std::string> m_strings; // deque: element addresses are stable
    std::unordered_map<std::string_view, StringId> m_ids;
};

} // namespace xt::timeline
