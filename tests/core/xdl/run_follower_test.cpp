// RunFollower against files that grow while it watches: appended records, new parts, new ranks,
// metas being finalised and a partial record completing later. Waits are bounded (2 s), never
// asserted as timings.
#include "core/recorder/recorder.h"
#include "core/xdl/run_follower.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace xt::xdl {
namespace {
using xt::test::TempDir;

namespace fs = std::filesystem;

// Collects updates; waitFor() blocks until a predicate on the latest update holds (or 2 s).
class Updates {
public:
    RunFollower::Callback callback() {
        return [this](const FollowUpdate& u) {
            std::lock_guard lock(m_mutex);
            m_last = u;
            m_count++;
            m_newParts += u.newParts;
            m_finalised += u.finalisedParts;
            m_cv.notify_all();
        };
    }
    bool waitFor(const std::function<bool(const FollowUpdate&)>& pred) {
        std::unique_lock lock(m_mutex);
        return m_cv.wait_for(lock, std::chrono::seconds(2), [&] { return pred(m_last); });
    }
    std::size_t count() {
        std::lock_guard lock(m_mutex);
        return m_count;
    }
    std::size_t finalisedParts() {
        std::lock_guard lock(m_mutex);
        return m_finalised;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    FollowUpdate m_last;
    std::size_t m_count = 0, m_newParts = 0, m_finalised = 0;
};

std::unique_ptr<recorder::Recorder> makeRecorder(const std::string& dir, int rank,
                                                 double maxMB = 300) {
    recorder::RecorderConfig c;
    c.outputDir = dir;
    c.rank = rank;
    c.maxFileMB = maxMB;
    auto r = recorder::Recorder::create(c);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return std::move(*r);
}

void recordSteps(recorder::Recorder& rec, int from, int to) {
    std::vector<float> v(500);
    const std::int64_t shape[] = {500};
    for (int s = from; s < to; ++s) {
        std::fill(v.begin(), v.end(), float(s));
        ASSERT_TRUE(rec.trace("v", v.data(), shape).isOk());
        ASSERT_TRUE(rec.commitStep(s).isOk());
    }
    ASSERT_TRUE(rec.flush().isOk());
}

// A part's framed header for the one key "x", and a record of step (lstep step + 1) with x = v.
std::string framedHeader() {
    std::string out, body = encodeHeader({"x"});
    appendLength(out, static_cast<std::uint32_t>(body.size()));
    return out + body;
}

std::string framedRecord(std::int64_t step, double v) {
    RecordEncoder enc;
    enc.begin(step, step + 1);
    const std::int64_t shape[] = {1};
    enc.addColumn(Dtype::Double, shape, Bytes(reinterpret_cast<const std::uint8_t*>(&v), 8));
    EXPECT_TRUE(enc.finish(1700000000000 + step).isOk());
    return enc.buffer();
}

// Options of a follower that only watches (lets go of finished parts), polling often.
FollowOptions watchOnly() {
    FollowOptions options;
    options.keepFinishedParts = false;
    options.pollInterval = std::chrono::milliseconds(20);
    options.rescanInterval = std::chrono::milliseconds(20);
    return options;
}

void followsRecorder(bool inotify) {
    TempDir dir;
    Updates updates;
    FollowOptions options;
    options.useInotify = inotify;
    auto follower = RunFollower::start(dir.str(), "train", "trace", updates.callback(), options);
    ASSERT_TRUE(follower.isOk()) << follower.status().toString();
    EXPECT_EQ((*follower)->usesInotify(), inotify);

    auto rec = makeRecorder(dir.str(), 0, 0.006); // ~3 records of 2 kB per part
    recordSteps(*rec, 0, 2);
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 2; }));
    recordSteps(*rec, 2, 10);
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 10; }));
    ASSERT_TRUE(rec->close().isOk());
    std::size_t parts = 0;
    auto allFinalised = [&] {
        bool done = false;
        (*follower)->withReader([&](const RunReader& r, const Diagnostics&) {
            parts = r.ranks().at(0).parts().size();
            done = true;
            for (const auto& p : r.ranks().at(0).parts())
                done = done && p->part().metaState == MetaState::Finalised;
        });
        return done;
    };
    ASSERT_TRUE(updates.waitFor([&](const FollowUpdate&) { return allFinalised(); }));
    EXPECT_GE(parts, 3u);
    (*follower)->withReader([](const RunReader& r, const Diagnostics& diag) {
        ASSERT_EQ(r.ranks().size(), 1u);
        const RankReader& rank = r.ranks()[0];
        ASSERT_EQ(rank.recordCount(), 10u);
        for (std::size_t i = 0; i < 10; ++i) {
            auto t = rank.tensor(i, "v");
            ASSERT_TRUE(t.isOk()) << t.status().toString();
            EXPECT_EQ(t->at<float>(499), float(i));
        }
        EXPECT_EQ(diag.errorCount(), 0u);
    });
    (*follower)->stop();
    (*follower)->stop(); // twice is fine
}

TEST(RunFollower, FollowsAppendsPartsAndMetasWithInotify) {
    followsRecorder(true);
}

