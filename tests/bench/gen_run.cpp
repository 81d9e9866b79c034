// Writes a large generated XDL run for the open-time benchmarks (P9, P10 in PERFORMANCE.md):
//   xt_gen_run DIR --ranks R --bytes B --record-bytes N [--part-mb M]
// Each rank gets B / R bytes of records of about N bytes: with N >= 4096, eleven keys of a small
// model (float32, one float64 and one int32 column; values vary per step, with a NaN now and
// then); below that, four small keys (loss, lr, grad_norm, a few activations). A complete run
// (every meta finalised) is left as it is, so later benchmark runs reuse it.

#include "core/xdl/file_series_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace xt;

struct Key {
    std::string name;
    xdl::Dtype dtype;
    std::int64_t elements;
};

std::vector<Key> keysFor(std::uint64_t recordBytes) {
    if (recordBytes < 4096)
        return {{"loss", xdl::Dtype::Float, 1},
                {"lr", xdl::Dtype::Double, 1},
                {"grad_norm", xdl::Dtype::Float, 1},
                {"acts/sample", xdl::Dtype::Float,
                 std::max<std::int64_t>(1, (std::int64_t(recordBytes) - 80) / 4)}};
    // Shares of a record: the big weights take most of it.
    const double f = double(recordBytes) / 4.0;
    auto n = [&](double share) { return std::max<std::int64_t>(1, std::int64_t(f * share)); };
    return {{"conv1/weight", xdl::Dtype::Float, n(0.05)},
            {"conv1/bias", xdl::Dtype::Float, 64},
            {"fc1/weight", xdl::Dtype::Float, n(0.40)},
            {"fc1/bias", xdl::Dtype::Float, 512},
            {"fc2/weight", xdl::Dtype::Float, n(0.20)},
            {"fc2/bias", xdl::Dtype::Float, 128},
            {"gradient/fc1/weight", xdl::Dtype::Float, n(0.20)},
            {"gradient/fc2/weight", xdl::Dtype::Double, n(0.05)},
            {"activations/fc1", xdl::Dtype::Float, n(0.08)},
            {"embedding/ids", xdl::Dtype::Int32, 256},
            {"loss", xdl::Dtype::Float, 1}};
}

// A pool of pseudo-normal values; records take windows of it, scaled per step.
std::vector<float> makePool(std::size_t n) {
    std::vector<float> pool(n);
    std::uint64_t s = 0x9e3779b97f4a7c15ull;
    for (auto& v : pool) {
        double acc = 0;
        for (int i = 0; i < 4; ++i) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            acc += double(s >> 11) / double(1ull << 53);
        }
        v = float((acc - 2.0) * 1.7);
    }
    return pool;
}

int usage() {
    std::fprintf(stderr,
                 "usage: xt_gen_run DIR --ranks R --bytes B --record-bytes N [--part-mb M]\n");
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    const std::string dir = argv[1];
    int ranks = 4;
    std::uint64_t bytes = 100ull << 20, recordBytes = 1u << 20;
    double partMb = 300;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const char* v = argv[i + 1];
        if (a == "--ranks")
            ranks = std::atoi(v);
        else if (a == "--bytes")
            bytes = std::strtoull(v, nullptr, 10);
        else if (a == "--record-bytes")
            recordBytes = std::strtoull(v, nullptr, 10);
        else if (a == "--part-mb")
            partMb = std::atof(v);
        else
            return usage();
    }
    if (ranks < 1 || bytes == 0 || recordBytes == 0) return usage();
    std::error_code ec;
    if (std::filesystem::exists(dir + "/.complete", ec)) {
        std::printf("%s: already complete\n", dir.c_str());
        return 0;
    }
    std::filesystem::remove_all(dir, ec);
    const std::vector<Key> keys = keysFor(recordBytes);
    std::vector<std::string> names;
    std::size_t maxElements = 0;
    for (const auto& k : keys) {
        names.push_back(k.name);
        maxElements = std::max<std::size_t>(maxElements, std::size_t(k.elements));
    }
    const std::vector<float> pool = makePool(std::max<std::size_t>(maxElements * 2, 1 << 16));
    std::vector<std::uint8_t> buf(maxElements * 8);
    xdl::RecordEncoder enc;
    for (int r = 0; r < ranks; ++r) {
        auto w = xdl::FileSeriesWriter::create({dir, "trace", partMb, r, true}, names);
        if (!w) {
            std::fprintf(stderr, "%s\n", w.status().toString().c_str());
            return 2;
        }
        const std::uint64_t rankBytes = bytes / std::uint64_t(ranks);
        for (std::int64_t step = 0; (*w)->totalBytes() < rankBytes; ++step) {
            const std::int64_t gstep = step * ranks + r;
            enc.begin(gstep, step + 1);
            const double scale = 1.0 / std::sqrt(1.0 + double(step) * 0.01);
            for (std::size_t k = 0; k < keys.size(); ++k) {
                const Key& key = keys[k];
                const std::size_t n = std::size_t(key.elements);
                const std::size_t at =
                    std::size_t(step * 7919 + std::int64_t(k) * 104729) % (pool.size() - n + 1);
                for (std::size_t i = 0; i < n; ++i) {
                    const double v = pool[at + i] * scale + (key.name == "loss" ? 2.0 * scale : 0);
                    if (key.dtype == xdl::Dtype::Float) {
                        float f = float(v);
                        if (i == 0 && k == 2 && step % 997 == 996) f = NAN;
                        std::memcpy(&buf[i * 4], &f, 4);
                    } else if (key.dtype == xdl::Dtype::Double) {
                        std::memcpy(&buf[i * 8], &v, 8);
                    } else {
                        const std::int32_t x = std::int32_t(std::llround(v * 1000));
                        std::memcpy(&buf[i * 4], &x, 4);
                    }
                }
                const std::vector<std::int64_t> shape = {key.elements};
                enc.addColumn(key.dtype, shape,
                              xdl::Bytes(buf.data(), n * xdl::elementSize(key.dtype)));
            }
            const std::int64_t ts = 1700000000000 + step * 100;
            if (!enc.finish(ts) || !(*w)->write(enc.framed(), gstep, step + 1, ts)) {
                std::fprintf(stderr, "write failed\n");
                return 2;
            }
        }
        if (!(*w)->close()) return 2;
    }
    std::FILE* f = std::fopen((dir + "/.complete").c_str(), "w");
    if (f) std::fclose(f);
    std::printf("%s: %d ranks, %llu bytes\n", dir.c_str(), ranks, (unsigned long long)bytes);
    return 0;
}
