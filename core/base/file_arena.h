#pragma once
// Memory that a process need not hold: bytes that no longer change, kept in a file of the cache
// folder and read through a mapping of it.

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

namespace xt {

// A read-only mapping of `length` bytes of a file from its start (mapFileReadOnly). It may reach
// past the file's end, where nothing is read: a file being appended to is mapped once. Unmapped
// when it goes.
class FileMapping {
public:
    // Null when the file cannot be mapped.
    static std::shared_ptr<const FileMapping> map(int fd, std::size_t length);
    ~FileMapping();
    FileMapping(const FileMapping&) = delete;
    FileMapping& operator=(const FileMapping&) = delete;
    const std::byte* data() const { return m_data; }
    std::size_t length() const { return m_length; }

private:
    FileMapping(const std::byte* data, std::size_t length) : m_data(data), m_length(length) {}
    const std::byte* m_data;
    std::size_t m_length;
};

// Bytes that no longer change (the index records of a finished part, the sealed chunks of a
// series), appended to an unlinked file of a folder and read through a mapping of it: page
// cache, which the system can write out and drop, not the process's anonymous memory. All the
// pieces share one file descriptor and one mapping of 64 MiB at a time. Thread-safe.
class FileArena {
public:
    // The arena of `dir` in this process, made when none is alive.
    static std::shared_ptr<FileArena> inFolder(const std::string& dir);
    struct Kept {
        std::span<const std::byte> bytes; // in the mapping, 8-byte aligned
        std::shared_ptr<const void> keep; // the mapping, kept while they are read
    };
    // Copies `bytes` to the file. Nothing when it cannot be written or mapped, nor after that
    // (no file made again for each piece): the caller keeps its own.
    std::optional<Kept> keep(std::span<const std::byte> bytes);

    explicit FileArena(std::string dir);
    ~FileArena();

private:
    struct Chunk;
    std::mutex m_mutex;
    std::string m_dir;
    std::shared_ptr<Chunk> m_chunk; // the file written to now; full ones live in their Kept
    bool m_failed = false;
};

} // namespace xt