TEST(RunFollower, FollowsAppendsPartsAndMetasByPolling) {
    followsRecorder(false);
}

// A follower that only watches lets go of finished parts: it holds the last one, yet counts
// every record and every part finalised.
TEST(RunFollower, LetsGoOfFinishedPartsWhenAsked) {
    TempDir dir;
    Updates updates;
    auto follower =
        RunFollower::start(dir.str(), "train", "trace", updates.callback(), watchOnly());
    ASSERT_TRUE(follower.isOk()) << follower.status().toString();
    auto rec = makeRecorder(dir.str(), 0, 0.006); // ~3 records of 2 kB per part
    recordSteps(*rec, 0, 10);
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 10; }));
    ASSERT_TRUE(rec->close().isOk());
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.finalised; }));
    std::size_t parts = 0;
    for (const auto& f : fs::directory_iterator(dir.str()))
        parts += parsePartFileName(f.path().filename().string()).has_value();
    ASSERT_GE(parts, 3u);
    EXPECT_EQ(updates.finalisedParts(), parts);
    (*follower)->withReader([](const RunReader& r, const Diagnostics& diag) {
        ASSERT_EQ(r.ranks().size(), 1u);
        const RankReader& rank = r.ranks()[0];
        ASSERT_EQ(rank.parts().size(), 1u);
        ASSERT_GE(rank.recordCount(), 1u);
        const std::size_t first = 10 - rank.recordCount(); // the step of its first record
        for (std::size_t i = 0; i < rank.recordCount(); ++i) {
            EXPECT_EQ(rank.entry(i).gstep, std::int64_t(first + i));
            auto t = rank.tensor(i, "v");
            ASSERT_TRUE(t.isOk()) << t.status().toString();
            EXPECT_EQ(t->at<float>(499), float(first + i));
        }
        EXPECT_EQ(diag.errorCount(), 0u);
    });
}

// A new part found before its first record: the finished part before it stays until it has
// one, so that record's step is checked against the part before (a restarted writer going back).
TEST(RunFollower, KeepsThePartBeforeAnEmptyNewPart) {
    TempDir dir;
    const std::string first = dir.str() + "/train.trace.0.1",
                      second = dir.str() + "/train.trace.0.2";
    std::ofstream(first, std::ios::binary)
        << framedHeader() << framedRecord(0, 0) << framedRecord(1, 1) << framedRecord(2, 2);
    std::ofstream(first + ".meta", std::ios::binary)
        << encodeMeta(MetaInfo{1, 3, 0, 2, 1700000000000, 1700000000002});
    std::ofstream(second, std::ios::binary) << framedHeader();
    std::ofstream(second + ".meta", std::ios::binary);
    Updates updates;
    auto follower =
        RunFollower::start(dir.str(), "train", "trace", updates.callback(), watchOnly());
    ASSERT_TRUE(follower.isOk()) << follower.status().toString();
    (*follower)->withReader([](const RunReader& r, const Diagnostics&) {
        ASSERT_EQ(r.ranks().size(), 1u);
        EXPECT_EQ(r.ranks()[0].parts().size(), 2u) << "the finished part is kept";
    });
    std::ofstream(second, std::ios::binary | std::ios::app) << framedRecord(1, 1); // 2 to 1
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 4; }));
    (*follower)->withReader([](const RunReader& r, const Diagnostics& diag) {
        EXPECT_EQ(diag.countsByCode().count("steps-backwards"), 1u);
        EXPECT_EQ(r.ranks()[0].parts().size(), 1u) << "let go once the new part has a record";
        EXPECT_EQ(r.ranks()[0].recordCount(), 1u);
    });
}

TEST(RunFollower, PicksUpNewRanksAndExistingData) {
    TempDir dir;
    auto rank0 = makeRecorder(dir.str(), 0);
    recordSteps(*rank0, 0, 3);
    Updates updates;
    auto follower = RunFollower::start(dir.str(), "train", "trace", updates.callback());
    ASSERT_TRUE(follower.isOk());
    (*follower)->withReader([](const RunReader& r, const Diagnostics&) {
        ASSERT_EQ(r.ranks().size(), 1u);
        EXPECT_EQ(r.ranks()[0].recordCount(), 3u);
    });
    auto rank2 = makeRecorder(dir.str(), 2);
    recordSteps(*rank2, 0, 4);
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.rankCount == 2; }));
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 7; }));
    (*follower)->withReader([](const RunReader& r, const Diagnostics&) {
        EXPECT_EQ(r.ranks()[0].rank(), 0);
        EXPECT_EQ(r.ranks()[1].rank(), 2);
        EXPECT_EQ(r.ranks()[1].recordCount(), 4u);
    });
}

TEST(RunFollower, WaitsForDirectoryToAppear) {
    TempDir dir;
    std::string sub = dir.str() + "/later";
    Updates updates;
    FollowOptions options;
    options.pollInterval = std::chrono::milliseconds(20);
    auto follower = RunFollower::start(sub, "train", "trace", updates.callback(), options);
    ASSERT_TRUE(follower.isOk()) << follower.status().toString();
    EXPECT_FALSE((*follower)->usesInotify());
    auto rec = makeRecorder(sub, 0);
    recordSteps(*rec, 0, 5);
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 5; }));
}

