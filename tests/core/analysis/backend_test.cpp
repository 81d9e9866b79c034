// One typed suite for every backend: statistics and histograms against a plain scalar
// reference (long double, two-pass). Counts, min and max must match exactly; mean, std and l2
// to 1e-12 relative (1e-9 for the large-mean case). Backends that cannot run here skip.
#include "core/analysis/backend.h"
#include "core/analysis/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

namespace xt::analysis {
namespace {

using xdl::Dtype;

struct CpuFactory {
    static std::unique_ptr<Backend> make() { return std::make_unique<CpuBackend>(); }
};
struct CpuOneThreadFactory {
    static std::unique_ptr<Backend> make() { return std::make_unique<CpuBackend>(1); }
};
struct CudaFactory {
    static std::unique_ptr<Backend> make() {
        BackendSelection sel = selectBackend(BackendChoice::Cuda);
        if (sel.backend->kind() != BackendKind::Cuda) return nullptr;
        return std::move(sel.backend);
    }
};

// A tensor's bytes, kept at an odd offset so no load is aligned.
struct Buffer {
    std::vector<std::uint8_t> storage;
    Dtype dtype;
    std::size_t n;
    xdl::TensorView view() const {
        xdl::Shape s;
        s.rank = 1;
        s.dims[0] = std::int64_t(n);
        return {dtype, s, xdl::Bytes(storage.data() + 1, n * xdl::elementSize(dtype))};
    }
};

template <class T> Buffer makeBuffer(Dtype dtype, const std::vector<T>& v) {
    Buffer b{std::vector<std::uint8_t>(v.size() * sizeof(T) + 1), dtype, v.size()};
    if (!v.empty()) std::memcpy(b.storage.data() + 1, v.data(), v.size() * sizeof(T));
    return b;
}

TensorStats reference(const xdl::TensorView& t) {
    TensorStats s;
    s.count = t.size();
    long double sum = 0, sq = 0;
    double mn = 0, mx = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double d = t.valueAsDouble(i);
        if (d == 0) ++s.zeros;
        if (std::isnan(d)) {
            ++s.nan;
            continue;
        }
        if (std::isinf(d)) {
            ++s.inf;
            continue;
        }
        mn = s.finite ? std::min(mn, d) : d;
        mx = s.finite ? std::max(mx, d) : d;
        ++s.finite;
        sum += d;
        sq += (long double)d * d;
    }
    if (!s.finite) return s;
    const long double mean = sum / s.finite;
    long double m2 = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double d = t.valueAsDouble(i);
        if (std::isfinite(d)) m2 += (d - mean) * (d - mean);
    }
    s.min = mn;
    s.max = mx;
    s.mean = double(mean);
    s.std = double(std::sqrt(m2 / s.finite));
    s.l2 = double(std::sqrt(sq));
    return s;
}

void expectClose(double got, double want, double rel, double scale, const char* what) {
    EXPECT_LE(std::fabs(got - want), rel * std::max(std::fabs(want), scale))
        << what << ": got " << got << " want " << want;
}

void expectStats(const TensorStats& got, const TensorStats& want, double rel = 1e-12) {
    EXPECT_EQ(got.count, want.count);
    EXPECT_EQ(got.nan, want.nan);
    EXPECT_EQ(got.inf, want.inf);
    EXPECT_EQ(got.zeros, want.zeros);
    EXPECT_EQ(got.finite, want.finite);
    ASSERT_EQ(got.hasFinite(), want.hasFinite());
    if (!want.hasFinite()) return;
    EXPECT_EQ(got.min, want.min);
    EXPECT_EQ(got.max, want.max);
    // A mean near 0 of large values is compared on the scale of the data.
    const double scale = std::max(std::fabs(want.min), std::fabs(want.max));
    expectClose(got.mean, want.mean, rel, scale * 1e-3, "mean");
    expectClose(got.std, want.std, rel, 0, "std");
    expectClose(got.l2, want.l2, rel, 0, "l2");
}

