#include "core/base/status.h"

#include <cerrno>
#include <gtest/gtest.h>
#include <memory>

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

static int evaluations = 0;
static Result<std::unique_ptr<int>> quarter(int v) {
    ++evaluations;
    XT_ASSIGN_OR_RETURN(int h, half(v));
    XT_ASSIGN_OR_RETURN(const int q, half(h));
    return std::make_unique<int>(q);
}

static Status storeQuarter(int v, std::unique_ptr<int>& out) {
    XT_ASSIGN_OR_RETURN(out, quarter(v)); // an existing variable; the value is moved, not copied
    return Status::ok();
}

TEST(Result, AssignOrReturn) {
    evaluations = 0;
    auto q = quarter(8);
    ASSERT_TRUE(q.isOk());
    EXPECT_EQ(**q, 2);
    EXPECT_EQ(quarter(6).status().message(), "odd"); // the second step fails: 6 / 2 = 3
    EXPECT_EQ(quarter(5).status().code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(evaluations, 3);
    std::unique_ptr<int> out;
    ASSERT_TRUE(storeQuarter(12, out).isOk());
    ASSERT_TRUE(out);
    EXPECT_EQ(*out, 3);
    EXPECT_EQ(storeQuarter(7, out).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(*out, 3); // untouched by the failed call
    EXPECT_EQ(evaluations, 5);
}

TEST(Status, ErrnoMapping) {
    EXPECT_EQ(errnoStatus("x", ENOENT).code(), ErrorCode::NotFound);
    EXPECT_EQ(errnoStatus("x", EACCES).code(), ErrorCode::PermissionDenied);
    EXPECT_EQ(errnoStatus("x", ENOSPC).code(), ErrorCode::NoSpace);
    EXPECT_EQ(errnoStatus("x", EIO).code(), ErrorCode::IoError);
}
