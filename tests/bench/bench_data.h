#pragma once
// Generated benchmark inputs: XDL runs of float32 tensors written once under $XT_BENCH_DIR
// (default /tmp) and reused by later runs (a finalised meta marks a complete file).

#include "core/xdl/file_series_writer.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace xt::bench {

inline std::string benchDir() {
    const char* d = std::getenv("XT_BENCH_DIR");
    return d ? d : "/tmp";
}

// A one-rank, one-part run in benchDir()/xt_bench_<name>: records of `keys` float32 columns of
// `floats` elements, until the file holds `minBytes` or `maxRecords` records. Returns the
// run directory; its data file is <dir>/train.trace.0.1.
inline std::string ensureFloatRun(const std::string& name, std::uint64_t minBytes,
                                  std::int64_t maxRecords, std::size_t floats, int keys) {
    std::string dir = benchDir() + "/xt_bench_" + name;
    std::error_code ec;
    if (std::filesystem::file_size(dir + "/train.trace.0.1.meta", ec) > 0 && !ec) return dir;
    std::vector<std::string> names;
    for (int k = 0; k < keys; ++k)
        names.push_back("layer" + std::to_string(k) + "/weight");
    auto w = xdl::FileSeriesWriter::create({dir, "trace", 1e9, 0, true}, names);
    if (!w) {
        std::fprintf(stderr, "%s\n", w.status().toString().c_str());
        std::exit(1);
    }
    std::vector<float> data(floats);
    for (std::size_t i = 0; i < floats; ++i)
        data[i] = static_cast<float>(i % 977) * 0.01f;
    std::vector<std::int64_t> shape = {static_cast<std::int64_t>(floats)};
    const xdl::Bytes bytes(reinterpret_cast<const std::uint8_t*>(data.data()), floats * 4);
    xdl::RecordEncoder enc;
    for (std::int64_t step = 0; step < maxRecords && (*w)->totalBytes() < minBytes; ++step) {
        enc.begin(step, step + 1);
        for (int k = 0; k < keys; ++k)
            enc.addColumn(xdl::Dtype::Float, shape, bytes);
        const std::int64_t ts = 1700000000000 + step * 10;
        if (!enc.finish(ts) || !(*w)->write(enc.framed(), step, step + 1, ts)) std::exit(1);
    }
    if (!(*w)->close()) std::exit(1);
    return dir;
}

// `path`, written out, its cached pages dropped and read back with read(): cached as a read
// from disk leaves it (in large folios where the kernel has them), not as it was written or last
// faulted in, which changes the speed of both a mapping and read() (docs/BENCHMARKS.md, P1,
// session 34, and P6, session 41).
inline std::string cachedAsReadFromDisk(std::string path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return path;
    ::fdatasync(fd); // dirty pages are not dropped
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    std::vector<char> buf(1 << 20);
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
    ::close(fd);
    return path;
}

} // namespace xt::bench
