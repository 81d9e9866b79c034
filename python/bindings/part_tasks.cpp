#include "python/bindings/part_tasks.h"

#include "core/storage/hdfs_mirror.h"
#include "core/summary/part_summary.h"
#include "core/summary/summary_store.h"
#include "python/bindings/py_errors.h"
#include "python/bindings/py_run.h"

#include <pybind11/stl.h>

namespace xt::py {

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace {

// Every part file of the one run under `path`, in rank, then index order, from listings alone:
// the directory and the metas of a local run; the namenode's listing of an hdfs:// run (part
// paths are then URLs, for each worker to mirror its own parts).
pyb::list listParts(const std::string& path) {
    Diagnostics diag;
    Result<xdl::RunFiles> files = Status(ErrorCode::Internal, "not run");
    {
        pyb::gil_scoped_release nogil;
        if (storage::isHdfsUrl(path)) {
            auto runs = storage::discoverRemoteRuns(path, storage::mirrorOptionsFromEnvironment());
            files = runs ? oneRun(path, std::move(*runs)) : runs.status();
        } else {
            std::shared_ptr<storage::RemoteRuns> remote;
            files = locateRun(path, OpenOptions{}, diag, remote);
        }
    }
    const auto run = take(std::move(files), &diag);
    pyb::list out;
    for (const auto& rank : run.ranks)
        for (const auto& p : rank.parts)
            out.append(pyb::dict("run"_a = run.label(), "rank"_a = rank.rank, "index"_a = p.index,
                                 "path"_a = p.path, "size"_a = p.size));
    return out;
}

// Loads, extends or builds the summary of the part file `path` (a local path or an hdfs://
// URL, mirrored sparsely) and saves it per the options. `publish` (remote parts): the summary is
// also uploaded beside the part on HDFS unless it was read, valid, from there; a refusal is
// reported in the result ("publish_error"), the summary staying in the cache.
pyb::dict summarizePart(const std::string& path, const std::string& summaryDir,
                        const std::string& mirrorDir, bool beside, bool publish) {
    if (publish && !storage::isHdfsUrl(path))
        raise(Status(ErrorCode::InvalidArgument,
                     "publish is for hdfs:// runs; the summaries of " + path +
                         " are written beside the parts or in the cache"),
              nullptr);
    summary::StoreOptions store;
    store.cacheDir = summaryDir;
    store.writeBeside = beside;
    Diagnostics diag;
    Status failed, publishFailed;
    std::string published;
    summary::LoadedSummary loaded;
    {
        pyb::gil_scoped_release nogil;
        std::shared_ptr<storage::RemoteRuns> remote;
        auto files = locateRun(path, OpenOptions{summaryDir, mirrorDir, true}, diag, remote);
        if (!files) {
            failed = files.status();
        } else if (files->ranks.size() != 1 || files->ranks[0].parts.size() != 1) {
            failed = Status(ErrorCode::InvalidArgument, path + " is not one part file");
        } else {
            const xdl::PartFile& part = files->ranks[0].parts[0];
            auto r = summary::loadOrBuildSummary(part, store, diag);
            if (r)
                loaded = std::move(*r);
            else
                failed = r.status();
            if (r && publish && remote) {
                published = summary::besidePath(part.source);
                if (summary::needsPublishing(part, loaded))
                    publishFailed =
                        remote->upload(published, summary::serializeSummary(*loaded.summary));
                if (!publishFailed) published.clear();
            }
        }
    }
    if (!failed.isOk()) raise(failed, &diag);
    const auto& s = *loaded.summary;
    pyb::object pubError = pyb::none();
    if (!publishFailed.isOk()) pubError = pyb::str(publishFailed.message());
    return pyb::dict("path"_a = path, "origin"_a = summary::summaryOriginName(loaded.origin),
                     "records"_a = s.recordCount(), "bytes"_a = s.identity.size,
                     "loaded_from"_a = loaded.loadedFrom, "saved_to"_a = loaded.savedTo,
                     "published"_a = published.empty() ? pyb::object(pyb::none())
                                                       : pyb::object(pyb::str(published)),
                     "publish_error"_a = pubError, "diagnostics"_a = diagnosticTexts(diag));
}

// Which of `keys` the key regex selects (as every analysis filters keys).
std::vector<bool> matchKeys(const std::string& regex, const std::vector<std::string>& keys) {
    auto filter = keyFilter(regex);
    std::vector<bool> out;
    for (const auto& k : keys)
        out.push_back(!filter || filter(k));
    return out;
}

} // namespace

void bindPartTasks(pyb::module_& m) {
    m.def("list_parts", &listParts, "path"_a);
    m.def("summarize_part", &summarizePart, "path"_a, "summary_dir"_a = "", "mirror_dir"_a = "",
          "beside"_a = false, "publish"_a = false);
    m.def("match_keys", &matchKeys, "regex"_a, "keys"_a);
}

} // namespace xt::py
