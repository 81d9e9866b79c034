#pragma once
// Error values for core: a Status (ok or code + message) and Result<T> (a value or a Status).
// Core code never throws across its public interfaces; third-party exceptions are caught at the
// adapter that calls the library.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace xt {

enum class ErrorCode {
    Ok = 0,
    InvalidArgument, // the caller asked for something that cannot be done
    NotFound,        // a file, key, step or rank that does not exist
    IoError,         // the operating system refused a read or write
    Corrupt,         // the bytes do not follow the format
    Unsupported,     // valid input this version cannot handle
    Cancelled,       // a progress callback asked to stop
    PermissionDenied,
    NoSpace,
    Internal,
};

const char* errorCodeName(ErrorCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message) : m_code(code), m_message(std::move(message)) {}

    static Status ok() { return {}; }
    bool isOk() const { return m_code == ErrorCode::Ok; }
    explicit operator bool() const { return isOk(); }
    ErrorCode code() const { return m_code; }
    const std::string& message() const { return m_message; }
    // "Corrupt: <message>", or "ok".
    std::string toString() const;

private:
    ErrorCode m_code = ErrorCode::Ok;
    std::string m_message;
};

// Builds a Status from errno after a failed system call: "<what>: <strerror>".
Status errnoStatus(const std::string& what, int err);

template <class T> class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::move(value)) {}
    Result(Status status) : m_v(std::move(status)) { assert(!std::get<Status>(m_v).isOk()); }

    bool isOk() const { return m_v.index() == 0; }
    explicit operator bool() const { return isOk(); }
    const Status& status() const {
        static const Status kOk;
        return isOk() ? kOk : std::get<Status>(m_v);
    }
    T& value() & { return std::get<T>(m_v); }
    const T& value() const& { return std::get<T>(m_v); }
    T&& value() && { return std::get<T>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }

private:
    std::variant<T, Status> m_v;
};

} // namespace xt

// Returns early from a function returning Status or Result<T> when `expr` fails.
#define XT_RETURN_IF_ERROR(expr)                                                                   \
    do {                                                                                           \
        ::xt::Status xt_status_ = (expr);                                                          \
        if (!xt_status_.isOk()) return xt_status_;                                                 \
    } while (0)

// `XT_ASSIGN_OR_RETURN(auto file, MappedFile::open(path));`: evaluates the Result `expr` once;
// returns its Status from the enclosing function when it failed, else moves its value into `lhs`
// (a declaration or an existing variable). One statement; not for the body of an unbraced if.
#define XT_ASSIGN_OR_RETURN(lhs, expr)                                                             \
    XT_ASSIGN_OR_RETURN_IMPL_(XT_STATUS_CONCAT_(xt_result_, __LINE__), lhs, expr)
#define XT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)                                                  \
    auto tmp = (expr);                                                                             \
    if (!tmp.isOk()) return tmp.status();                                                          \
    lhs = std::move(tmp).value()
#define XT_STATUS_CONCAT_(a, b) XT_STATUS_CONCAT_IMPL_(a, b)
#define XT_STATUS_CONCAT_IMPL_(a, b) a##b