template <class F> class BackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_backend = F::make();
        if (!m_backend) GTEST_SKIP() << "backend not available here (no CUDA device or build)";
    }
    std::vector<TensorStats> stats(const std::vector<struct Buffer>& bufs) {
        std::vector<xdl::TensorView> views;
        for (const auto& b : bufs)
            views.push_back(b.view());
        std::vector<TensorStats> out(views.size());
        Status st = m_backend->computeStats(views, out);
        EXPECT_TRUE(st.isOk()) << st.toString();
        return out;
    }
    std::vector<Histogram> hist(const std::vector<struct Buffer>& bufs, const BinLayout& layout) {
        std::vector<xdl::TensorView> views;
        for (const auto& b : bufs)
            views.push_back(b.view());
        std::vector<Histogram> out(views.size());
        Status st = m_backend->histogram(views, layout, out);
        EXPECT_TRUE(st.isOk()) << st.toString();
        return out;
    }
    std::unique_ptr<Backend> m_backend;
};

using Factories = ::testing::Types<CpuFactory, CpuOneThreadFactory, CudaFactory>;
TYPED_TEST_SUITE(BackendTest, Factories);

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Values of every kind for floating dtypes: normal, zeros of both signs, NaN, +-Inf.
template <class T> std::vector<T> mixedFloats(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.5, 3.0);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned r = unsigned(rng() % 100);
        v[i] = r == 0   ? T(kNan)
               : r == 1 ? T(kInf)
               : r == 2 ? T(-kInf)
               : r == 3 ? T(0.0)
               : r == 4 ? T(-0.0)
                        : T(normal(rng));
    }
    return v;
}

template <class T>
std::vector<T> randomInts(std::size_t n, unsigned seed, long long lo, long long hi) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<long long> dist(lo, hi);
    std::vector<T> v(n);
    for (auto& x : v)
        x = T(dist(rng));
    return v;
}

std::vector<Buffer> everyDtype(std::size_t n, unsigned seed) {
    std::vector<Buffer> b;
    b.push_back(makeBuffer(Dtype::Float, mixedFloats<float>(n, seed)));
    b.push_back(makeBuffer(Dtype::Double, mixedFloats<double>(n, seed + 1)));
    b.push_back(makeBuffer(Dtype::Int8, randomInts<std::int8_t>(n, seed + 2, -128, 127)));
    b.push_back(makeBuffer(Dtype::Int16, randomInts<std::int16_t>(n, seed + 3, -32768, 32767)));
    b.push_back(makeBuffer(Dtype::Int32, randomInts<std::int32_t>(n, seed + 4, -5, 1 << 30)));
    b.push_back(
        makeBuffer(Dtype::Int64, randomInts<std::int64_t>(n, seed + 5, -(1ll << 52), 1ll << 52)));
    b.push_back(makeBuffer(Dtype::Bool, randomInts<std::uint8_t>(n, seed + 6, 0, 1)));
    b.push_back(makeBuffer(Dtype::Byte, randomInts<std::uint8_t>(n, seed + 7, 0, 255)));
    return b;
}

TYPED_TEST(BackendTest, EveryDtypeMatchesReference) {
    for (std::size_t n : {1, 3, 7, 8, 9, 100, 2047, 2048, 2049, 5000, 70000}) {
        const auto bufs = everyDtype(n, unsigned(n));
        const auto got = this->stats(bufs);
        ASSERT_EQ(got.size(), bufs.size());
        for (std::size_t i = 0; i < bufs.size(); ++i) {
            SCOPED_TRACE(testing::Message()
                         << "n=" << n << " dtype " << xdl::dtypeName(bufs[i].dtype));
            expectStats(got[i], reference(bufs[i].view()));
        }
    }
}

