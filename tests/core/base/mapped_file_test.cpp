#include "core/base/mapped_file.h"
#include "resident.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace xt;
namespace fs = std::filesystem;

namespace {
fs::path tempPath(const char* name) {
    return fs::temp_directory_path() / (std::string("xt_mf_") + std::to_string(::getpid()) + name);
}
} // namespace

TEST(MappedFile, MapsContentAndGrows) {
    auto path = tempPath("grow");
    { std::ofstream(path, std::ios::binary) << "abc"; }
    auto f = MappedFile::open(path.string());
    ASSERT_TRUE(f.isOk()) << f.status().toString();
    EXPECT_EQ(f->size(), 3u);
    EXPECT_EQ(f->bytes()[2], 'c');
    auto same = f->refresh();
    ASSERT_TRUE(same.isOk());
    EXPECT_FALSE(*same);
    { std::ofstream(path, std::ios::binary | std::ios::app) << "defg"; }
    auto grown = f->refresh();
    ASSERT_TRUE(grown.isOk());
    EXPECT_TRUE(*grown);
    EXPECT_EQ(f->size(), 7u);
    EXPECT_EQ(f->bytes()[6], 'g');
    fs::resize_file(path, 2);
    auto shrunk = f->refresh();
    EXPECT_FALSE(shrunk.isOk());
    EXPECT_EQ(shrunk.status().code(), ErrorCode::Corrupt);
    fs::remove(path);
}

TEST(MappedFile, EmptyFileIsEmptySpan) {
    auto path = tempPath("empty");
    { std::ofstream(path, std::ios::binary); }
    auto f = MappedFile::open(path.string());
    ASSERT_TRUE(f.isOk());
    EXPECT_EQ(f->size(), 0u);
    EXPECT_TRUE(f->bytes().empty());
    fs::remove(path);
}

TEST(MappedFile, MissingFileAndDirectory) {
    auto f = MappedFile::open("/nonexistent/xt/file");
    ASSERT_FALSE(f.isOk());
    EXPECT_EQ(f.status().code(), ErrorCode::NotFound);
    EXPECT_NE(f.status().message().find("/nonexistent/xt/file"), std::string::npos);
    auto d = MappedFile::open(fs::temp_directory_path().string());
    ASSERT_FALSE(d.isOk());
}

namespace {
long residentPages(const void* addr) {
    return long(xt::test::residentKbAt(addr) * 1024 / std::uint64_t(::sysconf(_SC_PAGESIZE)));
}
} // namespace

// A run of 1024 ranks x 3 parts maps more files than the usual soft limit of 1024 descriptors:
// running out raises the soft limit to the hard one. In a child, whose limits are its own.
TEST(MappedFile, MoreFilesThanTheSoftDescriptorLimit) {
    auto path = tempPath("many");
    std::ofstream(path, std::ios::binary) << "0123456789";
    rlimit r{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &r), 0);
    if (r.rlim_max != RLIM_INFINITY && r.rlim_max < 400)
        GTEST_SKIP() << "hard limit " << r.rlim_max;
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit low = r;
        low.rlim_cur = 64;
        if (::setrlimit(RLIMIT_NOFILE, &low) != 0) ::_exit(2);
        std::vector<MappedFile> files;
        for (int i = 0; i < 300; ++i) {
            auto f = MappedFile::open(path.string());
            if (!f || f->bytes().size() != 10) ::_exit(3);
            files.push_back(std::move(*f));
        }
        rlimit now{};
        ::getrlimit(RLIMIT_NOFILE, &now);
        ::_exit(now.rlim_cur == r.rlim_max ? 0 : 4);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "3: a file could not be opened; 4: the limit was not raised";
    fs::remove(path);
}

TEST(MappedFile, ReleaseDropsResidentPagesAndKeepsBytesReadable) {
    auto path = tempPath("release");
    const std::size_t size = 32u << 20;
    {
        std::ofstream out(path, std::ios::binary);
        std::string block(1 << 20, '\0');
        for (std::size_t i = 0; i < size >> 20; ++i) {
            for (std::size_t j = 0; j < block.size(); ++j)
                block[j] = char((i * 131 + j) & 0x7f);
            out << block;
        }
    }
    auto f = MappedFile::open(path.string());
    ASSERT_TRUE(f.isOk());
    const long page = ::sysconf(_SC_PAGESIZE);
    auto touch = [&](std::size_t from, std::size_t to) {
        unsigned sum = 0;
        for (std::size_t i = from; i < to; i += std::size_t(page))
            sum += f->bytes()[i];
        return sum;
    };
    const void* mapping = f->bytes().data();
    const long before = residentPages(mapping);
    const unsigned sum = touch(0, size);
    const long touched = residentPages(mapping) - before;
    EXPECT_GE(touched, long(size / std::size_t(page)) * 9 / 10);
    // Unaligned bounds: only the whole pages inside are dropped.
    f->release(100, size - 200);
    const long afterRelease = residentPages(mapping) - before;
    EXPECT_LE(afterRelease, 4) << "pages left after release";
    EXPECT_EQ(touch(0, size), sum); // mapped in again on access
    EXPECT_EQ(f->bytes()[size - 1], char(((size >> 20) - 1) * 131 + (1 << 20) - 1) & 0x7f);
    f->release(size + 5, 10); // beyond the end: nothing happens
    fs::remove(path);
}

