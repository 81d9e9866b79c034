#pragma once
// Files of the shared test corpus, which lives outside the repository (XT_SHARED_DIR: by default
// ../shared beside the source tree, or -DXT_SHARED_DIR=...). Tests that read it start with
// XT_REQUIRE_SHARED_CORPUS(), so a clone of the repository alone skips them and still passes.

#include <filesystem>
#include <string>

namespace xt::test {

inline std::string chromeCorpus(const std::string& rel) {
    return std::string(XT_SHARED_DIR) + "/corpus/chrome/" + rel;
}

inline bool sharedCorpusPresent() {
    std::error_code ec;
    return std::filesystem::is_directory(chromeCorpus(""), ec);
}

} // namespace xt::test

// Skips the current test, saying why, when the shared corpus is absent.
#define XT_REQUIRE_SHARED_CORPUS()                                                                 \
    do {                                                                                           \
        if (!::xt::test::sharedCorpusPresent())                                                    \
            GTEST_SKIP() << "the shared corpus " << ::xt::test::chromeCorpus("")                   \
                         << " is absent (set XT_SHARED_DIR to use it)";                            \
    } while (0)
