#include "python/bindings/py_run.h"

#include "core/analysis/backend.h"
#include "core/analysis/key_stats.h"
#include "core/analysis/non_finite.h"
#include "core/analysis/run_compare.h"
#include "core/analysis/step_histogram.h"
#include "core/base/diagnostic_codes.h"
#include "core/open/open_plan.h"
#include "core/storage/hdfs_mirror.h"
#include "core/summary/run_summary.h"
#include "core/xdl/key_summary.h"
#include "python/bindings/numpy_columns.h"
#include "python/bindings/py_errors.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <regex>

namespace xt::py {

namespace pyb = pybind11;
using namespace pybind11::literals;

Result<xdl::RunFiles> locateRun(const std::string& path, const OpenOptions& options,
                                Diagnostics& diag, std::shared_ptr<storage::RemoteRuns>& remote) {
    std::vector<std::string> local{path};
    if (storage::isHdfsUrl(path)) {
        storage::MirrorOptions mo = storage::mirrorOptionsFromEnvironment();
        if (!options.mirrorDir.empty()) mo.cacheDir = options.mirrorDir;
        auto opened = storage::RemoteRuns::open({path}, mo);
        if (!opened) return opened.status();
        remote = std::make_shared<storage::RemoteRuns>(std::move(*opened));
        for (const auto& st : remote->statuses()) {
            if (!st.offline) continue;
            if (options.strictRemote)
                return Status(ErrorCode::IoError,
                              st.url + " cannot be read (" + st.offlineReason + ")");
            diag.add(codes::kRemoteOffline, st.url, Diagnostic::kNoOffset, -1,
                     "offline (" + st.offlineReason + "); using the local mirror " + st.localPath);
        }
        local = remote->localPaths();
    }
    // Sorted as xtrace and the viewer sort paths (core/open): a timeline is not a run.
    auto plan = open::planOpen(local);
    if (!plan) return plan.status();
    if (plan->runPaths().empty() && !plan->traces().empty())
        return Status(ErrorCode::InvalidArgument,
                      path + " is a timeline (" + open::traceKindName(plan->traces()[0].kind) +
                          "), not an XDL run: open it with xtview.timeline()");
    auto found = xdl::discoverRuns(plan->runPaths(), diag);
    if (!found)
        return remote ? Status(found.status().code(), remote->toUrls(found.status().message()))
                      : found.status();
    auto run = oneRun(path, std::move(*found));
    if (run && remote) remote->attach(*run, diag);
    return run;
}

Result<xdl::RunFiles> oneRun(const std::string& path, std::vector<xdl::RunFiles> runs) {
    if (runs.empty()) return Status(ErrorCode::NotFound, "no XDL run found in " + path);
    if (runs.size() > 1) {
        std::string labels;
        for (const auto& r : runs)
            labels += "\n  " + r.label();
        return Status(ErrorCode::InvalidArgument, path + " holds " + std::to_string(runs.size()) +
                                                      " runs; open one of them:" + labels);
    }
    return std::move(runs.front());
}

std::function<bool(std::string_view)> keyFilter(const std::string& regex) {
    if (regex.empty()) return nullptr;
    try {
        auto re = std::make_shared<std::regex>(regex, std::regex::ECMAScript);
        return
            [re](std::string_view key) { return std::regex_search(key.begin(), key.end(), *re); };
    } catch (const std::regex_error& e) {
        raise(Status(ErrorCode::InvalidArgument, "invalid key regex '" + regex + "': " + e.what()));
    }
}

namespace {

const char* numpyDtype(xdl::Dtype t) {
    switch (t) {
    case xdl::Dtype::Int8:
        return "int8";
    case xdl::Dtype::Int16:
        return "int16";
    case xdl::Dtype::Int32:
        return "int32";
    case xdl::Dtype::Int64:
        return "int64";
    case xdl::Dtype::Float:
        return "float32";
    case xdl::Dtype::Double:
        return "float64";
    case xdl::Dtype::Bool:
        return "bool";
    case xdl::Dtype::Byte:
        return "uint8";
    }
    return "uint8";
}

pyb::tuple shapeTuple(const xdl::Shape& s) {
    pyb::tuple t(static_cast<std::size_t>(s.rank));
    for (int i = 0; i < s.rank; ++i)
        t[static_cast<std::size_t>(i)] = pyb::int_(s.dims[static_cast<std::size_t>(i)]);
    return t;
}

// The backend for one pass over the data ("auto": the CPU; see analysis::selectBackend).
std::unique_ptr<analysis::Backend> makeBackend(const std::string& name, int threads) {
    auto choice = analysis::parseBackendChoice(name);
    if (!choice)
        raise(Status(ErrorCode::InvalidArgument,
                     "backend must be 'auto', 'cpu' or 'cuda', got '" + name + "'"));
    return analysis::selectBackend(*choice, 0, threads).backend;
}

pyb::object optionalStep(const std::optional<std::int64_t>& v) {
    return v ? pyb::object(pyb::int_(*v)) : pyb::object(pyb::none());
}

pyb::list stepList(const std::vector<std::int64_t>& v) {
    pyb::list out;
    for (auto s : v)
        out.append(s);
    return out;
}

// Statistics rows, one per (rank, key, record): the columns of `xtrace stats`; min..l2 are NaN
// where the tensor has no finite element. Keys are codes into `key_names`.
struct StatsColumns {
    std::vector<std::int64_t> rank, gstep, lstep, timestamp, count, nan, inf, zeros;
    std::vector<std::int32_t> key;
    std::vector<double> min, max, mean, std, l2;

