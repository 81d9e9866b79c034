#include "core/base/status.h"

#include <cstring>

namespace xt {

const char* errorCodeName(ErrorCode code) {
    switch (code) {
    case ErrorCode::Ok:
        return "ok";
    case ErrorCode::InvalidArgument:
        return "invalid argument";
    case ErrorCode::NotFound:
        return "not found";
    case ErrorCode::IoError:
        return "i/o error";
    case ErrorCode::Corrupt:
        return "corrupt";
    case ErrorCode::Unsupported:
        return "unsupported";
    case ErrorCode::Cancelled:
        return "cancelled";
    case ErrorCode::PermissionDenied:
        return "permission denied";
    case ErrorCode::NoSpace:
        return "no space";
    case ErrorCode::Internal:
        return "internal error";
    }
    return "unknown";
}

std::string Status::toString() const {
    if (isOk()) return "ok";
    return std::string(errorCodeName(m_code)) + ": " + m_message;
}

Status errnoStatus(const std::string& what, int err) {
    ErrorCode code = ErrorCode::IoError;
    if (err == ENOENT || err == ENOTDIR)
        code = ErrorCode::NotFound;
    else if (err == EACCES || err == EPERM || err == EROFS)
        code = ErrorCode::PermissionDenied;
    else if (err == ENOSPC || err == EDQUOT)
        code = ErrorCode::NoSpace;
    return {code, what + ": " + std::strerror(err)};
}

} // namespace xt