TEST(RunFollower, IgnoresPartialRecordUntilComplete) {
    TempDir dir;
    const std::string path = dir.str() + "/train.trace.0.1";
    const std::string r0 = framedRecord(0, 0), r1 = framedRecord(1, 1.5);
    {
        std::ofstream(path + ".meta", std::ios::binary);
        std::ofstream out(path, std::ios::binary);
        out << framedHeader() << r0 << r1.substr(0, 7);
    }
    Updates updates;
    auto follower = RunFollower::start(dir.str(), "train", "trace", updates.callback());
    ASSERT_TRUE(follower.isOk());
    (*follower)->withReader([](const RunReader& r, const Diagnostics& diag) {
        ASSERT_EQ(r.ranks().size(), 1u);
        EXPECT_EQ(r.ranks()[0].recordCount(), 1u);
        EXPECT_EQ(diag.countsByCode().count("truncated-record"), 0u);
    });
    {
        std::ofstream out(path, std::ios::binary | std::ios::app);
        out << r1.substr(7);
    }
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 2; }));
    (*follower)->withReader([](const RunReader& r, const Diagnostics& diag) {
        auto t = r.ranks()[0].tensor(1, "x");
        ASSERT_TRUE(t.isOk());
        EXPECT_EQ(t->at<double>(0), 1.5);
        EXPECT_EQ(diag.errorCount(), 0u);
    });
}

// A mirror can copy a part's finalised meta before its last bytes: the part is not finished
// (nor its meta reported as mismatched) until the records it names have arrived.
TEST(RunFollower, AFinalisedMetaAheadOfTheDataWaitsForTheRecords) {
    TempDir dir;
    const std::string path = dir.str() + "/train.trace.0.1";
    std::string first;
    std::string body = encodeHeader({"x"});
    appendLength(first, static_cast<std::uint32_t>(body.size()));
    first += body;
    std::string rest;
    for (std::int64_t step = 0; step < 5; ++step) {
        RecordEncoder enc;
        enc.begin(step, step + 1);
        double v = double(step);
        const std::int64_t shape[] = {1};
        enc.addColumn(Dtype::Double, shape, Bytes(reinterpret_cast<const std::uint8_t*>(&v), 8));
        ASSERT_TRUE(enc.finish(1700000000000 + step).isOk());
        (step < 3 ? first : rest) += enc.buffer();
    }
    std::ofstream(path, std::ios::binary) << first;
    const MetaInfo meta{1, 5, 0, 4, 1700000000000, 1700000000004}; // what all 5 records say
    std::ofstream(path + ".meta", std::ios::binary) << encodeMeta(meta);
    Updates updates;
    FollowOptions fo;
    fo.pollInterval = std::chrono::milliseconds(20);
    fo.rescanInterval = std::chrono::milliseconds(20);
    auto follower = RunFollower::start(dir.str(), "train", "trace", updates.callback(), fo);
    ASSERT_TRUE(follower.isOk());
    (*follower)->withReader([](const RunReader& r, const Diagnostics& diag) {
        ASSERT_EQ(r.ranks().size(), 1u);
        EXPECT_EQ(r.ranks()[0].recordCount(), 3u);
        EXPECT_TRUE(r.ranks()[0].parts()[0]->dataBehindMeta());
        EXPECT_FALSE(allPartsFinalised(r));
        EXPECT_EQ(diag.countsByCode().count("meta-mismatch"), 0u);
    });
    std::ofstream(path, std::ios::binary | std::ios::app) << rest;
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 5; }));
    (*follower)->withReader([](const RunReader& r, const Diagnostics& diag) {
        EXPECT_TRUE(r.ranks()[0].parts()[0]->finished());
        EXPECT_TRUE(allPartsFinalised(r));
        EXPECT_EQ(diag.countsByCode().count("meta-mismatch"), 0u);
        EXPECT_EQ(diag.errorCount(), 0u);
    });
}

TEST(RunFollower, IgnoresOtherRunsInTheDirectory) {
    TempDir dir;
    Updates updates;
    auto follower = RunFollower::start(dir.str(), "train", "trace", updates.callback());
    ASSERT_TRUE(follower.isOk());
    recorder::RecorderConfig c;
    c.outputDir = dir.str();
    c.training = false; // test.trace.*: another run
    auto other = recorder::Recorder::create(c);
    ASSERT_TRUE(other.isOk());
    recordSteps(**other, 0, 3);
    ASSERT_TRUE((*other)->close().isOk());
    auto rec = makeRecorder(dir.str(), 0);
    recordSteps(*rec, 0, 1);
    ASSERT_TRUE(updates.waitFor([](const FollowUpdate& u) { return u.totalRecords == 1; }));
    (*follower)->withReader([](const RunReader& r, const Diagnostics&) {
        ASSERT_EQ(r.ranks().size(), 1u);
        EXPECT_EQ(r.ranks()[0].recordCount(), 1u);
    });
}

} // namespace
} // namespace xt::xdl
