#include "core/analysis/run_compare.h"

#include "core/analysis/parallel_loop.h"
#include "core/base/diagnostic_codes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <set>

namespace xt::analysis {

std::optional<StepAlign> parseStepAlign(std::string_view text) {
    if (text == "gstep") return StepAlign::Gstep;
    if (text == "lstep") return StepAlign::Lstep;
    if (text == "relative") return StepAlign::Relative;
    return std::nullopt;
}

const char* stepAlignName(StepAlign align) {
    switch (align) {
    case StepAlign::Gstep:
        return "gstep";
    case StepAlign::Lstep:
        return "lstep";
    case StepAlign::Relative:
        return "relative";
    }
    return "?";
}

std::int64_t stepOrigin(const xdl::RankReader& rank, StepAlign align) {
    if (align != StepAlign::Relative || rank.recordCount() == 0) return 0;
    std::int64_t lo = rank.entry(0).gstep;
    for (std::size_t r = 1; r < rank.recordCount(); ++r)
        lo = std::min(lo, rank.entry(r).gstep);
    return lo;
}

namespace {

struct SideRecord {
    std::size_t record;
    xdl::TensorView tensor;
};

// aligned step -> the first record holding `key` with data; later duplicates go to diag.
std::map<std::int64_t, SideRecord> collect(const xdl::RankReader& rank, const std::string& key,
                                           StepAlign align, std::int64_t origin, const char* side,
                                           Diagnostics& diag) {
    std::map<std::int64_t, SideRecord> out;
    rank.forEachTensor(key, diag, [&](std::size_t record, const xdl::TensorView& t) {
        if (t.empty()) return true;
        const auto& e = rank.entry(record);
        const std::int64_t step = alignedStep(e.gstep, e.lstep, align, origin);
        if (!out.try_emplace(step, SideRecord{record, t}).second) {
            const auto& part = *rank.parts()[rank.partOf(record)];
            diag.add(codes::kDuplicateStep, part.part().path, e.offset - 4, std::int64_t(record),
                     std::string("run ") + side + ", key '" + key + "': step " +
                         std::to_string(step) + " recorded again; the first record is compared");
        }
        return true;
    });
    return out;
}

template <class T>
void compareElements(const xdl::TensorView& ta, const xdl::TensorView& tb, const CompareOptions& o,
                     StepDiff& d) {
    const auto a = ta.array<T>();
    const auto b = tb.array<T>();
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double x = double(a[i]), y = double(b[i]);
        if constexpr (std::is_floating_point_v<T>) {
            const bool nx = std::isnan(x), ny = std::isnan(y);
            if (nx || ny) {
                if (nx != ny) {
                    d.withinTolerance = false;
                    (nx ? d.nanOnlyA : d.nanOnlyB) += 1;
                }
                continue;
            }
            const bool ix = std::isinf(x), iy = std::isinf(y);
            if (ix || iy) {
                if (x != y) d.withinTolerance = false;
                if (ix != iy) (ix ? d.infOnlyA : d.infOnlyB) += 1;
                continue;
            }
        }
        const double diff = std::fabs(x - y);
        if (diff == 0) continue;
        const double scale = std::max(std::fabs(x), std::fabs(y));
        d.maxAbs = std::max(d.maxAbs, diff);
        d.maxRel = std::max(d.maxRel, diff / scale);
        if (!(diff <= o.atol + o.rtol * std::fabs(y))) d.withinTolerance = false;
    }
}

StepDiff compareTensors(std::int64_t step, const xdl::TensorView& a, const xdl::TensorView& b,
                        const CompareOptions& o) {
    StepDiff d;
    d.step = step;
    d.elements = a.size();
    if (a.dtype() != b.dtype() || !(a.shape() == b.shape()) || a.size() != b.size()) {
        d.shapeMismatch = true;
        d.bitExact = false;
        d.withinTolerance = false;
        return d;
    }
    const auto ab = a.bytes(), bb = b.bytes();
    if (ab.size() == bb.size() && std::memcmp(ab.data(), bb.data(), ab.size()) == 0) return d;
    d.bitExact = false;
    xdl::visitDtype(a.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        compareElements<T>(a, b, o, d);
    });
    return d;
}

} // namespace

Result<RunDiff> compareRanks(const xdl::RankReader& a, const xdl::RankReader& b,
                             const CompareOptions& options, Diagnostics& diag,
                             const ProgressCallback& progress) {
    RunDiff out;
    const std::set<std::string> keysA(a.keys().begin(), a.keys().end());
    const std::set<std::string> keysB(b.keys().begin(), b.keys().end());
    auto wanted = [&](const std::string& k) { return !options.keyFilter || options.keyFilter(k); };
    std::vector<std::string> common;
    for (const auto& k : a.keys()) {
        if (!wanted(k)) continue;
        if (keysB.count(k))
            common.push_back(k);
        else
            out.keysOnlyA.push_back(k);
    }
    for (const auto& k : b.keys())
        if (wanted(k) && !keysA.count(k)) out.keysOnlyB.push_back(k);

    const std::int64_t originA = stepOrigin(a, options.align);
    const std::int64_t originB = stepOrigin(b, options.align);
    ParallelLoop loop; // every core
    try {
        for (std::size_t ki = 0; ki < common.size(); ++ki) {
            const std::string& key = common[ki];
            const auto sa = collect(a, key, options.align, originA, "A", diag);
            const auto sb = collect(b, key, options.align, originB, "B", diag);
            KeyDiff kd;
            kd.key = key;
            std::vector<std::pair<const SideRecord*, const SideRecord*>> pairs;
            for (const auto& [step, rec] : sa) {
                auto it = sb.find(step);
                if (it == sb.end()) {
                    kd.stepsOnlyA.push_back(step);
                    continue;
                }
                pairs.emplace_back(&rec, &it->second);
                kd.steps.push_back(StepDiff{step});
            }
            for (const auto& [step, rec] : sb)
                if (!sa.count(step)) kd.stepsOnlyB.push_back(step);
            loop.run(pairs.size(), [&](std::size_t i, unsigned) {
                kd.steps[i] = compareTensors(kd.steps[i].step, pairs[i].first->tensor,
                                             pairs[i].second->tensor, options);
            });
            for (const auto& d : kd.steps) {
                if (!d.bitExact && !kd.firstDiffExact) kd.firstDiffExact = d.step;
                if (!d.withinTolerance && !kd.firstDiffTolerance) kd.firstDiffTolerance = d.step;
                if (d.nanOnlyA && !kd.firstNanOnlyA) kd.firstNanOnlyA = d.step;
                if (d.nanOnlyB && !kd.firstNanOnlyB) kd.firstNanOnlyB = d.step;
                if (d.infOnlyA && !kd.firstInfOnlyA) kd.firstInfOnlyA = d.step;
                if (d.infOnlyB && !kd.firstInfOnlyB) kd.firstInfOnlyB = d.step;
            }
            out.keys.push_back(std::move(kd));
            if (!reportProgress(progress, ki + 1, common.size(), "comparing"))
                return Status(ErrorCode::Cancelled, "cancelled");
        }
    } catch (const std::exception& e) {
        return Status(ErrorCode::Internal, std::string("comparison failed: ") + e.what());
    }
    return out;
}

} // namespace xt::analysis
