#include "core/export/atomic_file.h"
#include "xdl_test_util.h"

#include <gtest/gtest.h>

using namespace xt;

TEST(AtomicFile, CommitReplacesAndDropLeavesTheOldFile) {
    xt::test::TempDir dir;
    std::string path = dir.file("out.txt");
    xt::test::writeFile(path, "old");
    {
        auto f = AtomicFile::create(path);
        ASSERT_TRUE(f.isOk());
        f->write("new content");
        EXPECT_EQ(xt::test::readFile(path), "old"); // nothing visible before commit
    } // dropped: the old file stays, the temporary file is gone
    EXPECT_EQ(xt::test::readFile(path), "old");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
    auto f = AtomicFile::create(path);
    ASSERT_TRUE(f.isOk());
    f->write("new ");
    f->write("content");
    ASSERT_TRUE(f->commit().isOk());
    EXPECT_EQ(xt::test::readFile(path), "new content");
    EXPECT_FALSE(f->commit().isOk());
}

TEST(AtomicFile, ReportsUnwritableLocationsAndFullDisks) {
    EXPECT_FALSE(AtomicFile::create("/nonexistent/dir/out.txt").isOk());
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP();
    xt::test::TempDir dir;
    // A temporary file that is really /dev/full: every flush fails with ENOSPC.
    std::string path = dir.file("out.txt");
    std::filesystem::create_symlink("/dev/full", path + ".tmp-" + std::to_string(::getpid()));
    auto f = AtomicFile::create(path);
    ASSERT_TRUE(f.isOk());
    f->write(std::string(1 << 16, 'x'));
    Status st = f->commit();
    EXPECT_EQ(st.code(), ErrorCode::NoSpace) << st.toString();
    EXPECT_FALSE(std::filesystem::exists(path));
}
