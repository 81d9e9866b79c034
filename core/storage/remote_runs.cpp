#include "core/storage/remote_runs.h"

#include "core/base/diagnostic_codes.h"

namespace xt::storage {

Result<RemoteRuns> RemoteRuns::open(const std::vector<std::string>& paths, MirrorOptions options,
                                    const ProgressCallback& cb) {
    options.sparse = true;
    RemoteRuns out;
    out.m_mirror = std::make_unique<HdfsMirror>(std::move(options));
    for (const auto& p : paths) {
        if (!isHdfsUrl(p)) {
            out.m_localPaths.push_back(p);
            continue;
        }
        auto st = out.m_mirror->mirror(p, cb);
        if (!st) return st.status();
        out.m_localPaths.push_back(st->localPath);
        out.m_statuses.push_back(std::move(*st));
    }
    return out;
}

void RemoteRuns::attach(xdl::RunFiles& files, Diagnostics& diag) const {
    files.source = m_mirror->urlOf(files.directory);
    for (auto& rank : files.ranks)
        for (auto& part : rank.parts) {
            Status st = m_mirror->attach(part);
            if (!st)
                diag.add(codes::kUnreadablePart, part.displayPath(), Diagnostic::kNoOffset, -1,
                         st.message());
        }
}

std::string RemoteRuns::toUrls(std::string text) const {
    return m_mirror->toUrls(std::move(text));
}

std::uint64_t RemoteRuns::bytesFetched() const {
    std::uint64_t n = m_mirror->fetchContext()->bytesFetched();
    for (const auto& st : m_statuses)
        n += st.bytesFetched;
    return n;
}

Status RemoteRuns::upload(const std::string& url, std::string_view bytes) {
    auto parsed = parseHdfsUrl(url);
    if (!parsed) return parsed.status();
    return m_mirror->client().replace(*parsed, bytes);
}

} // namespace xt::storage
