#include "core/base/diagnostics.h"

#include <gtest/gtest.h>

using namespace xt;

TEST(Diagnostics, CountsEverythingStoresAFew) {
    Diagnostics d(3);
    for (int i = 0; i < 10; ++i)
        d.add(Severity::Error, "bad-length", "f.bin", 100u + i, i, "length too large");
    d.add(Severity::Warning, "missing-header", "f.bin", 0, -1, "no header");
    EXPECT_EQ(d.total(), 11u);
    EXPECT_EQ(d.errorCount(), 10u);
    EXPECT_EQ(d.items().size(), 4u);
    EXPECT_EQ(d.countsByCode().at("bad-length"), 10u);
    EXPECT_EQ(d.items()[0].toString(), "f.bin:100: record 0: error: length too large [bad-length]");
}

TEST(Diagnostics, MergeKeepsCountsAndCap) {
    Diagnostics a(2), b(2);
    a.add(Severity::Warning, "x", "a", 1, -1, "one");
    for (int i = 0; i < 5; ++i)
        b.add(Severity::Error, "x", "b", i, -1, "many");
    a.merge(b);
    EXPECT_EQ(a.total(), 6u);
    EXPECT_EQ(a.errorCount(), 5u);
    EXPECT_EQ(a.countsByCode().at("x"), 6u);
    EXPECT_EQ(a.items().size(), 2u);
}
