#include "core/base/diagnostics.h"

#include "core/base/diagnostic_codes.h"

#include <algorithm>

namespace xt {

const char* severityName(Severity s) {
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "?";
}

std::string Diagnostic::toString() const {
    std::string s = file;
    if (offset != kNoOffset) s += (s.empty() ? "offset " : ":") + std::to_string(offset);
    if (!s.empty()) s += ": ";
    if (record >= 0) s += "record " + std::to_string(record) + ": ";
    s += severityName(severity);
    s += ": " + message + " [" + code + "]";
    return s;
}

void Diagnostics::add(Diagnostic d) {
    ++m_total;
    ++m_counts[d.code];
    if (d.severity == Severity::Error) ++m_errors;
    std::size_t& stored = m_stored[d.code];
    if (stored < m_maxPerCode) {
        ++stored;
        m_items.push_back(std::move(d));
    }
}

void Diagnostics::add(Severity s, std::string code, std::string file, std::uint64_t offset,
                      std::int64_t record, std::string message) {
    add(Diagnostic{s, std::move(code), std::move(file), offset, record, std::move(message)});
}

void Diagnostics::add(const DiagnosticCode& code, std::string file, std::uint64_t offset,
                      std::int64_t record, std::string message) {
    add(Diagnostic{code.severity, code.name, std::move(file), offset, record, std::move(message)});
}

std::span<const DiagnosticCode> allDiagnosticCodes() {
#define XT_LIST_DIAGNOSTIC_CODE(id, name, severity, description) codes::id,
    static constexpr DiagnosticCode kAll[] = {XT_DIAGNOSTIC_CODES(XT_LIST_DIAGNOSTIC_CODE)};
#undef XT_LIST_DIAGNOSTIC_CODE
    return kAll;
}

const DiagnosticCode* findDiagnosticCode(std::string_view name) {
    const auto all = allDiagnosticCodes();
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const DiagnosticCode& c) { return name == c.name; });
    return it == all.end() ? nullptr : &*it;
}

void Diagnostics::merge(const Diagnostics& other) {
    for (const auto& d : other.m_items) {
        std::size_t& stored = m_stored[d.code];
        if (stored < m_maxPerCode) {
            ++stored;
            m_items.push_back(d);
        }
    }
    for (const auto& [code, n] : other.m_counts)
        m_counts[code] += n;
    m_total += other.m_total;
    m_errors += other.m_errors;
}

void Diagnostics::clear() {
    m_items.clear();
    m_counts.clear();
    m_stored.clear();
    m_total = m_errors = 0;
}

} // namespace xt
