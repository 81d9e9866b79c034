// Fuzz target chrome_json: the input is a Chrome trace file (JSON, gzip or zip, detected by
// magic bytes). It is imported with importChromeTraceBytes and the store's invariants checked:
// slices inside their tracks, parents before children, flows and args inside the tables and
// text; then the LOD index and the op summary run over it, and every args object is decoded.
// The input is read in windows of 16 bytes (ImportOptions::parseWindowBytes) too: the same
// checks, and for valid JSON the same store.
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/lod_index.h"
#include "core/timeline/op_summary.h"
#include "fuzz_targets.h"
#include "store_digest.h"

#include <simdjson.h>

namespace xt::fuzz {

namespace {

void checkStore(const timeline::TraceStore& st) {
    using namespace xt::timeline;
    const std::size_t n = st.sliceCount();
    for (const Track& t : st.tracks()) {
        XT_FUZZ_CHECK(t.sliceBegin <= t.sliceEnd && t.sliceEnd <= n);
        XT_FUZZ_CHECK(t.process < st.processes().size());
        XT_FUZZ_CHECK(t.thread == kNoIndex || t.thread < st.threads().size());
    }
    for (std::uint32_t s = 0; s < n; ++s) {
        XT_FUZZ_CHECK(st.sliceTrack()[s] < st.tracks().size());
        XT_FUZZ_CHECK(st.sliceDuration()[s] >= 0);
        const std::uint32_t p = st.sliceParent()[s];
        XT_FUZZ_CHECK(p == kNoIndex || p < s);
        const ArgsRef a = st.sliceArgs(s);
        if (!a.empty()) {
            XT_FUZZ_CHECK(st.argsJson(a).size() == a.size); // inside the text
            (void)st.decodeArgs(a);
        }
    }
    for (const Flow& f : st.flows()) {
        XT_FUZZ_CHECK(f.fromSlice == kNoIndex || f.fromSlice < n);
        XT_FUZZ_CHECK(f.toSlice == kNoIndex || f.toSlice < n);
    }
    for (const CounterSeries& c : st.counters())
        XT_FUZZ_CHECK(c.ts.size() == c.values.size());
    for (std::uint32_t p = 0; p < st.processes().size(); ++p)
        (void)st.processLabel(p);
    for (std::uint32_t t = 0; t < st.threads().size(); ++t)
        (void)st.threadLabel(t);
    LodIndex lod = LodIndex::build(st);
    (void)lod;
    (void)opSummary(st);
}

} // namespace

int chromeJson(const std::uint8_t* data, std::size_t size) {
    using namespace xt::timeline;
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto store = importChromeTraceBytes(text, {}, "fuzz.json");
    ImportOptions windows;
    windows.parseWindowBytes = 16;
    auto windowed = importChromeTraceBytes(text, windows, "fuzz.json");
    XT_FUZZ_CHECK(store.isOk() == windowed.isOk());
    if (!store) return 0;
    checkStore(*store);
    checkStore(*windowed);
    // Valid JSON gives the same store in windows. Damaged text may not: reading the whole
    // document, simdjson On-Demand can accept a damaged event because of what follows it (it
    // does not validate what it skips), where a window ending after it reports it malformed.
    simdjson::dom::parser validator;
    if (!validator.parse(text).error()) {
        XT_FUZZ_CHECK(xt::timeline::test::hashStore(*store) ==
                      xt::timeline::test::hashStore(*windowed));
        XT_FUZZ_CHECK(xt::timeline::test::hashReport(store->report(), true) ==
                      xt::timeline::test::hashReport(windowed->report(), true));
    }
    return 0;
}

} // namespace xt::fuzz
