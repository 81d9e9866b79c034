#pragma once
// Helpers for the summary tests: parts with columns of every dtype (NaN/Inf, empty and damaged
// columns), runs of several ranks and parts, and comparisons of statistics bit for bit.

#include "core/analysis/tensor_stats.h"
#include "core/xdl/file_series_writer.h"
#include "core/xdl/wire.h"
#include "temp_dir.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace xt::test {

struct Column {
    xdl::Dtype dtype = xdl::Dtype::Float;
    std::vector<std::int64_t> shape;
    std::string data;
};

// Random values of `dtype`: floats with some NaN, +Inf and -Inf (when `nonFinite`), bools 0/1.
inline std::string randomValues(xdl::Dtype dtype, std::size_t n, std::mt19937_64& rng,
                                bool nonFinite = true) {
    std::string out(n * xdl::elementSize(dtype), '\0');
    std::normal_distribution<double> normal(0.5, 20.0);
    for (std::size_t i = 0; i < n; ++i) {
        char* p = out.data() + i * xdl::elementSize(dtype);
        xdl::visitDtype(dtype, [&](auto t) {
            using T = typename decltype(t)::type;
            T v;
            if constexpr (std::is_floating_point_v<T>) {
                const double inf = std::numeric_limits<double>::infinity();
                const auto k = rng() % 53;
                v = T(!nonFinite || k > 2 ? normal(rng)
                      : k == 0            ? std::numeric_limits<double>::quiet_NaN()
                      : k == 1            ? inf
                                          : -inf);
                if (i % 31 == 7) v = 0;
            } else if (dtype == xdl::Dtype::Bool) {
                v = T(rng() & 1);
            } else {
                v = T(rng());
                if (i % 29 == 3) v = 0;
            }
            std::memcpy(p, &v, sizeof v);
        });
    }
    return out;
}

// One framed record.
inline std::string frameRecord(std::int64_t gstep, std::int64_t lstep, std::int64_t timestamp,
                               const std::vector<Column>& columns) {
    xdl::RecordEncoder enc;
    enc.begin(gstep, lstep);
    for (const auto& c : columns)
        enc.addColumn(c.dtype, c.shape,
                      {reinterpret_cast<const std::uint8_t*>(c.data.data()), c.data.size()});
    if (!enc.finish(timestamp)) return {};
    const auto f = enc.framed();
    return {reinterpret_cast<const char*>(f.data()), f.size()};
}

inline std::string frameHeader(const std::vector<std::string>& keys) {
    std::string out, h = xdl::encodeHeader(keys);
    xdl::appendLength(out, std::uint32_t(h.size()));
    return out + h;
}

inline void writeBytes(const std::string& path, const std::string& bytes, bool append = false) {
    std::ofstream(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc)) << bytes;
}

inline std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// The keys of allDtypesRecord: one per dtype, then an empty trace_once-style column, a scalar,
// a big multi-chunk float column (when `big`), a column of one repeated value and a 3-d one.
inline std::vector<std::string> allDtypesKeys() {
    return {"int8", "int16", "int32",  "int64", "float", "double", "bool",
            "byte", "once",  "scalar", "big",   "same",  "cube"};
}

inline std::vector<Column> allDtypesRecord(std::int64_t step, std::mt19937_64& rng,
                                           bool big = false) {
    std::vector<Column> cols;
    for (int d = 0; d < xdl::kDtypeCount; ++d) {
        const std::size_t n = 40 + std::size_t(step * 37 % 300); // some below the sketch limit
        cols.push_back({xdl::Dtype(d), {std::int64_t(n)}, randomValues(xdl::Dtype(d), n, rng)});
    }
    if (step == 0) // trace_once: the value first, then empty float32 [0] columns
        cols.push_back({xdl::Dtype::Int8, {5}, "hello"});
    else
        cols.push_back({xdl::Dtype::Float, {0}, ""});
    cols.push_back({xdl::Dtype::Double, {}, randomValues(xdl::Dtype::Double, 1, rng, false)});
    const std::size_t bigN = big ? (std::size_t(1) << 21) + 3 : 100;
    cols.push_back(
        {xdl::Dtype::Float, {std::int64_t(bigN)}, randomValues(xdl::Dtype::Float, bigN, rng)});
    const float same = 2.5f;
    std::string sameBytes;
    for (int i = 0; i < 100; ++i)
        sameBytes.append(reinterpret_cast<const char*>(&same), 4);
    cols.push_back({xdl::Dtype::Float, {100}, sameBytes});
    cols.push_back({xdl::Dtype::Int16, {3, 4, 5}, randomValues(xdl::Dtype::Int16, 60, rng)});
    return cols;
}

// A part file of `records` allDtypes records (gsteps from `firstStep`), header included.
inline std::string allDtypesPart(int records, std::uint64_t seed, std::int64_t firstStep = 0,
                                 bool big = false) {
    std::mt19937_64 rng(seed);
    std::string bytes = frameHeader(allDtypesKeys());
    for (int r = 0; r < records; ++r) {
        const std::int64_t g = firstStep + r;
        bytes += frameRecord(g, g + 1, 1700000000000 + g, allDtypesRecord(g, rng, big && r == 1));
    }
    return bytes;
}

// A run of `ranks` ranks written through FileSeriesWriter with small parts (several per rank).
inline void writeRun(const std::string& dir, int ranks, int records, double maxMB = 0.02) {
    for (int rank = 0; rank < ranks; ++rank) {
        xdl::WriterOptions o;
        o.outputDir = dir;
        o.maxFileMB = maxMB;
        o.rank = rank;
        auto w = xdl::FileSeriesWriter::create(o, allDtypesKeys());
        std::mt19937_64 rng(std::uint64_t(rank) * 1000 + 17);
        for (int r = 0; r < records; ++r) {
            const std::string f = frameRecord(r, r + 1, 1700000000000 + r, allDtypesRecord(r, rng));
            (void)(*w)->write({reinterpret_cast<const std::uint8_t*>(f.data()), f.size()}, r, r + 1,
                              1700000000000 + r);
        }
        (void)(*w)->close();
    }
}

inline bool sameBits(const analysis::TensorStats& a, const analysis::TensorStats& b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace xt::test