    void add(int r, std::int32_t k, const analysis::RecordStats& rs) {
        const auto& s = rs.stats;
        rank.push_back(r);
        key.push_back(k);
        gstep.push_back(rs.gstep);
        lstep.push_back(rs.lstep);
        timestamp.push_back(rs.timestamp);
        count.push_back(static_cast<std::int64_t>(s.count));
        nan.push_back(static_cast<std::int64_t>(s.nan));
        inf.push_back(static_cast<std::int64_t>(s.inf));
        zeros.push_back(static_cast<std::int64_t>(s.zeros));
        const double none = std::numeric_limits<double>::quiet_NaN();
        const bool f = s.hasFinite();
        min.push_back(f ? s.min : none);
        max.push_back(f ? s.max : none);
        mean.push_back(f ? s.mean : none);
        std.push_back(f ? s.std : none);
        l2.push_back(f ? s.l2 : none);
    }

    pyb::dict release(std::vector<std::string> keyNames) {
        pyb::dict d;
        d["rank"] = toArray(std::move(rank));
        d["key"] = toArray(std::move(key));
        d["key_names"] = pyb::cast(keyNames);
        d["gstep"] = toArray(std::move(gstep));
        d["lstep"] = toArray(std::move(lstep));
        d["timestamp"] = toArray(std::move(timestamp));
        d["count"] = toArray(std::move(count));
        d["nan"] = toArray(std::move(nan));
        d["inf"] = toArray(std::move(inf));
        d["zeros"] = toArray(std::move(zeros));
        d["min"] = toArray(std::move(min));
        d["max"] = toArray(std::move(max));
        d["mean"] = toArray(std::move(mean));
        d["std"] = toArray(std::move(std));
        d["l2"] = toArray(std::move(l2));
        return d;
    }
};

class PyRun {
public:
    PyRun(const std::string& path, const OpenOptions& options) : m_path(path) {
        m_store.cacheDir = options.summaryDir;
        Status failed;
        {
            pyb::gil_scoped_release nogil;
            auto files = locateRun(path, options, m_diag, m_remote);
            if (!files) {
                failed = files.status();
            } else {
                auto opened = summary::openRun(*files, m_store, m_diag);
                if (opened)
                    m_run = std::make_unique<summary::OpenedRun>(std::move(*opened));
                else
                    failed = opened.status();
                if (opened && options.strictRemote) // a part that cannot be read fails a task
                    for (const auto& d : m_diag.items())
                        if (d.code == codes::kUnreadablePart.name) {
                            failed = Status(ErrorCode::IoError, d.file + ": " + d.message);
                            break;
                        }
            }
        }
        if (!failed.isOk()) raise(failed, &m_diag);
    }

    const std::string& path() const { return m_path; }
    // directory/prefix.name of the run's files (the URL's for a remote run).
    std::string label() const { return reader().files().label(); }

    std::vector<int> ranks() const {
        std::vector<int> out;
        for (const auto& r : reader().ranks())
            out.push_back(r.rank());
        return out;
    }

    pyb::list diagnostics() const { return diagnosticTexts(m_diag); }

