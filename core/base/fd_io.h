#pragma once
// A file descriptor closed with its owner, writing all of a buffer to one, and an unlinked
// scratch file.

#include "core/base/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace xt {

class UniqueFd {
public:
    explicit UniqueFd(int fd = -1) : m_fd(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        reset(std::exchange(other.m_fd, -1));
        return *this;
    }
    ~UniqueFd() { reset(); }
    int get() const { return m_fd; }
    // Closes the descriptor held, if any, and holds `fd`.
    void reset(int fd = -1);

private:
    int m_fd;
};

// Writes n bytes at p to fd, through short writes and EINTR; a failure is errnoStatus(what).
Status writeFully(int fd, const void* p, std::size_t n, const std::string& what);
// Writes n bytes at p to fd from `offset`, through short writes and EINTR; a failure is
// errnoStatus(what) (ENOSPC where a write takes no byte).
Status writeFullyAt(int fd, const void* p, std::size_t n, std::uint64_t offset,
                    const std::string& what);
// Reads n bytes of fd from `offset` to p, through short reads and EINTR: the bytes read, fewer
// than n where the file ends first; a failure is errnoStatus(what).
Result<std::size_t> readFullyAt(int fd, void* p, std::size_t n, std::uint64_t offset,
                                const std::string& what);

// A new file in `dir` (created if missing), already unlinked: its space goes with the last
// descriptor and mapping. For data too large to keep in memory (spilled summary columns, a large
// index's records). -1 when none can be made there.
int openUnlinkedFile(const std::string& dir, const std::string& namePrefix);

} // namespace xt
