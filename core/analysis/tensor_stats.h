#pragma once
// Statistics of one tensor (the columns of `xtrace stats`, README "stats"): element counts, and
// min/max/mean/std (population)/l2 over the FINITE elements in double precision.

#include <cmath>
#include <cstdint>
#include <limits>

namespace xt::analysis {

struct TensorStats {
    std::uint64_t count = 0; // elements
    std::uint64_t nan = 0;
    std::uint64_t inf = 0; // both signs
    std::uint64_t zeros = 0;
    std::uint64_t finite = 0; // count - nan - inf
    // Meaningful only when hasFinite(); absent from the output otherwise.
    double min = 0, max = 0, mean = 0, std = 0, l2 = 0;

    bool hasFinite() const { return finite > 0; }
};

// A mergeable partial result (Chan et al.'s parallel variance): the building block of every
// backend. Merging partials of disjoint element ranges gives the statistics of their union.
struct StatsAccumulator {
    std::uint64_t count = 0, nan = 0, inf = 0, zeros = 0, finite = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double mean = 0; // of the finite elements
    double m2 = 0;   // sum of squared deviations from `mean`
    double sumSq = 0;

    void merge(const StatsAccumulator& o) {
        count += o.count;
        nan += o.nan;
        inf += o.inf;
        zeros += o.zeros;
        if (o.finite) {
            if (!finite) {
                mean = o.mean;
                m2 = o.m2;
            } else {
                const double na = double(finite), nb = double(o.finite), n = na + nb;
                const double delta = o.mean - mean;
                mean += delta * (nb / n);
                m2 += o.m2 + delta * delta * (na * nb / n);
            }
            finite += o.finite;
            min = o.min < min ? o.min : min;
            max = o.max > max ? o.max : max;
        }
        sumSq += o.sumSq;
    }

    TensorStats finish() const {
        TensorStats s;
        s.count = count;
        s.nan = nan;
        s.inf = inf;
        s.zeros = zeros;
        s.finite = finite;
        if (finite) {
            s.min = min;
            s.max = max;
            s.mean = mean;
            s.std = std::sqrt(m2 > 0 ? m2 / double(finite) : 0.0);
            s.l2 = std::sqrt(sumSq);
        }
        return s;
    }
};

} // namespace xt::analysis
