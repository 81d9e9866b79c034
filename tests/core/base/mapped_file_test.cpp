#include "core/base/mapped_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

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
