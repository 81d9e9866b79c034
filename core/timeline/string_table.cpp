#include "core/timeline/string_table.h"

namespace xt::timeline {

StringTable::StringTable() {
    m_strings.emplace_back();
    m_ids.emplace(std::string_view(m_strings.back()), kEmpty);
}

StringId StringTable::intern(std::string_view s) {
    auto it = m_ids.find(s);
    if (it != m_ids.end()) return it->second;
    const auto id = static_cast<StringId>(m_strings.size());
    m_strings.emplace_back(s);
    m_ids.emplace(std::string_view(m_strings.back()), id);
    return id;
}

StringId StringTable::find(std::string_view s) const {
    auto it = m_ids.find(s);
    return it == m_ids.end() ? kNotFound : it->second;
}

} // namespace xt::timeline
