// libFuzzer's entry point for one target: XT_FUZZ_FN names the xt::fuzz function (set per
// executable by tests/fuzz/CMakeLists.txt).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return xt::fuzz::XT_FUZZ_FN(data, size);
}
