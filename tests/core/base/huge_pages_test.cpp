#include "core/base/huge_pages.h"
#include "resident.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

using namespace xt;

namespace {

bool kernelHasHugePages() {
    std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(mode, modes);
    return !modes.empty();
}

bool advised(const void* p) {
    return xt::test::smapsFieldAt(p, "VmFlags").find(" hg") != std::string::npos;
}

} // namespace

TEST(HugePages, AVectorGrowsIntoAdvisedBlocksOnA2MiBBoundaryAndGivesThemBack) {
    if (!kernelHasHugePages()) GTEST_SKIP() << "no transparent huge pages in this kernel";
    HugePageVector<std::uint64_t> v;
    const void* large = nullptr;
    for (std::uint64_t i = 0; i < (std::uint64_t(24) << 20) / 8; ++i) {
        v.push_back(i);
        // Below kHugePageBlockBytes: the heap's memory, as std::vector's.
        if (v.size() == 1000) EXPECT_FALSE(advised(v.data()));
        if (!large && v.capacity() * 8 >= kHugePageBlockBytes) {
            large = v.data();
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large) % kHugePageBytes, 0u);
            EXPECT_TRUE(advised(large));
        }
    }
    ASSERT_NE(large, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kHugePageBytes, 0u);
    EXPECT_TRUE(advised(v.data()));
    EXPECT_TRUE(advised(v.data() + v.size() - 1));
    // Every element survived the moves from block to block.
    std::uint64_t expected = 0;
    for (std::uint64_t x : v)
        ASSERT_EQ(x, expected++);
    // The block is given back with the vector (a later mapping may take its place, but not an
    // advised one).
    const void* last = v.data();
    HugePageVector<std::uint64_t>().swap(v);
    EXPECT_FALSE(advised(last)) << xt::test::smapsFieldAt(last, "VmFlags");
}

TEST(HugePages, ABlockTooLargeToMapIsBadAlloc) {
    EXPECT_THROW(allocateHugePageBlock(~std::size_t(0) - 4096), std::bad_alloc);
    EXPECT_THROW(allocateHugePageBlock(std::size_t(1) << 62), std::bad_alloc);
    freeHugePageBlock(nullptr, std::size_t(1) << 30); // nothing to give back
}

TEST(HugePages, AddressSpaceIsReservedAtTheShiftPastABoundaryAndNothingAroundIt) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    // msync: 0 on a mapped page (even one without access), ENOMEM where nothing is mapped.
    const auto mapped = [&](std::uintptr_t at) {
        return ::msync(reinterpret_cast<void*>(at), page, MS_ASYNC) == 0;
    };
    for (const std::size_t shift : {std::size_t(0), page}) {
        // A size that is not a whole number of pages: its last page is reserved whole.
        const std::size_t size = (5u << 20) + 100;
        void* p = reserveOnHugePageBoundary(size, shift);
        ASSERT_NE(p, nullptr);
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        EXPECT_EQ(at % kHugePageBytes, shift);
        const std::uintptr_t end = at + (size + page - 1) / page * page;
        EXPECT_TRUE(mapped(at));
        EXPECT_TRUE(mapped(end - page));
        // The slide's room after it is given back, and before it where the shift leaves room
        // (with no shift, what lies before may be another mapping).
        EXPECT_FALSE(mapped(end));
        if (shift > 0) EXPECT_FALSE(mapped(at - page));
        // A file or memory can be mapped over it, where it is.
        void* over =
            ::mmap(p, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        ASSERT_EQ(over, p);
        static_cast<char*>(over)[size - 1] = 1;
        ::munmap(p, size);
        EXPECT_FALSE(mapped(at));
    }
}
