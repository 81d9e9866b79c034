#include "core/storage/webhdfs_json.h"

#include <fmt/format.h>
#include <simdjson.h>

namespace xt::storage {

namespace {

// Parses a response body with bounded size and depth; false when it is not such a document.
bool parseBody(simdjson::dom::parser& parser, std::string_view body, simdjson::dom::element& doc) {
    if (body.size() > kMaxJsonResponseBytes) return false;
    if (parser.allocate(std::max<std::size_t>(body.size(), 64), kMaxJsonDepth)) return false;
    return !parser.parse(body.data(), body.size(), true).get(doc);
}

Result<HdfsFileStatus> fileStatusOf(simdjson::dom::element e, std::string_view what) {
    if (!e.is_object())
        return Status(ErrorCode::Corrupt, fmt::format("{}: a FileStatus is not an object", what));
    HdfsFileStatus s;
    std::string_view sv;
    if (!e["pathSuffix"].get(sv)) s.name = sv;
    if (e["type"].get(sv))
        return Status(ErrorCode::Corrupt, fmt::format("{}: a FileStatus without a type", what));
    s.type = sv == "DIRECTORY" ? HdfsFileType::Directory
             : sv == "SYMLINK" ? HdfsFileType::Symlink
                               : HdfsFileType::File;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    if (!e["length"].get(u)) s.length = u;
    if (!e["modificationTime"].get(i)) s.modificationTime = i;
    if (!e["fileId"].get(i)) s.fileId = i;
    return s;
}

Status unexpected(std::string_view what, std::string_view body) {
    if (body.size() > kMaxJsonResponseBytes)
        return Status(ErrorCode::Corrupt, fmt::format("{}: response of {} bytes is over the {} "
                                                      "byte limit",
                                                      what, body.size(), kMaxJsonResponseBytes));
    return Status(ErrorCode::Corrupt, fmt::format("{}: unexpected response", what));
}

} // namespace

RemoteException parseRemoteException(std::string_view body) {
    RemoteException r;
    simdjson::dom::parser parser;
    simdjson::dom::element doc, re;
    if (!parseBody(parser, body, doc) || doc["RemoteException"].get(re)) return r;
    std::string_view sv;
    if (!re["exception"].get(sv)) r.exception = sv;
    if (!re["message"].get(sv)) r.message = sv;
    return r;
}

Result<HdfsFileStatus> parseFileStatusResponse(std::string_view body, std::string_view what) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc, fs;
    if (!parseBody(parser, body, doc) || doc["FileStatus"].get(fs)) return unexpected(what, body);
    return fileStatusOf(fs, what);
}

Result<std::vector<HdfsFileStatus>> parseListStatusResponse(std::string_view body,
                                                            std::string_view what) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    simdjson::dom::array arr;
    if (!parseBody(parser, body, doc) || doc["FileStatuses"]["FileStatus"].get(arr))
        return unexpected(what, body);
    std::vector<HdfsFileStatus> out;
    for (auto e : arr) {
        XT_ASSIGN_OR_RETURN(HdfsFileStatus s, fileStatusOf(e, what));
        out.push_back(std::move(s));
    }
    return out;
}

Result<bool> parseBooleanResponse(std::string_view body, std::string_view what) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    bool b = false;
    if (!parseBody(parser, body, doc) || doc["boolean"].get(b)) return unexpected(what, body);
    return b;
}

Status httpErrorStatus(long code, std::string_view body, std::string_view what, bool& retryable) {
    RemoteException re = parseRemoteException(body);
    std::string msg = re.message.empty() ? fmt::format("HTTP {}", code) : re.message;
    std::string text = fmt::format("{}: {}", what, msg);
    retryable = false;
    if (re.exception == "FileNotFoundException" || (re.exception.empty() && code == 404))
        return Status(ErrorCode::NotFound, text);
    // The exception's class decides before the status code: Hadoop answers a standby namenode
    // and other IOExceptions with HTTP 403, and its own client fails over on the class name.
    auto denied = [&] {
        return Status(ErrorCode::PermissionDenied,
                      code == 401 && re.message.empty()
                          ? fmt::format("{}: authentication required (HTTP 401)", what)
                          : text);
    };
    if (re.exception == "AccessControlException" || re.exception == "SecurityException" ||
        re.exception == "AuthorizationException")
        return denied();
    if (re.exception == "StandbyException") {
        retryable = true;
        return Status(ErrorCode::IoError,
                      fmt::format("{}: the namenode is in standby (HA failover?): {}", what, msg));
    }
    const bool transient = re.exception == "RetriableException" ||
                           re.exception == "SafeModeException" ||
                           re.exception == "RecoveryInProgressException" ||
                           re.exception == "AlreadyBeingCreatedException";
    if (!transient && (code == 401 || code == 403)) return denied();
    if (transient || code >= 500) {
        retryable = true;
        return Status(ErrorCode::IoError, re.exception.empty()
                                              ? text
                                              : fmt::format("{}: {}: {}", what, re.exception, msg));
    }
    if (re.exception == "IllegalArgumentException" || code == 400)
        return Status(ErrorCode::InvalidArgument, text);
    if (re.exception == "UnsupportedOperationException")
        return Status(ErrorCode::Unsupported, text);
    if (re.exception == "FileAlreadyExistsException")
        return Status(ErrorCode::InvalidArgument, fmt::format("{}: already exists: {}", what, msg));
    return Status(ErrorCode::IoError,
                  re.exception.empty() ? text : fmt::format("{}: {}: {}", what, re.exception, msg));
}

Result<std::string> redirectTarget(long code, std::string_view location, std::string_view what) {
    if (!isRedirect(code))
        return Status(ErrorCode::IoError, fmt::format("{}: HTTP {} is not a redirect", what, code));
    if (location.empty())
        return Status(ErrorCode::IoError, fmt::format("{}: redirect without a Location", what));
    if (location.substr(0, 7) != "http://" && location.substr(0, 8) != "https://")
        return Status(ErrorCode::IoError, fmt::format("{}: redirect to a non-HTTP Location", what));
    return std::string(location);
}

} // namespace xt::storage
