// The WebHDFS response parser on its own: values, errors and bounds, without a server.
#include "core/storage/webhdfs_json.h"

#include <gtest/gtest.h>

using namespace xt;
using namespace xt::storage;

TEST(WebHdfsJson, FileStatusAndListing) {
    auto fs = parseFileStatusResponse(R"({"FileStatus":{"pathSuffix":"","type":"FILE",)"
                                      R"("length":12,"modificationTime":1700000000000,)"
                                      R"("fileId":16386}})",
                                      "GETFILESTATUS /f");
    ASSERT_TRUE(fs.isOk()) << fs.status().toString();
    EXPECT_EQ(fs->type, HdfsFileType::File);
    EXPECT_EQ(fs->length, 12u);
    EXPECT_EQ(fs->modificationTime, 1700000000000);
    EXPECT_EQ(fs->fileId, 16386);
    auto ls =
        parseListStatusResponse(R"({"FileStatuses":{"FileStatus":[{"pathSuffix":"a",)"
                                R"("type":"DIRECTORY"},{"pathSuffix":"b","type":"SYMLINK"}]}})",
                                "LISTSTATUS /d");
    ASSERT_TRUE(ls.isOk());
    ASSERT_EQ(ls->size(), 2u);
    EXPECT_EQ((*ls)[0].name, "a");
    EXPECT_EQ((*ls)[0].type, HdfsFileType::Directory);
    EXPECT_EQ((*ls)[1].type, HdfsFileType::Symlink);
}

TEST(WebHdfsJson, MalformedAnswersAreCorruptAndNamed) {
    for (const char* body : {"", "not json", R"({"FileStatus":5})", R"({"FileStatus":{}})",
                             R"({"FileStatuses":{"FileStatus":[1]}})"}) {
        auto fs = parseFileStatusResponse(body, "GETFILESTATUS /f");
        ASSERT_FALSE(fs.isOk()) << body;
        EXPECT_EQ(fs.status().code(), ErrorCode::Corrupt);
        EXPECT_NE(fs.status().message().find("GETFILESTATUS /f"), std::string::npos);
        EXPECT_FALSE(parseListStatusResponse(body, "LISTSTATUS /d").isOk()) << body;
    }
    // Deeper than kMaxJsonDepth: refused, not parsed.
    std::string deep = R"({"FileStatus":{"type":"FILE","x":)" + std::string(100, '[') +
                       std::string(100, ']') + "}}";
    EXPECT_EQ(parseFileStatusResponse(deep, "GETFILESTATUS /f").status().code(),
              ErrorCode::Corrupt);
    EXPECT_FALSE(parseBooleanResponse(R"({"boolean":"yes"})", "MKDIRS /d").isOk());
    EXPECT_EQ(*parseBooleanResponse(R"({"boolean":false})", "DELETE /d"), false);
}

TEST(WebHdfsJson, ErrorsAndRedirects) {
    bool retry = true;
    Status s = httpErrorStatus(
        403, R"({"RemoteException":{"exception":"AccessControlException","message":"no"}})",
        "OPEN /f", retry);
    EXPECT_EQ(s.code(), ErrorCode::PermissionDenied);
    EXPECT_FALSE(retry);
    s = httpErrorStatus(403, R"({"RemoteException":{"exception":"StandbyException"}})", "OPEN /f",
                        retry);
    EXPECT_EQ(s.code(), ErrorCode::IoError);
    EXPECT_TRUE(retry);
    // Hadoop sends these with 403: the class, not the code, makes them retryable.
    s = httpErrorStatus(403, R"({"RemoteException":{"exception":"SafeModeException"}})", "OPEN /f",
                        retry);
    EXPECT_EQ(s.code(), ErrorCode::IoError);
    EXPECT_TRUE(retry);
    EXPECT_EQ(httpErrorStatus(403, "", "OPEN /f", retry).code(), ErrorCode::PermissionDenied);
    EXPECT_EQ(httpErrorStatus(404, "<html>", "OPEN /f", retry).code(), ErrorCode::NotFound);
    EXPECT_EQ(*redirectTarget(307, "http://dn:9864/x", "OPEN /f"), "http://dn:9864/x");
    EXPECT_NE(redirectTarget(307, "", "OPEN /f").status().message().find("without a Location"),
              std::string::npos);
    EXPECT_FALSE(redirectTarget(307, "file:///etc/passwd", "OPEN /f").isOk());
    EXPECT_FALSE(redirectTarget(200, "http://dn/x", "OPEN /f").isOk());
}
