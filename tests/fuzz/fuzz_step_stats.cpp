// Fuzz target step_stats: the input is a binary TensorFlow RunMetadata / StepStats message. It
// is converted to the Chrome trace TF's timeline tool would write, which must be JSON the Chrome
// importer reads without error, and imported.
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/step_stats_reader.h"
#include "fuzz_targets.h"

namespace xt::fuzz {

int stepStats(const std::uint8_t* data, std::size_t size) {
    using namespace xt::timeline;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)looksLikeStepStats(bytes);
    auto json = stepStatsToChromeJson(bytes);
    if (!json) return 0;
    auto store = importChromeTraceBytes(*json, {}, "fuzz.pb");
    XT_FUZZ_CHECK(store.isOk());
    XT_FUZZ_CHECK(store->report().objectForm);
    return 0;
}

} // namespace xt::fuzz