    pyb::list parts() const {
        pyb::list out;
        for (const auto& rank : reader().ranks()) {
            for (const auto& p : rank.parts()) {
                const auto& pf = p->part();
                out.append(pyb::dict("rank"_a = rank.rank(), "index"_a = pf.index,
                                     "path"_a = pf.displayPath(), "size"_a = pf.size,
                                     "meta"_a = xdl::metaStateName(pf.metaState),
                                     "has_header"_a = p->index().hasHeader(), "keys"_a = p->keys(),
                                     "records"_a = p->index().records().size(),
                                     "summary"_a = m_run->summaries.find(*p) != nullptr));
            }
        }
        return out;
    }

    std::size_t summarizedParts() const { return m_run->summaries.size(); }

    pyb::list keys() const {
        Diagnostics diag;
        Result<std::vector<xdl::KeySummary>> ks = Status(ErrorCode::Internal, "not run");
        {
            pyb::gil_scoped_release nogil;
            ks = summary::summarizeKeys(reader(), m_run->summaries, diag);
        }
        auto keys = take(std::move(ks), &diag);
        pyb::list out;
        for (const auto& k : keys) {
            std::vector<int> ranks;
            for (const auto& r : reader().ranks())
                if (std::find(r.keys().begin(), r.keys().end(), k.key) != r.keys().end())
                    ranks.push_back(r.rank());
            pyb::object dtype = pyb::none();
            if (k.dtype) dtype = pyb::str(std::string(xdl::dtypeName(*k.dtype)));
            out.append(pyb::dict(
                "key"_a = k.key, "dtype"_a = dtype, "shape"_a = shapeTuple(k.shape),
                "records"_a = k.records, "ranks"_a = ranks, "mixed_dtypes"_a = k.mixedDtypes,
                "varying_shape"_a = k.varyingShape, "empty_records"_a = k.emptyRecords,
                "damaged_records"_a = k.damagedRecords));
        }
        return out;
    }

    pyb::dict stats(const std::string& key, std::optional<int> rank, const std::string& backend,
                    int threads) const {
        auto series = computeStats(key, rank, backend, threads);
        StatsColumns cols;
        std::vector<std::string> names;
        std::map<std::string, std::int32_t> codeOf;
        for (const auto& s : series) {
            auto [it, fresh] = codeOf.try_emplace(s.key, std::int32_t(names.size()));
            if (fresh) names.push_back(s.key);
            for (const auto& r : s.records)
                cols.add(s.rank, it->second, r);
        }
        return cols.release(std::move(names));
    }

    pyb::dict firstNonFinite(const std::string& key, std::optional<int> rank, int threads) const {
        auto found = analysis::findFirstNonFinite(computeStats(key, rank, "cpu", threads));
        pyb::list keyCol, kindCol;
        std::vector<std::int64_t> rankCol, gstep, lstep, elements;
        for (const auto& f : found) {
            for (const auto& [kind, occ] : {std::pair{"nan", f.nan}, std::pair{"inf", f.inf}}) {
                if (!occ) continue;
                keyCol.append(f.key);
                kindCol.append(kind);
                rankCol.push_back(f.rank);
                gstep.push_back(occ->gstep);
                lstep.push_back(occ->lstep);
                elements.push_back(static_cast<std::int64_t>(occ->elements));
            }
        }
        return pyb::dict("key"_a = keyCol, "rank"_a = toArray(std::move(rankCol)),
                         "gstep"_a = toArray(std::move(gstep)), "kind"_a = kindCol,
                         "lstep"_a = toArray(std::move(lstep)),
                         "elements"_a = toArray(std::move(elements)));
    }

