#pragma once
// Helpers for XDL tests: temporary directories and an independent writer built on the
// protobuf-generated classes (so the hand-written encoder and decoder are checked against
// protobuf's own serializer).

#include "core/xdl/wire.h"
#include "temp_dir.h"
#include "xdl.pb.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace xt::test {

inline std::string frame(const std::string& message) {
    std::string out(4, '\0');
    auto n = static_cast<std::uint32_t>(message.size());
    for (int i = 0; i < 4; ++i)
        out[i] = static_cast<char>(n >> (8 * i));
    return out + message;
}

inline std::string headerBytes(const std::vector<std::string>& keys) {
    ::xdl::proto::Header h;
    for (const auto& k : keys)
        h.add_key(k);
    return h.SerializeAsString();
}

template <class T> std::string rawBytes(const std::vector<T>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A record whose single float column holds `n` values derived from gstep.
inline ::xdl::proto::Record floatRecord(std::int64_t gstep, int n = 4) {
    ::xdl::proto::Record r;
    r.set_gstep(gstep);
    r.set_lstep(gstep + 1);
    r.set_timestamp(1700000000000 + gstep * 100);
    auto* c = r.add_column();
    c->set_dtype(::xdl::proto::Float);
    c->add_shape(n);
    std::vector<float> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = static_cast<float>(gstep) + 0.25f * i;
    c->set_data(rawBytes(v));
    return r;
}

inline void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A file with a one-key header and `records` float records at gsteps 0..records-1.
// n bytes of a pattern that differs with `seed`, for files whose ranges tests compare.
inline std::string pattern(std::size_t n, int seed = 0) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
        s[i] = static_cast<char>((i * 131 + i / 7 + static_cast<std::size_t>(seed) * 17) & 0xff);
    return s;
}

// The bytes of s as the reader takes them.
inline xdl::Bytes asBytes(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

inline std::string simpleFile(int records, int n = 4) {
    std::string s = frame(headerBytes({"w"}));
    for (int g = 0; g < records; ++g)
        s += frame(floatRecord(g, n).SerializeAsString());
    return s;
}

} // namespace xt::test