TYPED_TEST(BackendTest, KnownValues) {
    const auto got = this->stats({makeBuffer(Dtype::Float, std::vector<float>{1, 2, 3, 4}),
                                  makeBuffer(Dtype::Bool, std::vector<std::uint8_t>{1, 0, 1, 1})});
    EXPECT_EQ(got[0].count, 4u);
    EXPECT_EQ(got[0].min, 1.0);
    EXPECT_EQ(got[0].max, 4.0);
    EXPECT_DOUBLE_EQ(got[0].mean, 2.5);
    EXPECT_DOUBLE_EQ(got[0].std, std::sqrt(1.25));
    EXPECT_DOUBLE_EQ(got[0].l2, std::sqrt(30.0));
    EXPECT_EQ(got[1].zeros, 1u);
    EXPECT_DOUBLE_EQ(got[1].mean, 0.75);
}

TYPED_TEST(BackendTest, NoFiniteElement) {
    const auto got = this->stats(
        {makeBuffer(Dtype::Float, std::vector<float>{float(kNan), float(kInf), float(-kInf)}),
         makeBuffer(Dtype::Double, std::vector<double>{kNan})});
    EXPECT_FALSE(got[0].hasFinite());
    EXPECT_EQ(got[0].nan, 1u);
    EXPECT_EQ(got[0].inf, 2u);
    EXPECT_FALSE(got[1].hasFinite());
    EXPECT_EQ(got[1].nan, 1u);
}

TYPED_TEST(BackendTest, ManySmallTensorsInOneBatch) {
    std::vector<Buffer> bufs;
    for (unsigned i = 0; i < 3000; ++i)
        bufs.push_back(makeBuffer(Dtype::Float, mixedFloats<float>(i % 37, i)));
    const auto got = this->stats(bufs);
    for (std::size_t i = 0; i < bufs.size(); ++i)
        expectStats(got[i], reference(bufs[i].view()));
}

TYPED_TEST(BackendTest, LargeMeanVarianceIsNotCancelled) {
    // 1e7 float64 values around 1e6 with std 1: the naive E[x^2] - E[x]^2 loses every digit.
    const std::size_t n = 10'000'000;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(1e6, 1.0);
    std::vector<double> v(n);
    for (auto& x : v)
        x = normal(rng);
    const auto bufs = std::vector<Buffer>{makeBuffer(Dtype::Double, v)};
    const auto got = this->stats(bufs);
    expectStats(got[0], reference(bufs[0].view()), 1e-9);
    EXPECT_NEAR(got[0].std, 1.0, 1e-3);
}

TYPED_TEST(BackendTest, MultiChunkTensorMatchesReference) {
    const auto bufs =
        std::vector<Buffer>{makeBuffer(Dtype::Float, mixedFloats<float>(3'000'017, 5))};
    expectStats(this->stats(bufs)[0], reference(bufs[0].view()));
}

// numpy.histogram's rule on linspace edges in the binned coordinate: [e_i, e_i+1), last closed.
Histogram referenceHistogram(const xdl::TensorView& t, const BinLayout& layout) {
    Histogram h(layout);
    const double ulo = layout.transform(layout.lo), uhi = layout.transform(layout.hi);
    std::vector<double> e(std::size_t(layout.bins) + 1);
    for (int i = 0; i <= layout.bins; ++i)
        e[std::size_t(i)] = double(i) * ((uhi - ulo) / layout.bins) + ulo;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double x = t.valueAsDouble(i);
        if (std::isnan(x)) {
            ++h.nan;
        } else if (x == kInf) {
            ++h.posInf;
        } else if (x == -kInf) {
            ++h.negInf;
        } else if (x < layout.lo) {
            ++h.below;
        } else if (x > layout.hi) {
            ++h.above;
        } else {
            const double u = layout.transform(x);
            const auto it = std::upper_bound(e.begin(), e.end(), u);
            std::size_t b = std::size_t(it - e.begin());
            b = b == 0 ? 0 : b - 1;
            ++h.counts[std::min(b, std::size_t(layout.bins - 1))];
        }
    }
    return h;
}

void expectHistogram(const Histogram& got, const Histogram& want) {
    EXPECT_EQ(got.counts, want.counts);
    EXPECT_EQ(got.nan, want.nan);
    EXPECT_EQ(got.posInf, want.posInf);
    EXPECT_EQ(got.negInf, want.negInf);
    EXPECT_EQ(got.below, want.below);
    EXPECT_EQ(got.above, want.above);
}

