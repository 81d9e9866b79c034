#pragma once
// Seed inputs of the fuzz targets, built with the project's own encoders and protobuf's (so they
// are small, valid and always match the current formats). xt_fuzz_seeds writes them to a
// corpus directory for packaging/fuzz.sh; test_fuzz_regressions replays them with every build.

#include <string>
#include <utility>
#include <vector>

namespace xt::fuzz {

// The fuzz targets by name, as used for directories and executables (fuzz_<name>).
const std::vector<std::string>& targetNames();
// (file name, bytes) seeds of one target.
std::vector<std::pair<std::string, std::string>> seedsFor(const std::string& target);
// The entry point of one target by name, or nullptr.
using FuzzFn = int (*)(const unsigned char*, std::size_t);
FuzzFn targetFunction(const std::string& target);

} // namespace xt::fuzz
