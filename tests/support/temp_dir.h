#pragma once
// A fresh directory under the system temp folder, removed with everything in it when the
// object goes. Created with mkdtemp, so parallel test processes never share one.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace xt::test {

class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "xt_test_XXXXXX").string();
        if (::mkdtemp(tmpl.data())) m_path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    std::string str() const { return m_path.string(); }
    std::string file(const std::string& name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
};

// The files of `dir` this process holds open after unlinking them (spills, a FileArena's).
inline std::size_t openUnlinkedIn(const std::string& dir) {
    std::size_t n = 0;
    for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
        n += !ec && target.starts_with(dir + "/") && target.ends_with(" (deleted)");
    }
    return n;
}

} // namespace xt::test
