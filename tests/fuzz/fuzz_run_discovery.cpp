// Fuzz target run_discovery: the input describes a small directory tree of up to 12 files. Each
// entry is [flags][name bytes][u16 content length][content]; flags pick a subdirectory, whether
// the name is raw bytes or a well-formed part name {prefix}.{name}.{rank}.{index}[.meta] built
// from the name bytes (so discovery sees real runs, gaps, duplicates and metas), and whether the
// content is a Meta message. The tree is written to a fresh temp directory, then discovered by
// directory, by glob and file by file, and every run found is opened and read.
#include "core/xdl/run_discovery.h"
#include "core/xdl/trace_reader.h"
#include "fuzz_targets.h"
#include "temp_dir.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace xt::fuzz {

namespace {

struct Input {
    const std::uint8_t* p;
    std::size_t n;
    std::uint8_t byte() {
        if (n == 0) return 0;
        --n;
        return *p++;
    }
    std::string bytes(std::size_t k) {
        k = std::min(k, n);
        std::string s(reinterpret_cast<const char*>(p), k);
        p += k;
        n -= k;
        return s;
    }
};

std::string rawName(std::string s) {
    for (char& c : s)
        if (c == '/' || c == '\0') c = '_';
    if (s.empty() || s == "." || s == "..") s = "x" + s;
    return s.substr(0, 200);
}

std::string partName(const std::string& b, std::uint8_t flags) {
    static const char* kPrefixes[] = {"train", "test", "a.b", ""};
    const std::string name = b.empty() ? "run" : rawName(b.substr(0, b.size() / 2 + 1));
    std::uint64_t rank = b.size() > 1 ? std::uint8_t(b[1]) % 4 : 0;
    std::uint64_t index = b.size() > 2 ? std::uint8_t(b[2]) % 6 : 1;
    if (b.size() > 3 && (b[3] & 1)) index = std::uint64_t(std::uint8_t(b[3])) << 50; // huge
    if (b.size() > 4 && (b[4] & 1)) rank = std::uint64_t(std::uint8_t(b[4])) << 24;
    std::string s = std::string(kPrefixes[flags >> 6]) + "." + name + "." + std::to_string(rank) +
                    "." + std::to_string(index);
    return (flags & 4) ? s + ".meta" : s;
}

} // namespace

int runDiscovery(const std::uint8_t* data, std::size_t size) {
    using namespace xt::xdl;
    namespace fs = std::filesystem;
    xt::test::TempDir dir;
    if (dir.path().empty()) return 0;
    Input in{data, size};
    std::vector<std::string> written;
    for (int i = 0; i < 12 && in.n > 0; ++i) {
        const std::uint8_t flags = in.byte();
        const std::string nameBytes = in.bytes(in.byte() % 24);
        std::size_t len = in.byte();
        len |= std::size_t(in.byte()) << 8;
        std::string content = in.bytes(len);
        if (flags & 8) content = encodeMeta(MetaInfo{1, 2, 3, 4, 5, 6}).substr(0, content.size());
        const std::string name = (flags & 2) ? partName(nameBytes, flags) : rawName(nameBytes);
        const auto parsed = parsePartFileName(name);
        if (parsed) {
            auto again = parsePartFileName(partFileName(*parsed));
            XT_FUZZ_CHECK(again && again->prefix == parsed->prefix && again->name == parsed->name &&
                          again->rank == parsed->rank && again->index == parsed->index);
        }
        fs::path at = dir.path();
        if (flags & 1) at /= "sub" + std::to_string(flags >> 4 & 3);
        std::error_code ec;
        fs::create_directories(at, ec);
        at /= name;
        if (fs::exists(at, ec)) continue;
        std::ofstream(at, std::ios::binary) << content;
        written.push_back(at.string());
    }

    auto readRuns = [](const std::vector<RunFiles>& runs, Diagnostics& diag) {
        for (const RunFiles& files : runs) {
            for (const RankFiles& r : files.ranks) {
                XT_FUZZ_CHECK(!r.parts.empty());
                for (std::size_t i = 1; i < r.parts.size(); ++i)
                    XT_FUZZ_CHECK(r.parts[i - 1].index < r.parts[i].index);
            }
            auto run = RunReader::open(files, diag);
            if (!run) continue;
            for (const std::string& key : run->keys())
                for (const RankReader& rank : run->ranks())
                    rank.forEachTensor(key, diag, [](std::size_t, const TensorView& t) {
                        return t.size() < (1u << 30);
                    });
        }
    };
    Diagnostics diag;
    if (auto runs = discoverRuns({dir.str()}, diag)) readRuns(*runs, diag);
    if (auto runs = discoverRuns({dir.str() + "/*"}, diag)) readRuns(*runs, diag);
    for (const std::string& path : written) {
        PartFile part;
        part.path = path;
        readMeta(part, diag);
        if (auto runs = discoverRuns({path}, diag)) readRuns(*runs, diag);
    }
    return 0;
}

} // namespace xt::fuzz
