#include "core/base/fd_io.h"
#include "temp_dir.h"

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
