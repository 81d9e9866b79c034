#pragma once
// A file descriptor closed with its owner, writing all of a buffer to one, and an unlinked
// scratch file.

#include "core/base/status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace xt {

class UniqueFd {
public:
    explicit UniqueFd(int fd = -1) : m_fd(fd) {}
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd();
    int get() const { return m_fd; }

private:
    int m_fd;
};

// Writes n bytes at p to fd, through short writes and EINTR; a failure is errnoStatus(what).
Status writeFully(int fd, const void* p, std::size_t n, const std::string& what);
// Reads n bytes of fd from `offset` to p, through short reads and EINTR: the bytes read, fewer
// than n where the file ends first; a failure is errnoStatus(what).
Result<std::size_t> readFullyAt(int fd, void* p, std::size_t n, std::uint64_t offset,
                                const std::string& what);

// A new file in `dir` (created if missing), already unlinked: its space goes with the last
// descriptor and mapping. For data too large to keep in memory (spilled summary columns, a large
// index's records). -1 when none can be made there.
int openUnlinkedFile(const std::string& dir, const std::string& namePrefix);

} // namespace xt
