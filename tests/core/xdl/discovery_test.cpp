// Run discovery: names parsed from the right, runs/ranks/parts grouping, gaps, meta states.
#include "core/xdl/run_discovery.h"
#include "core/xdl/trace_reader.h"
#include "xdl_test_util.h"

#include <gtest/gtest.h>

using namespace xt;
using namespace xt::xdl;
using xt::test::TempDir;

TEST(Discovery, ParsesNamesFromTheRight) {
    auto p = parsePartFileName("test.predict.trace.0.1");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->prefix, "test");
    EXPECT_EQ(p->name, "predict.trace");
    EXPECT_EQ(p->rank, 0);
    EXPECT_EQ(p->index, 1);
    p = parsePartFileName("train.trace.12.345");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->name, "trace");
    EXPECT_EQ(p->rank, 12);
    EXPECT_EQ(p->index, 345);
    EXPECT_EQ(partFileName(*p), "train.trace.12.345");
    for (const char* bad : {"train.trace.0.1.meta", "train.trace.0.1.xts", "trace.0.1",
                            "train.trace.x.1", "train.trace.0.-1", "train.trace.0.", ".trace.0.1",
                            "train..0.1", "noext", "train.trace.0.99999999999999999999"})
        EXPECT_FALSE(parsePartFileName(bad)) << bad;
}

TEST(Discovery, GroupsRunsRanksAndPartsAndReportsGaps) {
    TempDir dir;
    auto w = [&](const std::string& name, const std::string& meta) {
        xt::test::writeFile(dir.file(name), xt::test::simpleFile(2));
        if (meta != "none") xt::test::writeFile(dir.file(name + ".meta"), meta);
    };
    ::xdl::proto::Meta m;
    m.set_gstep_begin(0), m.set_gstep_end(1), m.set_lstep_begin(1), m.set_lstep_end(2);
    m.set_timestamp_begin(1700000000000), m.set_timestamp_end(1700000000100);
    std::string meta = m.SerializeAsString();
    w("train.trace.0.1", meta);
    w("train.trace.0.2", "");          // unfinalised
    w("train.trace.1.1", "none");      // missing meta
    w("train.trace.1.3", meta);        // gap: index 2 missing
    w("train.trace.10.1", "\xff\xff"); // corrupt meta
    w("test.eval.v2.0.1", meta);       // another run, dotted name
    xt::test::writeFile(dir.file("notes.txt"), "ignored");
    xt::test::writeFile(dir.file("orphan.x.0.1.meta"), meta); // meta without data: ignored

    Diagnostics diag;
    auto runs = discoverRuns({dir.path().string()}, diag);
    ASSERT_TRUE(runs.isOk());
    ASSERT_EQ(runs->size(), 2u);
    const RunFiles& eval = (*runs)[0];
    const RunFiles& train = (*runs)[1];
    EXPECT_EQ(eval.prefix, "test");
    EXPECT_EQ(eval.name, "eval.v2");
    EXPECT_EQ(train.label(), (dir.path() / "train.trace").string());
    ASSERT_EQ(train.ranks.size(), 3u);
    EXPECT_EQ(train.ranks[0].rank, 0);
    EXPECT_EQ(train.ranks[1].rank, 1);
    EXPECT_EQ(train.ranks[2].rank, 10); // numeric, not lexical order
    ASSERT_EQ(train.ranks[0].parts.size(), 2u);
    EXPECT_EQ(train.ranks[0].parts[0].metaState, MetaState::Finalised);
    EXPECT_EQ(train.ranks[0].parts[0].meta.gstepEnd, 1);
    EXPECT_EQ(train.ranks[0].parts[1].metaState, MetaState::Unfinalised);
    EXPECT_EQ(train.ranks[1].parts[0].metaState, MetaState::Missing);
    EXPECT_EQ(train.ranks[1].missingIndices, std::vector<std::int64_t>{2});
    EXPECT_EQ(train.ranks[2].parts[0].metaState, MetaState::Corrupt);
    EXPECT_EQ(diag.countsByCode().at("missing-parts"), 1u);
    EXPECT_EQ(diag.countsByCode().at("corrupt-meta"), 1u);

    // A run whose metas are missing, empty or corrupt still opens with all its records.
    Diagnostics d2;
    auto run = RunReader::open(train, d2);
    ASSERT_TRUE(run.isOk());
    EXPECT_EQ(run->ranks()[0].recordCount(), 4u);
    EXPECT_EQ(run->ranks()[1].recordCount(), 4u);
    EXPECT_EQ(run->ranks()[2].recordCount(), 2u);
}

