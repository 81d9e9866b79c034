#include "core/summary/summary_store.h"

#include "core/base/diagnostic_codes.h"
#include "core/base/fd_io.h"
#include "core/base/mapped_file.h"
#include "core/summary/summary_builder.h"
#include "core/xdl/trace_reader.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace xt::summary {

namespace {

constexpr std::string_view kSuffix = ".xts";

struct PartStat {
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
};

std::optional<PartStat> statPart(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return PartStat{std::uint64_t(st.st_size),
                    std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

Status readAt(int fd, std::uint64_t offset, std::size_t n, std::vector<std::uint8_t>& out,
              const std::string& path) {
    out.resize(n);
    XT_ASSIGN_OR_RETURN(const std::size_t done,
                        readFullyAt(fd, out.data(), n, offset, "cannot read " + path));
    if (done < n) return Status(ErrorCode::Corrupt, path + " is shorter than expected");
    return Status::ok();
}

// The identity source of a part: its URL when remote, else its resolved path.
std::string sourceOf(const xdl::PartFile& part) {
    return part.source.empty() ? partSource(part.path) : part.source;
}

// The fingerprints of the first `size` bytes of `part` (its head and the end of that prefix),
// read with two small reads (fetched first for a remote part).
Result<std::pair<std::uint64_t, std::uint64_t>> printsOf(const xdl::PartFile& part,
                                                         std::uint64_t size) {
    const std::string& path = part.path;
    const std::size_t n = std::size_t(std::min(size, PartIdentity::kPrintBytes));
    if (part.fetcher) {
        XT_RETURN_IF_ERROR(part.fetcher->ensure(0, n));
        XT_RETURN_IF_ERROR(part.fetcher->ensure(size - n, n));
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errnoStatus("cannot open " + path, errno);
    std::vector<std::uint8_t> buf;
    Status st = readAt(fd, 0, n, buf, path);
    std::uint64_t head = 0, tail = 0;
    if (st) {
        head = fingerprint(buf);
        st = readAt(fd, size - n, n, buf, path);
        tail = fingerprint(buf);
    }
    ::close(fd);
    if (!st) return st;
    return std::pair{head, tail};
}

bool directoryWritable(const std::string& dir) {
    return ::access(dir.empty() ? "." : dir.c_str(), W_OK | X_OK) == 0;
}

std::string readableTail(const std::string& source) {
    std::string name = fs::path(source).filename().string(), out;
    for (char c : name)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'
                   ? c
                   : '_';
    return out.size() > 64 ? out.substr(out.size() - 64) : out;
}

std::string hex16(std::uint64_t v) {
    static const char* digits = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4)
        s[std::size_t(i)] = digits[v & 15];
    return s;
}

struct Candidate {
    std::shared_ptr<const PartSummary> summary;
    std::string path;
    bool beside = false;
};

struct Lookup {
    Candidate exact;  // identity equal to the part's
    Candidate prefix; // of a prefix of the part (it grew since); the longest one
};

// Looks at the summary beside the part and the one in the cache; with `peek`, only at their
// overviews (peekSummary), for an exact one.
// `source` is computed when first needed (resolving links costs a system call per folder).
Lookup lookup(const xdl::PartFile& part, std::string& source, const PartStat& now,
              const StoreOptions& options, Diagnostics& diag, const ColumnTap& tap = {},
              bool peek = false) {
    Lookup out;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> nowPrints;
    for (bool beside : {true, false}) {
        if (!beside && source.empty()) source = sourceOf(part);
        const std::string path = beside ? besidePath(part.path) : cachePath(source, options);
        auto file = MappedFile::open(path);
        if (!file) {
            if (file.status().code() != ErrorCode::NotFound)
                diag.add(codes::kSummaryUnreadable, path, Diagnostic::kNoOffset, -1,
                         file.status().message());
            continue;
        }
        std::uint64_t at = 0;
        auto mapped = std::make_shared<const MappedFile>(std::move(*file));
        auto parsed = peek ? peekSummary(std::move(mapped), path, &at)
                           : parseSummary(std::move(mapped), path, &at, kMappedColumnsAbove, tap);
        if (!parsed) {
            const bool version = parsed.status().code() == ErrorCode::Unsupported;
            diag.add(version ? codes::kSummaryUnsupported : codes::kSummaryCorrupt, path, at, -1,
                     parsed.status().message() + "; the summary is rebuilt");
            continue;
        }
        const PartIdentity& id = parsed->identity;
        std::string why;
        // A summary beside its part follows it when the folder is moved or copied.
        const bool sameSource =
            beside ? fs::path(id.source).filename() == fs::path(part.path).filename()
                   : id.source == source;
        if (!sameSource) {
            why = "it summarises " + id.source;
        } else if (id.size == now.size) {
            if (!nowPrints) {
                auto p = printsOf(part, now.size);
                if (!p) return out;
                nowPrints = *p;
            }
            if (id.mtimeNs != now.mtimeNs)
                why = "the part was modified since (mtime changed)";
            else if (nowPrints->first != id.headPrint || nowPrints->second != id.tailPrint)
                why = "the part's bytes differ (fingerprints changed)";
            else {
                out.exact = {std::make_shared<const PartSummary>(std::move(*parsed)), path, beside};
                return out;
            }
        } else if (id.size < now.size && !peek) {
            auto p = printsOf(part, id.size);
            if (!p) return out;
            if (p->first != id.headPrint || p->second != id.tailPrint) {
                why = "the part was rewritten (its first " + std::to_string(id.size) +
                      " bytes differ)";
            } else if (!out.prefix.summary || out.prefix.summary->identity.size < id.size) {
                out.prefix = {std::make_shared<const PartSummary>(std::move(*parsed)), path,
                              beside};
                continue;
            } else {
                continue;
            }
        } else {
            why = "the part shrank from " + std::to_string(id.size) + " to " +
                  std::to_string(now.size) + " bytes";
        }
        diag.add(codes::kSummaryStale, path, Diagnostic::kNoOffset, -1,
                 "stale summary of " + part.path + ": " + why + "; it is rebuilt");
    }
    return out;
}

// Saves beside the part when asked (or when that is where it was found) and possible, else in
// the cache; reports a failure and returns "".
std::string saveWhere(const PartSummary& s, const xdl::PartFile& part, const StoreOptions& options,
                      bool foundBeside, Diagnostics& diag) {
    std::vector<std::string> targets;
    const std::string dir = fs::path(part.path).parent_path().string();
    // A remote part's copy lies in a mirror: its summary goes to the cache (publishing is
    // explicit, `xtrace index --publish`).
    if ((options.writeBeside || foundBeside) && part.source.empty() && directoryWritable(dir))
        targets.push_back(besidePath(part.path));
    targets.push_back(cachePath(s.identity.source, options));
    std::string reasons;
    for (const auto& t : targets) {
        Status st = saveSummary(s, t);
        if (st) return t;
        reasons += (reasons.empty() ? "" : "; ") + st.message();
    }
    diag.add(codes::kSummaryNotSaved, part.path, Diagnostic::kNoOffset, -1,
             "the summary could not be saved: " + reasons);
    return {};
}

} // namespace

const char* summaryOriginName(SummaryOrigin o) {
    switch (o) {
    case SummaryOrigin::Loaded:
        return "loaded";
    case SummaryOrigin::Extended:
        return "extended";
    case SummaryOrigin::Built:
        return "built";
    }
    return "?";
}

std::string besidePath(const std::string& partPath) {
    return partPath + std::string(kSuffix);
}

bool needsPublishing(const xdl::PartFile& part, const LoadedSummary& loaded) {
    return !part.source.empty() &&
           !(loaded.origin == SummaryOrigin::Loaded && loaded.loadedFrom == besidePath(part.path));
}

std::string cacheDirectory(const StoreOptions& options) {
    if (!options.cacheDir.empty()) return options.cacheDir;
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg) return (fs::path(xdg) / "xtview" / "summaries").string();
    const char* home = std::getenv("HOME");
    return (fs::path(home && *home ? home : "/tmp") / ".cache" / "xtview" / "summaries").string();
}

std::string cachePath(const std::string& source, const StoreOptions& options) {
    const std::uint64_t h =
        fnv1a64({reinterpret_cast<const std::uint8_t*>(source.data()), source.size()});
    return (fs::path(cacheDirectory(options)) / (hex16(h) + "-" + readableTail(source))).string() +
           std::string(kSuffix);
}

std::string partSource(const std::string& partPath) {
    char resolved[PATH_MAX];
    if (::realpath(partPath.c_str(), resolved)) return resolved;
    std::error_code ec;
    return fs::absolute(partPath, ec).lexically_normal().string();
}

Result<PartIdentity> partIdentity(const std::string& path) {
    const auto now = statPart(path);
    if (!now) return errnoStatus("cannot stat " + path, errno);
    xdl::PartFile part;
    part.path = path;
    auto prints = printsOf(part, now->size);
    if (!prints) return prints.status();
    PartIdentity id;
    id.source = partSource(path);
    id.size = now->size;
    id.mtimeNs = now->mtimeNs;
    id.headPrint = prints->first;
    id.tailPrint = prints->second;
    return id;
}

Status saveSummary(const PartSummary& s, const std::string& path) {
    static std::atomic<std::uint64_t> counter{0};
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    // A dot name ending in ".tmp": never taken for a part or a summary by discovery.
    std::string name = ".";
    name.append(target.filename().string()).append(".").append(std::to_string(::getpid()));
    name.append("-").append(std::to_string(counter++)).append(".tmp");
    const fs::path tmp = target.parent_path() / name;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return errnoStatus("cannot create " + tmp.string(), errno);
    Status st = writeSummary(s, [&](std::string_view bytes) {
        return writeFully(fd, bytes.data(), bytes.size(), "cannot write " + tmp.string());
    });
    if (::close(fd) != 0 && st) st = errnoStatus("cannot close " + tmp.string(), errno);
    if (st && ::rename(tmp.c_str(), path.c_str()) != 0)
        st = errnoStatus("cannot rename " + tmp.string() + " to " + path, errno);
    if (!st) ::unlink(tmp.c_str());
    return st;
}

std::optional<std::shared_ptr<const PartSummary>> findSummary(const xdl::PartFile& part,
                                                              const StoreOptions& options,
                                                              Diagnostics& diag,
                                                              const ColumnTap& tap) {
    const auto now = statPart(part.path);
    if (!now) return std::nullopt;
    std::string source;
    Lookup found = lookup(part, source, *now, options, diag, tap);
    if (found.exact.summary) return found.exact.summary;
    if (found.prefix.summary) return found.prefix.summary;
    return std::nullopt;
}

std::shared_ptr<const PartSummary> peekValidSummary(const xdl::PartFile& part,
                                                    const StoreOptions& options) {
    const auto now = statPart(part.path);
    if (!now || !part.source.empty()) return nullptr;
    std::string source;
    Diagnostics unreported; // the full open reports what is wrong
    return lookup(part, source, *now, options, unreported, {}, true).exact.summary;
}

Result<LoadedSummary> loadOrBuildSummary(const xdl::PartFile& part, const StoreOptions& options,
                                         Diagnostics& diag, const ProgressCallback& progress,
                                         const xdl::PartReader* indexedBy) {
    const auto before = statPart(part.path);
    if (!before) return errnoStatus("cannot stat " + part.path, errno);
    std::string source;
    Lookup found = lookup(part, source, *before, options, diag);
    LoadedSummary out;
    if (found.exact.summary) {
        out.summary = found.exact.summary;
        out.loadedFrom = found.exact.path;
        // `xtrace index` asks for summaries beside the parts: a cached one is copied there.
        if (options.save && options.writeBeside && !found.exact.beside && part.source.empty() &&
            directoryWritable(fs::path(part.path).parent_path().string()) &&
            saveSummary(*out.summary, besidePath(part.path)))
            out.savedTo = besidePath(part.path);
        // One written before the overview section (docs/SUMMARY-FORMAT.md, section 9) is
        // written again where it is, with one (not into a remote part's mirror).
        else if (options.save && !out.summary->overview &&
                 (part.source.empty() || !found.exact.beside) &&
                 saveSummary(*out.summary, found.exact.path))
            out.savedTo = found.exact.path;
        return out;
    }
    auto file = MappedFile::open(part.path);
    if (!file) return file.status();
    // The mtime that goes with the mapped bytes (the part may have grown in between).
    const auto after = statPart(part.path);
    PartSummary s;
    if (found.prefix.summary) {
        s = *found.prefix.summary;
        out.origin = SummaryOrigin::Extended;
        out.loadedFrom = found.prefix.path;
    } else {
        out.origin = SummaryOrigin::Built;
    }
    if (part.fetcher) { // a remote part: the bytes the build reads come first, in one stream
        XT_RETURN_IF_ERROR(
            part.fetcher->ensure(0, std::min(file->size(), PartIdentity::kPrintBytes)));
        XT_RETURN_IF_ERROR(part.fetcher->ensure(s.scannedTo, file->size() - s.scannedTo));
    }
    // The reader's index, where the file has not changed since it was mapped and scanned.
    std::optional<xdl::IndexState> readerIndex;
    if (indexedBy && !found.prefix.summary && !part.fetcher && indexedBy->cleanScan() && after &&
        indexedBy->file().size() == after->size && indexedBy->file().mtimeNs() == after->mtimeNs &&
        after->size == file->size() && after->mtimeNs == before->mtimeNs)
        readerIndex = indexedBy->index().view();
    const bool final = !options.live || part.metaState == xdl::MetaState::Finalised;
    XT_RETURN_IF_ERROR(extendSummary(s, *file, final, diag, progress,
                                     options.save ? cacheDirectory(options) : std::string(),
                                     readerIndex ? &*readerIndex : nullptr));
    s.identity.source = source.empty() ? sourceOf(part) : source;
    s.identity.mtimeNs = after && after->size == file->size() ? after->mtimeNs : before->mtimeNs;
    auto shared = std::make_shared<PartSummary>(std::move(s));
    if (options.save) out.savedTo = saveWhere(*shared, part, options, found.prefix.beside, diag);
    // A large summary saved is read back from its file, where its columns stay (ColumnTable):
    // the built ones (112 B each) are let go.
    if (!out.savedTo.empty() && shared->columns.size() * kColumnBytes > kMappedColumnsAbove) {
        if (auto file = MappedFile::open(out.savedTo)) {
            auto back =
                parseSummary(std::make_shared<const MappedFile>(std::move(*file)), out.savedTo);
            if (back) shared = std::make_shared<PartSummary>(std::move(*back));
        }
    }
    if (!shared->records.keep()) shared->records.own(); // a reader's records in memory: copied
    out.summary = std::move(shared);
    return out;
}

} // namespace xt::summary
