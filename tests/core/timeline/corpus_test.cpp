// Every file of the shared Chrome-trace corpus loads, with per-phase counts equal to the
// independent counts recorded in MANIFEST.tsv (its `ph=` and `events=` fields).
#include "core/timeline/chrome_trace_reader.h"
#include "shared_corpus.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace xt::timeline;

namespace {

struct ManifestEntry {
    std::string path;
    std::uint64_t events = 0;
    std::map<std::string, std::uint64_t> phases;
    std::string notes;
};

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.pop_back();
    while (!s.empty() && s.front() == ' ')
        s.erase(s.begin());
    return s;
}

std::vector<ManifestEntry> readManifest() {
    std::vector<ManifestEntry> out;
    std::ifstream in(xt::test::chromeCorpus("MANIFEST.tsv"));
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::vector<std::string> cols;
        std::stringstream ss(line);
        std::string col;
        while (std::getline(ss, col, '\t'))
            cols.push_back(col);
        if (cols.size() < 6) continue;
        ManifestEntry e;
        e.path = cols[0];
        e.notes = cols[5];
        std::stringstream notes(cols[5]);
        std::string item;
        while (std::getline(notes, item, ';')) {
            item = trim(item);
            if (item.rfind("events=", 0) == 0) e.events = std::stoull(item.substr(7));
            if (item.rfind("ph=", 0) == 0) {
                std::stringstream ph(item.substr(3));
                std::string kv;
                while (std::getline(ph, kv, ',')) {
                    const auto colon = kv.rfind(':');
                    e.phases[kv.substr(0, colon)] = std::stoull(kv.substr(colon + 1));
                }
            }
        }
        out.push_back(std::move(e));
    }
    return out;
}

} // namespace

TEST(TimelineCorpus, ManifestIsReadable) {
    XT_REQUIRE_SHARED_CORPUS();
    const auto entries = readManifest();
    EXPECT_GE(entries.size(), 40u);
    for (const auto& e : entries)
        EXPECT_FALSE(e.phases.empty()) << e.path;
}

TEST(TimelineCorpus, EveryFileLoadsWithExactPhaseCounts) {
    XT_REQUIRE_SHARED_CORPUS();
    for (const auto& e : readManifest()) {
        SCOPED_TRACE(e.path);
        auto r = importChromeTrace(xt::test::chromeCorpus(e.path));
        ASSERT_TRUE(r.isOk()) << r.status().toString();
        const TraceStore& st = *r;
        EXPECT_EQ(st.report().events, e.events);
        EXPECT_EQ(st.report().phases, e.phases);
        // Every X event is a slice (overlapping ones included: nothing is dropped).
        std::uint64_t x = e.phases.count("X") ? e.phases.at("X") : 0;
        std::uint64_t threadSlices = 0;
        for (const Track& t : st.tracks())
            if (t.kind == TrackKind::Thread) threadSlices += t.sliceEnd - t.sliceBegin;
        const std::uint64_t b = e.phases.count("B") ? e.phases.at("B") : 0;
        EXPECT_EQ(threadSlices, x + b) << "X plus B (unterminated B closed at trace end)";
        // Slices of a track are sorted by start, and rows never overlap.
        for (const Track& t : st.tracks()) {
            for (std::uint32_t s = t.sliceBegin + 1; s < t.sliceEnd; ++s)
                ASSERT_LE(st.sliceStart()[s - 1], st.sliceStart()[s]);
        }
        const bool gz = e.notes.find("gzip") != std::string::npos;
        EXPECT_EQ(st.report().container, gz ? "gzip" : (e.path.ends_with(".zip") ? "zip" : "json"));
        if (e.notes.find("missing-bracket") != std::string::npos ||
            e.notes.find("missing-closing-bracket") != std::string::npos)
            EXPECT_EQ(st.report().diagnostics.countsByCode().count("missing-closing-bracket"), 1u);
    }
}

TEST(TimelineCorpus, KinetoFlowsConnectLaunchToKernel) {
    XT_REQUIRE_SHARED_CORPUS();
    auto r = importChromeTrace(
        std::string(XT_SHARED_DIR) +
        "/corpus/chrome/kineto/"
        "samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz");
    ASSERT_TRUE(r.isOk());
    const TraceStore& st = *r;
    EXPECT_EQ(st.flows().size(), 9096u); // every s/f pair binds
    for (const Flow& f : st.flows()) {
        // Kineto: the launch (runtime, CPU thread) precedes the kernel on a GPU stream.
        EXPECT_LE(st.sliceStart()[f.fromSlice], st.sliceStart()[f.toSlice]);
        EXPECT_NE(st.sliceTrack()[f.fromSlice], st.sliceTrack()[f.toSlice]);
        EXPECT_EQ(st.str(st.sliceCategory()[f.fromSlice]), "Runtime");
    }
    // String tids ("stream 7") and numeric-string tids survive as threads.
    bool stream = false;
    for (const Thread& t : st.threads())
        stream |= st.str(t.tid) == "stream 7";
    EXPECT_TRUE(stream);
}

TEST(TimelineCorpus, TensorFlowMemoryObjectsAndCounters) {
    XT_REQUIRE_SHARED_CORPUS();
    auto r = importChromeTrace(std::string(XT_SHARED_DIR) +
                               "/corpus/chrome/tf-timeline/seasonyc__timeline.keras.json");
    ASSERT_TRUE(r.isOk());
    const TraceStore& st = *r;
    EXPECT_EQ(st.objects().size(), 178u);
    for (const ObjectLifetime& o : st.objects()) {
        EXPECT_NE(o.destroyed, kNoTime);
        EXPECT_LE(o.created, o.destroyed);
        EXPECT_EQ(o.snapshots, 1u);
    }
    std::uint64_t samples = 0;
    for (const CounterSeries& c : st.counters())
        samples += c.ts.size();
    EXPECT_GE(samples, 356u); // one sample per numeric arg of every C event
    EXPECT_EQ(st.flows().size(), 240u);
}

TEST(TimelineCorpus, LargeIntegersSurvive) {
    XT_REQUIRE_SHARED_CORPUS();
    auto r = importChromeTrace(std::string(XT_SHARED_DIR) +
                               "/corpus/chrome/hta/large_integer_trace__rank-70.pt.trace.json.gz");
    ASSERT_TRUE(r.isOk());
    const TraceStore& st = *r;
    ASSERT_EQ(st.sliceCount(), 2u);
    bool found = false;
    for (std::uint32_t s = 0; s < 2; ++s)
        for (const auto& [k, v] : st.decodeArgs(st.sliceArgs(s)))
            found |= v == "10159970886766084423";
    EXPECT_TRUE(found) << "the value beyond INT64_MAX is kept as written";
}
