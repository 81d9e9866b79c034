#pragma once
// Output files that appear whole or not at all: data goes to "<path>.tmp-<pid>" and is renamed
// over `path` by commit(). Dropping an uncommitted AtomicFile removes the temporary file, so a
// failed or cancelled export never leaves a half-written file or clobbers an older one.

#include "core/base/status.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace xt {

// "<path>.tmp-<pid>": where an output is written before commitTemporary() renames it.
std::string temporaryPathFor(const std::string& path);
// Renames a finished temporary file over `path`.
Status commitTemporary(const std::string& tmp, const std::string& path);

class AtomicFile {
public:
    static Result<AtomicFile> create(const std::string& path);
    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    ~AtomicFile();

    // Buffered write; errors are sticky and reported by commit().
    void write(std::string_view bytes);
    Status commit();
    const std::string& path() const { return m_path; }
    const std::string& tempPath() const { return m_tmp; }

private:
    AtomicFile(std::string path, std::string tmp, std::FILE* f)
        : m_path(std::move(path)), m_tmp(std::move(tmp)), m_file(f) {}

    std::string m_path, m_tmp;
    std::FILE* m_file = nullptr;
    int m_errno = 0;
    bool m_committed = false;
};

} // namespace xt
