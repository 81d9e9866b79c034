// Names that tell runs apart: own names, shortest distinguishing directory suffixes, hosts.
#include "core/xdl/run_names.h"

#include <gtest/gtest.h>

using namespace xt::xdl;
using Names = std::vector<std::string>;

TEST(RunNames, OwnNameWhenNoOtherRunHasIt) {
    EXPECT_EQ(distinctRunNames({{"", "/tmp/a/run", "train.trace"}}), Names{"train.trace"});
    EXPECT_EQ(distinctRunNames({{"", "/tmp/a/run", "train.trace"},
                                {"", "/tmp/a/run", "test.trace"},
                                {"", "/data/x", "train.demo"}}),
              (Names{"train.trace", "test.trace", "train.demo"}));
    EXPECT_EQ(distinctRunNames({}), Names{});
}

TEST(RunNames, EqualNamesAreToldApartByTheShortestDirectorySuffix) {
    EXPECT_EQ(
        distinctRunNames({{"", "/tmp/a/run", "train.trace"}, {"", "/tmp/b/run", "train.trace"}}),
        (Names{"a/run", "b/run"}));
    // One component is enough when the last directories differ; only the colliding runs count.
    EXPECT_EQ(distinctRunNames({{"", "/exp/lr0.1", "train.trace"},
                                {"", "/exp/lr0.01", "train.trace"},
                                {"", "/exp/lr0.1", "test.trace"}}),
              (Names{"lr0.1", "lr0.01", "test.trace"}));
    // Three runs: each takes as many components as it needs.
    EXPECT_EQ(distinctRunNames({{"", "/w/a/x/run", "t.trace"},
                                {"", "/w/b/x/run", "t.trace"},
                                {"", "/w/b/y/run", "t.trace"}}),
              (Names{"a/x/run", "b/x/run", "y/run"}));
    // A directory that is a suffix of another one: the whole path, absolute.
    EXPECT_EQ(distinctRunNames({{"", "/run", "t.trace"}, {"", "/x/run", "t.trace"}}),
              (Names{"/run", "x/run"}));
    // Trailing slashes and "." components do not count.
    EXPECT_EQ(distinctRunNames({{"", "/tmp/a/run/", "t.trace"}, {"", "/tmp/./b/run", "t.trace"}}),
              (Names{"a/run", "b/run"}));
}

TEST(RunNames, RemoteRunsAreCalledByHostAndPath) {
    EXPECT_EQ(distinctRunNames({{"nn:8020", "/user/me/exp", "train.trace"}}),
              Names{"nn:8020/user/me/exp"});
    // A local copy of the same directory stays apart from the remote run.
    EXPECT_EQ(distinctRunNames({{"nn:8020", "/user/me/exp", "train.trace"},
                                {"", "/home/me/exp", "train.trace"}}),
              (Names{"nn:8020/user/me/exp", "train.trace"}));
    // Two runs in one remote directory: their own names appended.
    EXPECT_EQ(distinctRunNames({{"nn", "/exp", "train.trace"}, {"nn", "/exp", "test.trace"}}),
              (Names{"nn/exp/train.trace", "nn/exp/test.trace"}));
}

TEST(RunNames, NamesAreAlwaysDistinct) {
    // The same run twice, and a directory suffix equal to another run's own name.
    EXPECT_EQ(distinctRunNames({{"", "/a/run", "t.trace"}, {"", "/a/run", "t.trace"}}),
              (Names{"/a/run", "/a/run (2)"}));
    const Names n = distinctRunNames(
        {{"", "/p/x", "t.trace"}, {"", "/q/y", "t.trace"}, {"", "/r", "x"}, {"", "", "t.trace"}});
    EXPECT_EQ(n, (Names{"x/t.trace", "y", "x", "t.trace"}));
    const Names many = distinctRunNames({{"", "", "n"}, {"", "", "n"}, {"", "", "n (2)"}});
    EXPECT_EQ(many, (Names{"n", "n (3)", "n (2)"}));
}
