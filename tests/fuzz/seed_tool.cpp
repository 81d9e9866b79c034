// xt_fuzz_seeds OUT_DIR: writes every fuzz target's seeds to OUT_DIR/<target>/ (packaging/fuzz.sh).
#include "seeds.h"

#include <filesystem>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: xt_fuzz_seeds OUT_DIR\n";
        return 2;
    }
    for (const std::string& t : xt::fuzz::targetNames()) {
        const std::filesystem::path dir = std::filesystem::path(argv[1]) / t;
        std::filesystem::create_directories(dir);
        for (const auto& [name, bytes] : xt::fuzz::seedsFor(t))
            std::ofstream(dir / name, std::ios::binary) << bytes;
    }
    return 0;
}
