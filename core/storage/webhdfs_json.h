#pragma once
// The WebHDFS response parser: pure functions from a response's status code, body and Location
// header to values or Statuses, with no network and no curl. WebHdfsClient uses them for every
// response it reads; the fuzz target tests/fuzz/fuzz_webhdfs_response.cpp runs them on arbitrary
// bytes. Bodies are untrusted: anything unexpected is ErrorCode::Corrupt with the operation named.

#include "core/base/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xt::storage {

enum class HdfsFileType { File, Directory, Symlink };

struct HdfsFileStatus {
    std::string name; // pathSuffix: the entry name in a listing, empty for GETFILESTATUS
    HdfsFileType type = HdfsFileType::File;
    std::uint64_t length = 0;
    std::int64_t modificationTime = 0; // ms since the epoch
    std::int64_t fileId = 0;           // inode id; 0 when the server does not report it
};

// Bounds on what a response may hold; more is Corrupt rather than memory spent on it.
inline constexpr std::size_t kMaxJsonResponseBytes = 256u << 20; // a LISTSTATUS of ~1M entries
inline constexpr std::size_t kMaxJsonDepth = 64;                 // WebHDFS nests 3 levels

struct RemoteException {
    std::string exception; // "FileNotFoundException", ...; empty when the body is not one
    std::string message;
};

// {"RemoteException": {"exception": ..., "message": ...}}; empty fields for any other body.
RemoteException parseRemoteException(std::string_view body);
// GETFILESTATUS: {"FileStatus": {...}}. `what` names the request in errors.
Result<HdfsFileStatus> parseFileStatusResponse(std::string_view body, std::string_view what);
// LISTSTATUS: {"FileStatuses": {"FileStatus": [...]}}.
Result<std::vector<HdfsFileStatus>> parseListStatusResponse(std::string_view body,
                                                            std::string_view what);
// MKDIRS, DELETE: {"boolean": true|false}.
Result<bool> parseBooleanResponse(std::string_view body, std::string_view what);
// The Status of a finished exchange that did not succeed (HTTP code + RemoteException body);
// `retryable` says whether another attempt may succeed (standby, safe mode, 5xx).
Status httpErrorStatus(long code, std::string_view body, std::string_view what, bool& retryable);
// Whether `code` is a redirect and `location` a usable http(s) URL to follow: Ok with the URL,
// or IoError saying what is wrong ("redirect without a Location", a non-HTTP scheme).
Result<std::string> redirectTarget(long code, std::string_view location, std::string_view what);
inline bool isRedirect(long code) {
    return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
}

} // namespace xt::storage
