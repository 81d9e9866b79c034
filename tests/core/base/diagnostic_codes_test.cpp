// The diagnostic code registry: well-formed, listed in docs/DIAGNOSTICS.md exactly, and the only
// place a code is spelled. The source scan reads the tree at XT_SOURCE_DIR.
#include "core/base/diagnostic_codes.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>

using namespace xt;
namespace fs = std::filesystem;

namespace {

const std::regex kKebab("[a-z0-9]+(-[a-z0-9]+)+");

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The string literals of a C++ source, comments and character literals skipped.
std::vector<std::string> stringLiterals(const std::string& s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        if (s.compare(i, 2, "//") == 0) {
            i = s.find('\n', i);
            if (i == std::string::npos) break;
        } else if (s.compare(i, 2, "/*") == 0) {
            i = s.find("*/", i + 2);
            if (i == std::string::npos) break;
            i += 2;
        } else if (s.compare(i, 2, "R\"") == 0) {
            const std::size_t open = s.find('(', i);
            const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
            const std::size_t end = s.find(close, open);
            if (end == std::string::npos) break;
            out.push_back(s.substr(open + 1, end - open - 1));
            i = end + close.size();
        } else if (s[i] == '"' || s[i] == '\'') {
            const char q = s[i];
            std::string lit;
            for (++i; i < s.size() && s[i] != q; ++i) {
                if (s[i] == '\\' && i + 1 < s.size()) ++i;
                lit += s[i];
            }
            ++i;
            if (q == '"') out.push_back(std::move(lit));
        } else {
            ++i;
        }
    }
    return out;
}

std::vector<fs::path> sources() {
    std::vector<fs::path> out;
    for (const char* dir : {"core", "widgets", "app", "python/bindings"})
        for (const auto& e : fs::recursive_directory_iterator(fs::path(XT_SOURCE_DIR) / dir)) {
            const std::string ext = e.path().extension().string();
            if (e.is_regular_file() && (ext == ".cpp" || ext == ".h" || ext == ".cu"))
                out.push_back(e.path());
        }
    return out;
}

std::string sourceRelative(const fs::path& p) {
    return fs::relative(p, XT_SOURCE_DIR).generic_string();
}

// The code table of docs/DIAGNOSTICS.md, as the registry says it should read.
std::string expectedTable() {
    std::string t = "| code | severity | meaning |\n|---|---|---|\n";
    for (const DiagnosticCode& c : allDiagnosticCodes())
        t += std::string("| `") + c.name + "` | " + severityName(c.severity) + " | " +
             c.description + " |\n";
    return t;
}

} // namespace

TEST(DiagnosticCodes, NamesAreUniqueKebabCaseAndDescribed) {
    std::set<std::string> seen;
    ASSERT_GT(allDiagnosticCodes().size(), 60u);
    for (const DiagnosticCode& c : allDiagnosticCodes()) {
        EXPECT_TRUE(std::regex_match(c.name, kKebab)) << c.name;
        EXPECT_TRUE(seen.insert(c.name).second) << "declared twice: " << c.name;
        EXPECT_GT(std::string(c.description).size(), 10u) << c.name;
        EXPECT_EQ(findDiagnosticCode(c.name), &c);
    }
    EXPECT_EQ(findDiagnosticCode("no-such-code"), nullptr);
    EXPECT_STREQ(codes::kTruncatedRecord.name, "truncated-record");
    EXPECT_EQ(codes::kTruncatedRecord.severity, Severity::Warning);
}

TEST(DiagnosticCodes, AddTakesTheDeclaredSeverity) {
    Diagnostics d;
    d.add(codes::kBadLength, "f", 4, 0, "too long");
    d.add(codes::kKeysBorrowed, "g", Diagnostic::kNoOffset, -1, "from f");
    ASSERT_EQ(d.items().size(), 2u);
    EXPECT_EQ(d.items()[0].severity, Severity::Error);
    EXPECT_EQ(d.items()[0].code, "bad-length");
    EXPECT_EQ(d.items()[1].severity, Severity::Info);
    EXPECT_EQ(d.errorCount(), 1u);
    EXPECT_EQ(d.countsByCode().at("keys-borrowed"), 1u);
}

// Set XT_UPDATE_DIAGNOSTICS_DOC=1 to rewrite the table from the registry.
TEST(DiagnosticCodes, DocsListEveryCodeAsDeclared) {
    const fs::path doc = fs::path(XT_SOURCE_DIR) / "docs" / "DIAGNOSTICS.md";
    std::string text = readFile(doc);
    const std::string begin = "<!-- codes: begin -->\n", end = "<!-- codes: end -->";
    const std::size_t b = text.find(begin), e = text.find(end);
    ASSERT_NE(b, std::string::npos) << doc << " lacks the line " << begin;
    ASSERT_NE(e, std::string::npos) << doc << " lacks the line " << end;
    const std::string table = text.substr(b + begin.size(), e - b - begin.size());
    if (table != expectedTable() && std::getenv("XT_UPDATE_DIAGNOSTICS_DOC")) {
        text.replace(b + begin.size(), e - b - begin.size(), expectedTable());
        std::ofstream(doc, std::ios::binary) << text;
        GTEST_SKIP() << "rewrote " << doc;
    }
    EXPECT_EQ(table, expectedTable())
        << doc << " does not match core/base/diagnostic_codes.h; rerun this test with "
        << "XT_UPDATE_DIAGNOSTICS_DOC=1 to rewrite its table";
}

TEST(DiagnosticCodes, NoCodeIsSpelledOutsideTheRegistry) {
    std::set<std::string> declared;
    for (const DiagnosticCode& c : allDiagnosticCodes())
        declared.insert(c.name);
    for (const fs::path& p : sources()) {
        const std::string rel = sourceRelative(p);
        if (rel == "core/base/diagnostic_codes.h") continue;
        for (const std::string& lit : stringLiterals(readFile(p)))
            if (declared.count(lit))
                ADD_FAILURE() << rel << ": the code \"" << lit << "\" is spelled as a literal; "
                              << "use its constant from core/base/diagnostic_codes.h";
    }
    // Every declared code is emitted somewhere, by its constant.
    std::string all;
    for (const fs::path& p : sources())
        if (sourceRelative(p) != "core/base/diagnostic_codes.h") all += readFile(p);
    for (const DiagnosticCode& c : allDiagnosticCodes()) {
        std::string constant = "k";
        for (const char* q = c.name; *q; ++q)
            if (*q != '-') constant += q == c.name || q[-1] == '-' ? char(*q - 'a' + 'A') : *q;
        EXPECT_TRUE(all.find("codes::" + constant) != all.npos)
            << c.name << " is declared but never emitted";
    }
}
