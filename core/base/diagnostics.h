#pragma once
// Located diagnostics for bad input: what went wrong, in which file, at which byte offset and
// record number. A Diagnostics list counts every problem by code but stores only the first few
// of each code, so a file full of garbage cannot exhaust memory through its own error list.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace xt {

enum class Severity { Info, Warning, Error };
const char* severityName(Severity s);

struct DiagnosticCode; // core/base/diagnostic_codes.h

struct Diagnostic {
    static constexpr std::uint64_t kNoOffset = std::numeric_limits<std::uint64_t>::max();

    Severity severity = Severity::Warning;
    std::string code; // stable kebab-case reason, e.g. "truncated-record"
    std::string file;
    std::uint64_t offset = kNoOffset; // byte offset in `file`
    std::int64_t record = -1;         // 0-based record number in `file`, -1 when not applicable
    std::string message;

    // "file:offset: record N: warning: message [code]"
    std::string toString() const;
};

class Diagnostics {
public:
    explicit Diagnostics(std::size_t maxStoredPerCode = 50) : m_maxPerCode(maxStoredPerCode) {}

    void add(Diagnostic d);
    // A declared code (codes::k...) with its declared severity.
    void add(const DiagnosticCode& code, std::string file, std::uint64_t offset,
             std::int64_t record, std::string message);
    // A code by name; it must be declared in diagnostic_codes.h all the same.
    void add(Severity s, std::string code, std::string file, std::uint64_t offset,
             std::int64_t record, std::string message);
    void merge(const Diagnostics& other);
    void clear();

    const std::vector<Diagnostic>& items() const { return m_items; }
    const std::map<std::string, std::uint64_t>& countsByCode() const { return m_counts; }
    std::uint64_t total() const { return m_total; }
    std::uint64_t errorCount() const { return m_errors; }
    bool empty() const { return m_total == 0; }

private:
    std::size_t m_maxPerCode;
    std::vector<Diagnostic> m_items;
    std::map<std::string, std::uint64_t> m_counts;
    std::map<std::string, std::size_t> m_stored;
    std::uint64_t m_total = 0;
    std::uint64_t m_errors = 0;
};

} // namespace xt