// A file just written sits in the page cache in large folios where the kernel has them (6.x on
// ext4, tmpfs); a mapping aligned with them maps a whole 2 MiB folio at one touch. The mapping
// is placed so that one touch maps the kernel's fault-around piece (64 KiB) at most.
TEST(MappedFile, OneTouchMapsAPieceNotAWholeLargeFolio) {
    auto path = tempPath("touch");
    const std::size_t size = 8u << 20;
    {
        std::ofstream out(path, std::ios::binary);
        out << std::string(size, 'x');
    }
    auto f = MappedFile::open(path.string());
    ASSERT_TRUE(f.isOk());
    const std::uint8_t* bytes = f->bytes().data();
    const std::size_t at = 3u << 20; // inside the file's second 2 MiB
    EXPECT_EQ(bytes[at + 123], 'x');
    EXPECT_LE(xt::test::residentKbIn(bytes + at - (1u << 20), 2u << 20), 64u);
    EXPECT_LE(xt::test::residentKbAt(bytes), 64u);
    EXPECT_EQ(bytes[size - 1], 'x'); // the whole file is readable
    f->release(0, size);
    EXPECT_EQ(xt::test::residentKbIn(bytes, size), 0u);
    fs::remove(path);
}

// A mapping for scans lies on a 2 MiB boundary, where the kernel can map a large folio whole;
// one for lookups one page past it. Placing it again maps the same bytes; a refresh keeps it.
TEST(MappedFile, APlacementForScansLiesOnA2MiBBoundary) {
    auto path = tempPath("place");
    std::string text(5u << 20, '\0');
    for (std::size_t i = 0; i < text.size(); ++i)
        text[i] = char('a' + i % 29);
    { std::ofstream(path, std::ios::binary) << text; }
    const auto offset = [](const MappedFile& f) {
        return reinterpret_cast<std::uintptr_t>(f.bytes().data()) % (2u << 20);
    };
    auto f = MappedFile::open(path.string());
    ASSERT_TRUE(f.isOk());
    EXPECT_EQ(offset(*f), static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE)));
    ASSERT_TRUE(f->place(MapPlacement::Scans).isOk());
    EXPECT_EQ(offset(*f), 0u);
    EXPECT_EQ(std::memcmp(f->bytes().data(), text.data(), text.size()), 0);
    { std::ofstream(path, std::ios::binary | std::ios::app) << std::string(3u << 20, 'z'); }
    ASSERT_TRUE(f->refresh().isOk());
    EXPECT_EQ(f->size(), 8u << 20);
    EXPECT_EQ(offset(*f), 0u);
    EXPECT_EQ(f->bytes()[(8u << 20) - 1], 'z');
    auto scans = MappedFile::open(path.string(), MapPlacement::Scans);
    ASSERT_TRUE(scans.isOk());
    EXPECT_EQ(offset(*scans), 0u);
    ASSERT_TRUE(scans->place(MapPlacement::Lookups).isOk());
    EXPECT_EQ(offset(*scans), static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE)));
    EXPECT_EQ(std::memcmp(scans->bytes().data(), text.data(), text.size()), 0);
    fs::remove(path);
}

// A scan about to read a range maps it in one call; nothing outside the range is mapped, and the
// bytes read are the file's.
TEST(MappedFile, PopulateMapsTheRangeAndNothingElse) {
    auto path = tempPath("populate");
    const std::size_t size = 8u << 20;
    std::string text(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        text[i] = char('a' + i % 23);
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    auto f = MappedFile::open(path.string());
    ASSERT_TRUE(f.isOk());
    const std::uint8_t* bytes = f->bytes().data();
    populateMappedPages(bytes, size, (1u << 20) + 100, 3u << 20); // unaligned start
#ifdef MADV_POPULATE_READ
    if (xt::test::residentKbIn(bytes + (2u << 20), 1u << 20) == 0)
        GTEST_SKIP() << "MADV_POPULATE_READ is not supported by this kernel";
    // The range's pages, from the page holding its first byte.
    EXPECT_GE(xt::test::residentKbIn(bytes + (1u << 20), 3u << 20), 3u << 10);
#endif
    // Around it, at most the kernel's fault-around piece (64 KiB) at either end.
    EXPECT_LE(xt::test::residentKbIn(bytes, 1u << 20), 64u);
    EXPECT_EQ(xt::test::residentKbIn(bytes, (1u << 20) - (64u << 10)), 0u);
    EXPECT_EQ(xt::test::residentKbIn(bytes + (5u << 20), 3u << 20), 0u);
    EXPECT_EQ(std::memcmp(bytes, text.data(), size), 0);
    // Past the end, or reaching past it: only the file's pages.
    populateMappedPages(bytes, size, size + 5, 10);
    populateMappedPages(bytes, size, size - 10, 1u << 20);
    populateMappedPages(nullptr, size, 0, size);
    EXPECT_EQ(bytes[size - 1], std::uint8_t(text[size - 1]));
    fs::remove(path);
}