TYPED_TEST(BackendTest, LinearHistogramMatchesReference) {
    // 20003 elements: every counting path (8, 4 or 1 interleaved tables, by bins) ends with a tail.
    const auto bufs = everyDtype(20003, 11);
    for (const BinLayout& layout :
         {BinLayout{64, -4.0, 6.0}, BinLayout{7, -100.0, 1e9}, BinLayout{512, -2.0, 3.0},
          BinLayout{4096, -1.0, 1.0}, BinLayout{1, 0.0, 1.0}}) {
        const auto got = this->hist(bufs, layout);
        for (std::size_t i = 0; i < bufs.size(); ++i) {
            SCOPED_TRACE(testing::Message()
                         << "bins " << layout.bins << " dtype " << xdl::dtypeName(bufs[i].dtype));
            expectHistogram(got[i], referenceHistogram(bufs[i].view(), layout));
            EXPECT_EQ(got[i].total(), bufs[i].n);
        }
    }
}

TYPED_TEST(BackendTest, ValuesOnEdgesFollowNumpy) {
    // 10 bins over [0, 1]: an element on an inner edge belongs to the bin on its right; 1.0
    // belongs to the last bin.
    std::vector<double> v;
    for (int i = 0; i <= 10; ++i)
        v.push_back(double(i) * 0.1);
    v.push_back(std::nextafter(1.0, 2.0));
    v.push_back(std::nextafter(0.0, -1.0));
    const BinLayout layout{10, 0.0, 1.0};
    const auto bufs = std::vector<Buffer>{makeBuffer(Dtype::Double, v)};
    const auto got = this->hist(bufs, layout);
    expectHistogram(got[0], referenceHistogram(bufs[0].view(), layout));
    EXPECT_EQ(got[0].above, 1u);
    EXPECT_EQ(got[0].below, 1u);
    EXPECT_EQ(got[0].counts.front(), 1u);
}

TYPED_TEST(BackendTest, SymlogHistogramMatchesReference) {
    const auto bufs = everyDtype(20000, 13);
    const BinLayout layout{50, -1e5, 1e5, BinScale::SymLog, 0.5};
    const auto got = this->hist(bufs, layout);
    for (std::size_t i = 0; i < bufs.size(); ++i) {
        const Histogram want = referenceHistogram(bufs[i].view(), layout);
        if (this->m_backend->kind() == BackendKind::Cpu) {
            expectHistogram(got[i], want);
            continue;
        }
        // The device's log10 may differ from glibc's by an ulp: an element lying within an ulp
        // of an edge may move to the neighbouring bin, nothing else.
        std::uint64_t moved = 0;
        for (std::size_t b = 0; b < want.counts.size(); ++b)
            moved += got[i].counts[b] > want.counts[b] ? got[i].counts[b] - want.counts[b]
                                                       : want.counts[b] - got[i].counts[b];
        EXPECT_LE(moved, 4u);
        EXPECT_EQ(got[i].binned(), want.binned());
        EXPECT_EQ(got[i].nan, want.nan);
    }
}

TYPED_TEST(BackendTest, MultiChunkHistogram) {
    const auto bufs =
        std::vector<Buffer>{makeBuffer(Dtype::Float, mixedFloats<float>(2'500'001, 3))};
    const BinLayout layout{4096, -8.0, 8.0};
    expectHistogram(this->hist(bufs, layout)[0], referenceHistogram(bufs[0].view(), layout));
}

