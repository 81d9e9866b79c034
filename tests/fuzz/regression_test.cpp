// Replays every fuzz target's seeds and every input a fuzzer once failed on
// (tests/fuzz/regressions/<target>/) through the target's entry point: with any compiler, so
// the ordinary and sanitizer builds keep each fixed finding fixed.
#include "fuzz_targets.h"
#include "seeds.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

class FuzzReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzReplay, SeedsAndRegressions) {
    const std::string target = GetParam();
    auto fn = xt::fuzz::targetFunction(target);
    ASSERT_NE(fn, nullptr);
    const auto seeds = xt::fuzz::seedsFor(target);
    ASSERT_FALSE(seeds.empty());
    for (const auto& [name, bytes] : seeds) {
        SCOPED_TRACE("seed " + name);
        EXPECT_EQ(fn(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()), 0);
    }
    const fs::path dir = fs::path(XT_SOURCE_DIR) / "tests/fuzz/regressions" / target;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (!e.is_regular_file() || e.path().filename() == "README") continue;
        SCOPED_TRACE("regression " + e.path().string());
        const std::string bytes = readAll(e.path());
        EXPECT_EQ(fn(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()), 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplay, ::testing::ValuesIn(xt::fuzz::targetNames()),
                         [](const auto& info) { return info.param; });

} // namespace
