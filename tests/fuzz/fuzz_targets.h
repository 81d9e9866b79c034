#pragma once
// The fuzz targets' entry points, one per input format. Each takes arbitrary bytes, runs them
// through the real parsing code and checks its invariants (a broken one aborts). Built into a
// libFuzzer executable per target with XT_FUZZ (fuzz_main.cpp, tests/fuzz/CMakeLists.txt), and
// into the ordinary test test_fuzz_regressions, which replays tests/fuzz/regressions/<target>/ with
// any compiler so every input a fuzzer once crashed on stays fixed.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace xt::fuzz {

int xdlRecord(const std::uint8_t* data, std::size_t size);
int runDiscovery(const std::uint8_t* data, std::size_t size);
int chromeJson(const std::uint8_t* data, std::size_t size);
int stepStats(const std::uint8_t* data, std::size_t size);
int webhdfsResponse(const std::uint8_t* data, std::size_t size);
int summary(const std::uint8_t* data, std::size_t size);

// An invariant every input must keep; a violation aborts so the fuzzer records the input.
#define XT_FUZZ_CHECK(cond)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

} // namespace xt::fuzz
