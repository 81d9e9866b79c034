#include "core/base/status.h"

#include <cerrno>
#include <gtest/gtest.h>

using namespace xt;

static Result<int> half(int v) {
    if (v % 2) return Status(ErrorCode::InvalidArgument, "odd");
    return v / 2;
}

static Status chain(int v) {
    XT_RETURN_IF_ERROR(half(v).status());
    return Status::ok();
}

TEST(Status, OkAndError) {
    EXPECT_TRUE(Status::ok().isOk());
    Status s(ErrorCode::Corrupt, "bad length");
    EXPECT_FALSE(s.isOk());
    EXPECT_EQ(s.toString(), "corrupt: bad length");
}

TEST(Result, ValueOrStatus) {
    auto r = half(4);
    ASSERT_TRUE(r.isOk());
    EXPECT_EQ(*r, 2);
    auto e = half(3);
    ASSERT_FALSE(e.isOk());
    EXPECT_EQ(e.status().code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(chain(3).code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(chain(2).isOk());
}

TEST(Status, ErrnoMapping) {
    EXPECT_EQ(errnoStatus("x", ENOENT).code(), ErrorCode::NotFound);
    EXPECT_EQ(errnoStatus("x", EACCES).code(), ErrorCode::PermissionDenied);
    EXPECT_EQ(errnoStatus("x", ENOSPC).code(), ErrorCode::NoSpace);
    EXPECT_EQ(errnoStatus("x", EIO).code(), ErrorCode::IoError);
}