    // The tensor of `key` at global step `step` on `rank`: a read-only array over the mapped
    // file when its bytes are aligned for the dtype, else a read-only copy. `self` (this run)
    // is the array's base, so the mapping outlives the array.
    static pyb::array tensor(const pyb::object& self, const std::string& key, std::int64_t step,
                             int rank) {
        const PyRun& run = self.cast<const PyRun&>();
        const xdl::RankReader& rr = run.rankOrRaise(rank);
        std::optional<std::size_t> record;
        bool stepSeen = false;
        for (std::size_t i = 0; i < rr.recordCount() && !record; ++i) {
            if (rr.entry(i).gstep != step) continue;
            stepSeen = true;
            if (rr.parts()[rr.partOf(i)]->columnOf(key) >= 0) record = i;
        }
        if (!record)
            raise(Status(ErrorCode::NotFound,
                         stepSeen ? "key '" + key + "' is not recorded at gstep " +
                                        std::to_string(step) + " on rank " + std::to_string(rank)
                                  : "no record with gstep " + std::to_string(step) + " on rank " +
                                        std::to_string(rank)));
        auto view = take(rr.tensor(*record, key));
        const std::size_t itemSize = xdl::elementSize(view.dtype());
        std::vector<pyb::ssize_t> shape;
        for (auto d : view.shape().view())
            shape.push_back(static_cast<pyb::ssize_t>(d));
        std::vector<pyb::ssize_t> strides(shape.size());
        pyb::ssize_t stride = static_cast<pyb::ssize_t>(itemSize);
        for (std::size_t i = shape.size(); i-- > 0;) {
            strides[i] = stride;
            stride *= shape[i];
        }
        const pyb::dtype dtype(numpyDtype(view.dtype()));
        const std::uint8_t* data = view.bytes().data();
        const bool aligned = reinterpret_cast<std::uintptr_t>(data) % itemSize == 0;
        pyb::array out;
        if (aligned && data) {
            out = pyb::array(dtype, shape, strides, data, self);
        } else {
            out = pyb::array(dtype, shape, strides);
            if (!view.bytes().empty()) std::memcpy(out.mutable_data(), data, view.bytes().size());
        }
        out.attr("setflags")("write"_a = false);
        return out;
    }

    pyb::dict histogram(const std::string& key, int bins, std::optional<std::int64_t> first,
                        std::optional<std::int64_t> last, std::optional<double> lo,
                        std::optional<double> hi, int rank, const std::string& backendName) const {
        analysis::HistogramOptions ho;
        if (bins < 1 || bins > analysis::kMaxBins)
            raise(Status(ErrorCode::InvalidArgument,
                         "bins must be in 1.." + std::to_string(analysis::kMaxBins)));
        ho.bins = bins;
        if (lo.has_value() != hi.has_value())
            raise(Status(ErrorCode::InvalidArgument, "range needs both lo and hi"));
        ho.lo = lo;
        ho.hi = hi;
        analysis::StepRange steps{first, last};
        if (first && last && *first > *last)
            raise(Status(ErrorCode::InvalidArgument, "steps (a, b) needs a <= b"));
        const xdl::RankReader& rr = rankOrRaise(rank);
        auto backend = makeBackend(backendName, 0);
        Diagnostics diag;
        Result<analysis::HistogramMatrix> m = Status(ErrorCode::Internal, "not run");
        {
            pyb::gil_scoped_release nogil;
            m = analysis::stepHistograms(rr, key, *backend, ho, steps, diag, {}, &m_run->summaries);
        }
        auto matrix = take(std::move(m), &diag);
        const std::size_t rows = matrix.rows.size(), cols = std::size_t(matrix.layout.bins);
        pyb::array_t<std::uint64_t> counts({rows, cols});
        auto dense = matrix.dense();
        std::memcpy(counts.mutable_data(), dense.data(), dense.size() * sizeof(std::uint64_t));
        std::vector<std::int64_t> outside; // per row: nan, posinf, neginf, below, above
        for (const auto& row : matrix.rows)
            for (auto c : {row.nan, row.posInf, row.negInf, row.below, row.above})
                outside.push_back(static_cast<std::int64_t>(c));
        pyb::array_t<std::int64_t> outsideArr({rows, std::size_t(5)});
        if (!outside.empty())
            std::memcpy(outsideArr.mutable_data(), outside.data(),
                        outside.size() * sizeof(std::int64_t));
        return pyb::dict("counts"_a = counts, "edges"_a = toArray(matrix.layout.edges()),
                         "steps"_a = toArray(std::vector<std::int64_t>(matrix.steps)),
                         "outside"_a = outsideArr, "lo"_a = matrix.layout.lo,
                         "hi"_a = matrix.layout.hi, "diagnostics"_a = diagnosticTexts(diag));
    }