TEST(Discovery, FilesGlobsMetaPathsAndSubdirectories) {
    TempDir dir;
    std::filesystem::create_directories(dir.path() / "job" / "a");
    std::filesystem::create_directories(dir.path() / "job" / "b");
    xt::test::writeFile(dir.file("job/a/train.trace.0.1"), xt::test::simpleFile(1));
    xt::test::writeFile(dir.file("job/b/train.trace.1.1"), xt::test::simpleFile(1));
    Diagnostics diag;
    // A directory without trace files of its own: its subdirectories are searched.
    auto runs = discoverRuns({dir.file("job")}, diag);
    ASSERT_TRUE(runs.isOk());
    EXPECT_EQ(runs->size(), 2u);
    // A glob, a .meta path (means its data file) and a plain file; duplicates collapse.
    xt::test::writeFile(dir.file("job/a/train.trace.0.1.meta"), "");
    runs = discoverRuns({dir.file("job/*/train.trace.*.1"), dir.file("job/a/train.trace.0.1.meta"),
                         dir.file("job/a/train.trace.0.1")},
                        diag);
    ASSERT_TRUE(runs.isOk());
    ASSERT_EQ(runs->size(), 2u);
    EXPECT_EQ((*runs)[0].ranks[0].parts.size(), 1u);
    // An explicitly named file with an odd name opens as rank 0, part 1.
    xt::test::writeFile(dir.file("dump.bin"), xt::test::simpleFile(3));
    Diagnostics d2;
    runs = discoverRuns({dir.file("dump.bin")}, d2);
    ASSERT_TRUE(runs.isOk());
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(d2.countsByCode().at("unrecognised-name"), 1u);
    auto run = RunReader::open((*runs)[0], d2);
    ASSERT_TRUE(run.isOk());
    EXPECT_EQ(run->ranks()[0].recordCount(), 3u);
    // Missing paths and globs matching nothing are errors.
    EXPECT_EQ(discoverRuns({dir.file("nope")}, diag).status().code(), ErrorCode::NotFound);
    EXPECT_EQ(discoverRuns({dir.file("*.nothing")}, diag).status().code(), ErrorCode::NotFound);
    Diagnostics d3;
    std::filesystem::create_directories(dir.path() / "empty");
    runs = discoverRuns({dir.file("empty")}, d3);
    ASSERT_TRUE(runs.isOk());
    EXPECT_TRUE(runs->empty());
    EXPECT_EQ(d3.countsByCode().at("no-runs"), 1u);
}

// Summaries (`{part}.xts`) and their temporary files are never taken for data files: not in a
// directory, not through a glob; a summary named explicitly stands for its data file.
TEST(Discovery, IgnoresSummaryFiles) {
    TempDir dir;
    xt::test::writeFile(dir.file("train.trace.0.1"), xt::test::simpleFile(2));
    xt::test::writeFile(dir.file("train.trace.0.1.xts"), "summary bytes");
    xt::test::writeFile(dir.file(".train.trace.0.1.xts.123-4.tmp"), "being written");
    xt::test::writeFile(dir.file("train.trace.0.2.xts"), "a summary without its part");
    for (const std::string& path : {dir.str(), dir.file("*"), dir.file("train.trace.0.1.xts")}) {
        Diagnostics diag;
        auto runs = discoverRuns({path}, diag);
        ASSERT_TRUE(runs.isOk()) << path;
        ASSERT_EQ(runs->size(), 1u) << path;
        ASSERT_EQ((*runs)[0].ranks.size(), 1u) << path;
        ASSERT_EQ((*runs)[0].ranks[0].parts.size(), 1u) << path;
        EXPECT_EQ((*runs)[0].ranks[0].parts[0].path, dir.file("train.trace.0.1")) << path;
        EXPECT_TRUE((*runs)[0].ranks[0].missingIndices.empty()) << path;
        EXPECT_EQ(diag.countsByCode().count("unrecognised-name"), 0u) << path;
    }
    Diagnostics diag;
    auto runs = discoverRuns({dir.file("train.trace.0.2.xts")}, diag);
    ASSERT_TRUE(runs.isOk());
    EXPECT_TRUE(runs->empty());
    EXPECT_EQ(diag.countsByCode().at("orphan-summary"), 1u);
}

// A file named just ".meta" or ".xts" has no extension to drop; it once stood for itself and
// discovery recursed until the stack overflowed (found by fuzz_run_discovery). Companions of
// companions stand for nothing either.
TEST(Discovery, BareCompanionNamesStandForNothing) {
    TempDir dir;
    xt::test::writeFile(dir.file("train.trace.0.1"), xt::test::simpleFile(2));
    for (const char* name : {".meta", ".xts", "train.trace.0.1.meta.meta", "x.xts.meta"})
        xt::test::writeFile(dir.file(name), "companion bytes");
    for (const std::string& path : {dir.str(), dir.file("*")}) {
        Diagnostics diag;
        auto runs = discoverRuns({path}, diag);
        ASSERT_TRUE(runs.isOk()) << path;
        ASSERT_EQ(runs->size(), 1u) << path;
        EXPECT_EQ((*runs)[0].ranks[0].parts[0].path, dir.file("train.trace.0.1")) << path;
    }
    for (const char* name : {".meta", ".xts", "train.trace.0.1.meta.meta"}) {
        Diagnostics diag;
        auto runs = discoverRuns({dir.file(name)}, diag);
        ASSERT_TRUE(runs.isOk()) << name;
        EXPECT_TRUE(runs->empty()) << name;
        EXPECT_EQ(diag.total(), 1u) << name;
    }
}
