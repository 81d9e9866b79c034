#include "core/base/file_arena.h"

#include "core/base/fd_io.h"
#include "core/base/mapped_file.h"

#include <algorithm>
#include <map>
#include <sys/mman.h>

namespace xt {

namespace {
constexpr std::size_t kArenaReserveBytes = std::size_t(64) << 20; // a file's mapping, at least
constexpr std::size_t kAlign = 8;
} // namespace

std::shared_ptr<const FileMapping> FileMapping::map(int fd, std::size_t length) {
    void* p = mapFileReadOnly(fd, length);
    if (p == MAP_FAILED) return nullptr;
    return std::shared_ptr<const FileMapping>(
        new FileMapping(static_cast<const std::byte*>(p), length));
}

FileMapping::~FileMapping() {
    ::munmap(const_cast<std::byte*>(m_data), m_length);
}

struct FileArena::Chunk {
    explicit Chunk(int fd) : fd(fd) {}
    UniqueFd fd;
    std::shared_ptr<const FileMapping> mapping;
    std::size_t written = 0; // bytes in the file
};

FileArena::FileArena(std::string dir) : m_dir(std::move(dir)) {}
FileArena::~FileArena() = default;

std::shared_ptr<FileArena> FileArena::inFolder(const std::string& dir) {
    static std::mutex mutex;
    static std::map<std::string, std::weak_ptr<FileArena>> arenas;
    std::lock_guard lock(mutex);
    std::weak_ptr<FileArena>& slot = arenas[dir];
    auto arena = slot.lock();
    if (!arena) slot = arena = std::make_shared<FileArena>(dir);
    return arena;
}

std::optional<FileArena::Kept> FileArena::keep(std::span<const std::byte> bytes) {
    const std::size_t padded = (bytes.size() + kAlign - 1) / kAlign * kAlign;
    std::lock_guard lock(m_mutex);
    if (m_failed) return std::nullopt;
    if (!m_chunk || m_chunk->mapping->length() - m_chunk->written < padded) {
        auto chunk = std::make_shared<Chunk>(openUnlinkedFile(m_dir, ".arena"));
        if (chunk->fd.get() >= 0)
            chunk->mapping =
                FileMapping::map(chunk->fd.get(), std::max(padded, kArenaReserveBytes));
        m_failed = !chunk->mapping;
        if (m_failed) return std::nullopt;
        m_chunk = std::move(chunk); // a full one lives on in the pieces it kept
    }
    Chunk& chunk = *m_chunk;
    static constexpr std::byte kZeros[kAlign] = {};
    if (!writeFully(chunk.fd.get(), bytes.data(), bytes.size(), "").isOk() ||
        !writeFully(chunk.fd.get(), kZeros, padded - bytes.size(), "").isOk()) {
        m_chunk.reset(); // a disk full, most likely
        m_failed = true;
        return std::nullopt;
    }
    const std::byte* at = chunk.mapping->data() + chunk.written;
    chunk.written += padded;
    return Kept{{at, bytes.size()}, chunk.mapping};
}

} // namespace xt