    pyb::dict diff(const PyRun& other, const std::string& key, const std::string& align,
                   double atol, double rtol, std::optional<int> rank,
                   std::optional<int> rankB) const {
        analysis::CompareOptions co;
        co.keyFilter = keyFilter(key);
        auto a = analysis::parseStepAlign(align);
        if (!a)
            raise(Status(ErrorCode::InvalidArgument,
                         "align must be 'gstep', 'lstep' or 'relative', got '" + align + "'"));
        co.align = *a;
        co.atol = atol;
        co.rtol = rtol;
        if (rankB && !rank) raise(Status(ErrorCode::InvalidArgument, "rank_b needs rank"));
        std::vector<std::pair<const xdl::RankReader*, const xdl::RankReader*>> pairs;
        std::vector<int> onlyA, onlyB;
        if (rank) {
            pairs.emplace_back(&rankOrRaise(*rank), &other.rankOrRaise(rankB.value_or(*rank)));
        } else {
            for (const auto& ra : reader().ranks()) {
                if (const auto* rb = other.reader().rank(ra.rank()))
                    pairs.emplace_back(&ra, rb);
                else
                    onlyA.push_back(ra.rank());
            }
            for (const auto& rb : other.reader().ranks())
                if (!reader().rank(rb.rank())) onlyB.push_back(rb.rank());
        }
        std::vector<std::int64_t> sRankA, sRankB, sStep, sElements, sNanA, sNanB, sInfA, sInfB;
        std::vector<std::uint8_t> sExact, sWithin, sShape;
        std::vector<double> sMaxAbs, sMaxRel;
        pyb::list sKey, keyRows, keysOnly;
        for (const auto& [pa, pb] : pairs) {
            Diagnostics diag;
            Result<analysis::RunDiff> r = Status(ErrorCode::Internal, "not run");
            {
                pyb::gil_scoped_release nogil;
                r = analysis::compareRanks(*pa, *pb, co, diag);
            }
            auto d = take(std::move(r), &diag);
            keysOnly.append(pyb::dict("rank_a"_a = pa->rank(), "rank_b"_a = pb->rank(),
                                      "keys_only_a"_a = d.keysOnlyA,
                                      "keys_only_b"_a = d.keysOnlyB));
            for (const auto& k : d.keys) {
                keyRows.append(
                    pyb::dict("rank_a"_a = pa->rank(), "rank_b"_a = pb->rank(), "key"_a = k.key,
                              "steps_compared"_a = k.steps.size(),
                              "first_diff_exact"_a = optionalStep(k.firstDiffExact),
                              "first_diff_tolerance"_a = optionalStep(k.firstDiffTolerance),
                              "first_nan_only_a"_a = optionalStep(k.firstNanOnlyA),
                              "first_nan_only_b"_a = optionalStep(k.firstNanOnlyB),
                              "first_inf_only_a"_a = optionalStep(k.firstInfOnlyA),
                              "first_inf_only_b"_a = optionalStep(k.firstInfOnlyB),
                              "steps_only_a"_a = stepList(k.stepsOnlyA),
                              "steps_only_b"_a = stepList(k.stepsOnlyB)));
                for (const auto& s : k.steps) {
                    sRankA.push_back(pa->rank());
                    sRankB.push_back(pb->rank());
                    sKey.append(k.key);
                    sStep.push_back(s.step);
                    sElements.push_back(static_cast<std::int64_t>(s.elements));
                    sExact.push_back(s.bitExact);
                    sWithin.push_back(s.withinTolerance);
                    sShape.push_back(s.shapeMismatch);
                    sMaxAbs.push_back(s.maxAbs);
                    sMaxRel.push_back(s.maxRel);
                    sNanA.push_back(static_cast<std::int64_t>(s.nanOnlyA));
                    sNanB.push_back(static_cast<std::int64_t>(s.nanOnlyB));
                    sInfA.push_back(static_cast<std::int64_t>(s.infOnlyA));
                    sInfB.push_back(static_cast<std::int64_t>(s.infOnlyB));
                }
            }
        }
        auto asBool = [](std::vector<std::uint8_t>&& v) {
            return toArray(std::move(v)).attr("astype")("bool");
        };
        pyb::dict steps(
            "rank_a"_a = toArray(std::move(sRankA)), "rank_b"_a = toArray(std::move(sRankB)),
            "key"_a = sKey, "step"_a = toArray(std::move(sStep)),
            "elements"_a = toArray(std::move(sElements)), "bit_exact"_a = asBool(std::move(sExact)),
            "within_tolerance"_a = asBool(std::move(sWithin)),
            "shape_mismatch"_a = asBool(std::move(sShape)),
            "max_abs"_a = toArray(std::move(sMaxAbs)), "max_rel"_a = toArray(std::move(sMaxRel)),
            "nan_only_a"_a = toArray(std::move(sNanA)), "nan_only_b"_a = toArray(std::move(sNanB)),
            "inf_only_a"_a = toArray(std::move(sInfA)), "inf_only_b"_a = toArray(std::move(sInfB)));
        return pyb::dict("steps"_a = steps, "keys"_a = keyRows, "keys_only"_a = keysOnly,
                         "ranks_only_a"_a = onlyA, "ranks_only_b"_a = onlyB);
    }

