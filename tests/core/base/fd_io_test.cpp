#include "core/base/fd_io.h"
#include "temp_dir.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

using namespace xt;

namespace {

bool isOpen(int fd) {
    return ::fcntl(fd, F_GETFD) != -1;
}

} // namespace

TEST(UniqueFd, MovesItsDescriptorAndClosesWhatItHeldOnResetOrAssignment) {
    xt::test::TempDir dir;
    const std::string path = dir.file("f");
    UniqueFd a(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    const int first = a.get();
    ASSERT_GE(first, 0);
    UniqueFd b(std::move(a));
    EXPECT_EQ(a.get(), -1);
    EXPECT_EQ(b.get(), first);
    EXPECT_TRUE(isOpen(first));

    UniqueFd c(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    const int second = c.get();
    ASSERT_GE(second, 0);
    b = std::move(c); // b's first descriptor is closed, c's moves over
    EXPECT_FALSE(isOpen(first));
    EXPECT_EQ(b.get(), second);
    EXPECT_EQ(c.get(), -1);
    b.reset();
    EXPECT_EQ(b.get(), -1);
    EXPECT_FALSE(isOpen(second));
}

TEST(ReadFullyAt, ReadsARangeShortAtTheEndAndReportsAFailure) {
    xt::test::TempDir dir;
    const std::string path = dir.file("f");
    const std::string text = "0123456789abcdef";
    {
        UniqueFd w(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
        ASSERT_TRUE(writeFully(w.get(), text.data(), text.size(), "write").isOk());
    }
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    std::string out(6, '#');
    auto n = readFullyAt(fd.get(), out.data(), 6, 4, "read f");
    ASSERT_TRUE(n.isOk());
    EXPECT_EQ(*n, 6u);
    EXPECT_EQ(out, "456789");
    n = readFullyAt(fd.get(), out.data(), 6, 13, "read f"); // the file ends first
    ASSERT_TRUE(n.isOk());
    EXPECT_EQ(*n, 3u);
    EXPECT_EQ(out.substr(0, 3), "def");
    n = readFullyAt(-1, out.data(), 6, 0, "read f");
    ASSERT_FALSE(n.isOk());
    EXPECT_NE(n.status().message().find("read f"), std::string::npos) << n.status().message();
}

TEST(WriteFullyAt, WritesAtAnOffsetLeavingTheRestAndReportsAFullDevice) {
    xt::test::TempDir dir;
    const std::string path = dir.file("f");
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    ASSERT_TRUE(writeFully(fd.get(), "0123456789", 10, "write").isOk());
    ASSERT_TRUE(writeFullyAt(fd.get(), "ab", 2, 3, "write f").isOk());
    ASSERT_TRUE(writeFullyAt(fd.get(), "xy", 2, 12, "write f").isOk()); // past the end: a hole
    std::string out(14, '#');
    auto n = readFullyAt(fd.get(), out.data(), out.size(), 0, "read f");
    ASSERT_TRUE(n.isOk());
    EXPECT_EQ(*n, 14u);
    EXPECT_EQ(out, std::string("012ab56789\0\0xy", 14));

    UniqueFd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
    if (full.get() < 0) GTEST_SKIP() << "no /dev/full";
    Status st = writeFullyAt(full.get(), "ab", 2, 0, "write rows of key k");
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("write rows of key k"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(std::strerror(ENOSPC)), std::string::npos) << st.message();
}
