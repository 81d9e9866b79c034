#pragma once
// Runs the built `xtrace` (XTRACE_BIN, set by the test target) with arguments, capturing stdout
// and the exit status.

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace xt::test {

struct RunResult {
    int status = -1;
    std::string out;
};

inline RunResult runXtrace(const std::string& args) {
    RunResult r;
    const std::string cmd = std::string(XTRACE_BIN) + " " + args + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        r.out.append(buf.data(), n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

} // namespace xt::test