    // Builds (or extends, or loads) and saves the summaries of the parts that have none.
    pyb::dict summarize(int threads) {
        Diagnostics diag;
        Status st;
        const std::size_t before = m_run->summaries.size();
        {
            pyb::gil_scoped_release nogil;
            st = summary::summarizeRun(m_run->reader, m_run->summaries, m_store, diag, {}, threads);
        }
        if (!st) raise(st, &diag);
        return pyb::dict("built"_a = m_run->summaries.size() - before,
                         "parts"_a = m_run->summaries.size(),
                         "diagnostics"_a = diagnosticTexts(diag));
    }

private:
    const xdl::RunReader& reader() const { return m_run->reader; }

    const xdl::RankReader& rankOrRaise(int rank) const {
        if (const auto* r = reader().rank(rank)) return *r;
        std::string have;
        for (int r : ranks())
            have += (have.empty() ? "" : ", ") + std::to_string(r);
        raise(Status(ErrorCode::NotFound, "rank " + std::to_string(rank) + " is not in " + m_path +
                                              " (ranks: " + have + ")"));
    }

    std::vector<analysis::KeySeries> computeStats(const std::string& key, std::optional<int> rank,
                                                  const std::string& backendName,
                                                  int threads) const {
        analysis::KeyStatsOptions ko;
        ko.keyFilter = keyFilter(key);
        ko.rank = rank;
        ko.summaries = &m_run->summaries;
        if (rank) rankOrRaise(*rank);
        auto backend = makeBackend(backendName, threads);
        Diagnostics diag;
        Result<std::vector<analysis::KeySeries>> series = Status(ErrorCode::Internal, "not run");
        {
            pyb::gil_scoped_release nogil;
            series = analysis::computeKeyStats(reader(), *backend, ko, diag);
        }
        return take(std::move(series), &diag);
    }

    std::string m_path;
    std::shared_ptr<storage::RemoteRuns> m_remote; // serves a remote run's reads
    summary::StoreOptions m_store;
    Diagnostics m_diag; // what opening the run reported
    std::unique_ptr<summary::OpenedRun> m_run;
};

} // namespace

void bindRun(pyb::module_& m) {
    pyb::class_<PyRun, std::shared_ptr<PyRun>>(m, "Run")
        .def(pyb::init([](const std::string& path, const std::string& summaryDir,
                          const std::string& mirrorDir, bool strictRemote) {
                 return std::make_shared<PyRun>(path,
                                                OpenOptions{summaryDir, mirrorDir, strictRemote});
             }),
             "path"_a, "summary_dir"_a = "", "mirror_dir"_a = "", "strict_remote"_a = false)
        .def_property_readonly("path", &PyRun::path)
        .def_property_readonly("label", &PyRun::label)
        .def_property_readonly("ranks", &PyRun::ranks)
        .def_property_readonly("diagnostics", &PyRun::diagnostics)
        .def_property_readonly("summarized_parts", &PyRun::summarizedParts)
        .def("parts", &PyRun::parts)
        .def("keys", &PyRun::keys)
        .def("stats", &PyRun::stats, "key"_a = "", "rank"_a = pyb::none(), "backend"_a = "cpu",
             "threads"_a = 0)
        .def("first_nonfinite", &PyRun::firstNonFinite, "key"_a = "", "rank"_a = pyb::none(),
             "threads"_a = 0)
        .def("tensor", &PyRun::tensor, "key"_a, "step"_a, "rank"_a = 0)
        .def("histogram", &PyRun::histogram, "key"_a, "bins"_a = 64, "first"_a = pyb::none(),
             "last"_a = pyb::none(), "lo"_a = pyb::none(), "hi"_a = pyb::none(), "rank"_a = 0,
             "backend"_a = "cpu")
        .def("diff", &PyRun::diff, "other"_a, "key"_a = "", "align"_a = "gstep", "atol"_a = 0.0,
             "rtol"_a = 0.0, "rank"_a = pyb::none(), "rank_b"_a = pyb::none())
        .def("summarize", &PyRun::summarize, "threads"_a = 0);
}

} // namespace xt::py
