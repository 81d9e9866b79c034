// Fuzz target webhdfs_response: the input is [u16 HTTP code][u8 Location length][Location]
// [body]. The body goes through every WebHDFS response parser (FileStatus, ListStatus, boolean,
// RemoteException and the error classification) and the Location through the redirect check.
#include "core/storage/webhdfs_json.h"
#include "fuzz_targets.h"

#include <string_view>

namespace xt::fuzz {

int webhdfsResponse(const std::uint8_t* data, std::size_t size) {
    using namespace xt::storage;
    if (size < 3) return 0;
    const long code = long(data[0]) | long(data[1]) << 8;
    const std::size_t locLen = std::min<std::size_t>(data[2], size - 3);
    const std::string_view location(reinterpret_cast<const char*>(data + 3), locLen);
    const std::string_view body(reinterpret_cast<const char*>(data + 3 + locLen),
                                size - 3 - locLen);

    if (auto fs = parseFileStatusResponse(body, "GETFILESTATUS /f"); !fs)
        XT_FUZZ_CHECK(fs.status().code() == ErrorCode::Corrupt);
    if (auto ls = parseListStatusResponse(body, "LISTSTATUS /d"); !ls)
        XT_FUZZ_CHECK(ls.status().code() == ErrorCode::Corrupt);
    (void)parseBooleanResponse(body, "MKDIRS /d");
    RemoteException re = parseRemoteException(body);
    XT_FUZZ_CHECK(re.exception.size() <= body.size() && re.message.size() <= body.size());
    bool retryable = false;
    Status s = httpErrorStatus(code, body, "OPEN /f", retryable);
    XT_FUZZ_CHECK(!s.isOk());
    auto target = redirectTarget(code, location, "OPEN /f");
    if (target) XT_FUZZ_CHECK(isRedirect(code) && *target == location);
    return 0;
}

} // namespace xt::fuzz
