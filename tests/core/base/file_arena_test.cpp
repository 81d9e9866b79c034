#include "core/base/file_arena.h"
#include "resident.h"
#include "temp_dir.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace xt;

namespace {
using test::openUnlinkedIn;
std::span<const std::byte> bytesOf(const std::vector<std::uint8_t>& v) {
    return std::as_bytes(std::span(v));
}
} // namespace

TEST(FileArena, KeepsPiecesInOneFileReadThroughItsMapping) {
    test::TempDir dir;
    auto arena = FileArena::inFolder(dir.str());
    EXPECT_EQ(FileArena::inFolder(dir.str()), arena); // one a folder while it lives
    std::mt19937 rng(3);
    std::vector<std::vector<std::uint8_t>> pieces;
    std::vector<FileArena::Kept> kept;
    for (int i = 0; i < 300; ++i) {
        std::vector<std::uint8_t> p(rng() % 5000); // empty and odd sizes too
        for (auto& b : p)
            b = std::uint8_t(rng());
        auto k = arena->keep(bytesOf(p));
        ASSERT_TRUE(k) << i;
        ASSERT_EQ(k->bytes.size(), p.size());
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(k->bytes.data()) % 8, 0u) << i;
        pieces.push_back(std::move(p));
        kept.push_back(std::move(*k));
    }
    for (std::size_t i = 0; i < pieces.size(); ++i)
        ASSERT_EQ(std::memcmp(kept[i].bytes.data(), pieces[i].data(), pieces[i].size()), 0) << i;
    // In a file mapping, not the process's memory; one file for all of them.
    EXPECT_EQ(test::smapsKbAt(kept[1].bytes.data(), "Anonymous"), 0u);
    EXPECT_GT(test::smapsKbAt(kept[1].bytes.data(), "Rss"), 0u);
    EXPECT_EQ(openUnlinkedIn(dir.str()), 1u);

    // A piece that does not fit what is left of the mapping starts another file; the first
    // stays readable while its pieces are held.
    std::vector<std::uint8_t> large((64u << 20) + 3, 0xa5); // over a mapping's 64 MiB
    auto a = arena->keep(bytesOf(large));
    ASSERT_TRUE(a);
    EXPECT_EQ(openUnlinkedIn(dir.str()), 1u); // the first file is closed, mapped by its pieces
    EXPECT_NE(a->keep, kept[0].keep);
    EXPECT_EQ(std::to_integer<int>(a->bytes.back()), 0xa5);
    EXPECT_EQ(std::memcmp(kept[7].bytes.data(), pieces[7].data(), pieces[7].size()), 0);
    auto after = arena->keep(bytesOf(pieces[9])); // the large piece's file took its all
    ASSERT_TRUE(after);
    EXPECT_NE(after->keep, a->keep);

    // Everything goes with the arena and its pieces.
    arena.reset();
    kept.clear();
    a.reset(), after.reset();
    EXPECT_EQ(openUnlinkedIn(dir.str()), 0u);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(FileArena, WhereNoFileCanBeMadeNothingIsKept) {
    test::TempDir dir;
    const std::string plain = dir.file("plain");
    std::ofstream(plain) << "x";
    auto arena = FileArena::inFolder(plain + "/arena"); // below a file: no folder there
    const std::vector<std::uint8_t> piece(100, 1);
    EXPECT_FALSE(arena->keep(bytesOf(piece)));
    EXPECT_FALSE(arena->keep(bytesOf(piece)));
}