// A batch large enough for the CUDA backend to widen its histogram slices past 16384 elements
// (it aims at 16 blocks per multiprocessor), with small tensors of other dtypes around the large
// one: counts equal the CPU backend's, also on a second call over the now resident tensors.
TYPED_TEST(BackendTest, WideSlicesMatchTheCpuBackend) {
    if (this->m_backend->kind() != BackendKind::Cuda)
        GTEST_SKIP() << "the wide histogram slices are the CUDA backend's";
    std::vector<Buffer> bufs = everyDtype(3001, 17);
    bufs.insert(bufs.begin() + 2, makeBuffer(Dtype::Float, mixedFloats<float>(45'000'017, 19)));
    const BinLayout layout{4096, -8.0, 8.0};
    std::vector<xdl::TensorView> views;
    for (const auto& b : bufs)
        views.push_back(b.view());
    std::vector<Histogram> want(views.size());
    ASSERT_TRUE(CpuBackend().histogram(views, layout, want).isOk());
    for (int call = 0; call < 2; ++call) {
        const auto got = this->hist(bufs, layout);
        for (std::size_t i = 0; i < bufs.size(); ++i)
            expectHistogram(got[i], want[i]);
    }
    std::vector<TensorStats> cpuStats(views.size());
    ASSERT_TRUE(CpuBackend().computeStats(views, cpuStats).isOk());
    const auto got = this->stats(bufs);
    for (std::size_t i = 0; i < bufs.size(); ++i)
        expectStats(got[i], cpuStats[i], 1e-11);
}

TYPED_TEST(BackendTest, RejectsMismatchedOutput) {
    const auto bufs = everyDtype(4, 1);
    std::vector<xdl::TensorView> views{bufs[0].view()};
    std::vector<TensorStats> out(2);
    EXPECT_FALSE(this->m_backend->computeStats(views, out).isOk());
}

TEST(HistogramLayout, AutomaticRangeAndParsing) {
    TensorStats s;
    s.finite = 3;
    s.min = 2;
    s.max = 2;
    auto l = makeBinLayout(HistogramOptions{}, s);
    ASSERT_TRUE(l.isOk());
    EXPECT_EQ(l->lo, 1.5);
    EXPECT_EQ(l->hi, 2.5);
    double lo = 0, hi = 0;
    EXPECT_TRUE(parseRange("-1.5:2e3", lo, hi).isOk());
    EXPECT_EQ(lo, -1.5);
    EXPECT_EQ(hi, 2000.0);
    EXPECT_FALSE(parseRange("3:1", lo, hi).isOk());
    EXPECT_FALSE(parseRange("x", lo, hi).isOk());
    HistogramOptions bad;
    bad.bins = 0;
    EXPECT_FALSE(makeBinLayout(bad, s).isOk());
    const BinLayout sym{4, -100, 100, BinScale::SymLog, 1.0};
    const auto e = sym.edges();
    EXPECT_EQ(e.front(), -100.0);
    EXPECT_EQ(e.back(), 100.0);
    EXPECT_NEAR(e[2], 0.0, 1e-12);
}

TEST(BackendSelection, FallsBackCleanly) {
    auto cpu = selectBackend(BackendChoice::Cpu);
    EXPECT_EQ(cpu.backend->kind(), BackendKind::Cpu);
    EXPECT_TRUE(cpu.note.empty());
    auto cuda = selectBackend(BackendChoice::Cuda);
    ASSERT_NE(cuda.backend, nullptr);
    std::string why;
    if (!cudaAvailable(&why)) {
        EXPECT_EQ(cuda.backend->kind(), BackendKind::Cpu);
        EXPECT_NE(cuda.note.find("CUDA"), std::string::npos);
        EXPECT_EQ(cuda.note.find('\n'), std::string::npos);
    }
    auto small = selectBackend(BackendChoice::Auto, 1000);
    EXPECT_EQ(small.backend->kind(), BackendKind::Cpu);
    // One-pass work (no bytes to re-bin) stays on the CPU, with or without a device.
    auto onePass = selectBackend(BackendChoice::Auto);
    EXPECT_EQ(onePass.backend->kind(), BackendKind::Cpu);
    EXPECT_TRUE(onePass.note.empty());
    if (cudaAvailable())
        EXPECT_EQ(selectBackend(BackendChoice::Auto, kCudaAutoMinBytes).backend->kind(),
                  BackendKind::Cuda);
    EXPECT_EQ(parseBackendChoice("cuda"), BackendChoice::Cuda);
    EXPECT_FALSE(parseBackendChoice("gpu").has_value());
}

} // namespace
} // namespace xt::analysis
