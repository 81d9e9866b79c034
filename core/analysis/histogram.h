#pragma once
// Histogram bin layouts (linear or symmetric-log, fixed or automatic range) and histogram
// results. Non-finite and out-of-range elements are counted apart from the bins.

#include "core/analysis/tensor_stats.h"
#include "core/base/status.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace xt::analysis {

enum class BinScale {
    Linear,
    SymLog, // bins equally wide in sign(x) * log10(1 + |x| / linthresh)
};

inline constexpr int kMaxBins = 1 << 20;

// Bins over [lo, hi]; every bin is half-open [e_i, e_i+1) except the last, which holds hi
// (numpy.histogram's rule, with edges computed as numpy.linspace does).
struct BinLayout {
    int bins = 64;
    double lo = 0, hi = 1; // finite, lo < hi
    BinScale scale = BinScale::Linear;
    double linthresh = 1.0; // SymLog only, > 0

    // The coordinate the bins are linear in: x (Linear) or the symlog transform of x.
    double transform(double x) const {
        if (scale == BinScale::Linear) return x;
        const double a = std::log10(1.0 + std::fabs(x) / linthresh);
        return x < 0 ? -a : a;
    }
    // bins + 1 edges in the data coordinate.
    std::vector<double> edges() const;
    // The bin of a finite x in [lo, hi]; callers count x < lo and x > hi apart.
    int binOf(double x) const;
};

struct HistogramOptions {
    int bins = 64;
    std::optional<double> lo, hi; // both or neither; neither = the finite min/max of the data
    BinScale scale = BinScale::Linear;
    double linthresh = 1.0;
    // Steps x bins matrices only: at most this many rows (0: one per gstep). When there are
    // more gsteps, consecutive ones are merged, the same number into each row.
    std::size_t maxRows = 0;
};

// A layout for `options`; an automatic range comes from `data` (min/max of the finite
// elements; a single value v gives [v - 0.5, v + 0.5], no finite element gives [0, 1]).
Result<BinLayout> makeBinLayout(const HistogramOptions& options, const TensorStats& data);
// "LO:HI" -> {lo, hi}; InvalidArgument otherwise.
Status parseRange(std::string_view text, double& lo, double& hi);

struct Histogram {
    BinLayout layout;
    std::vector<std::uint64_t> counts; // layout.bins entries
    std::uint64_t nan = 0, posInf = 0, negInf = 0;
    std::uint64_t below = 0, above = 0; // finite but outside [lo, hi]

    explicit Histogram(const BinLayout& l = {}) : layout(l), counts(std::size_t(l.bins), 0) {}
    std::uint64_t binned() const;
    std::uint64_t total() const { return binned() + nan + posInf + negInf + below + above; }
    // Adds another histogram of the same layout.
    void merge(const Histogram& o);
};

} // namespace xt::analysis
