#include "core/timeline/trace_store.h"

#include <simdjson.h>

namespace xt::timeline {

namespace od = simdjson::ondemand;

std::vector<std::pair<std::string, std::string>> decodeJsonObject(std::string_view json) {
    std::vector<std::pair<std::string, std::string>> out;
    if (json.empty()) return out;
    simdjson::padded_string copy(json);
    od::parser parser;
    od::document doc;
    od::object obj;
    if (parser.iterate(copy).get(doc) || doc.get_object().get(obj)) return out;
    for (auto fr : obj) {
        od::field field;
        std::string_view key;
        if (std::move(fr).get(field) || field.unescaped_key().get(key)) break;
        od::value v = field.value();
        od::json_type t;
        if (v.type().get(t)) break;
        std::string value;
        std::string_view sv;
        if (t == od::json_type::string) {
            if (v.get_string().get(sv)) break;
            value = sv;
        } else if (t == od::json_type::object) {
            od::object o;
            if (v.get_object().get(o) || o.raw_json().get(sv)) break;
            value = sv;
        } else if (t == od::json_type::array) {
            od::array arr;
            if (v.get_array().get(arr) || arr.raw_json().get(sv)) break;
            value = sv;
        } else {
            sv = v.raw_json_token();
            while (!sv.empty() && (sv.back() == ' ' || sv.back() == '\n' || sv.back() == '\r' ||
                                   sv.back() == '\t'))
                sv.remove_suffix(1);
            value = sv;
        }
        out.emplace_back(std::string(key), std::move(value));
    }
    return out;
}

std::string TraceStore::processLabel(std::uint32_t process) const {
    const Process& p = m_processes[process];
    if (p.name != 0) return std::string(str(p.name));
    return "pid " + std::string(str(p.pid));
}

std::string TraceStore::threadLabel(std::uint32_t thread) const {
    const Thread& t = m_threads[thread];
    if (t.name != 0) return std::string(str(t.name));
    return "tid " + std::string(str(t.tid));
}

std::size_t TraceStore::residentBytes() const {
    std::size_t n =
        sliceCount() * (2 * sizeof(std::int64_t) + 2 * sizeof(StringId) + sizeof(std::uint16_t) +
                        2 * sizeof(std::uint32_t) + sizeof(std::uint64_t) + sizeof(std::uint32_t));
    n += m_processes.size() * sizeof(Process) + m_threads.size() * sizeof(Thread) +
         m_tracks.size() * sizeof(Track) + m_flows.size() * sizeof(Flow) +
         m_instants.size() * sizeof(Instant) + m_objects.size() * sizeof(ObjectLifetime);
    for (const auto& c : m_counters)
        n += c.ts.size() * 16 + sizeof(CounterSeries);
    for (std::size_t i = 0; i < m_strings.size(); ++i)
        n += m_strings.view(i).size() + 48;
    return n;
}

} // namespace xt::timeline
