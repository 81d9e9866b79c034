// Entry points of the Chrome-trace importer. This file is compiled without AVX2 flags (and
// must not include simdjson.h) so that it can refuse cleanly on a CPU the parser was not built
// for.
#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/json_kernel.h"

#include <unistd.h>

namespace xt::timeline {

bool jsonKernelSupported() {
#if defined(XT_JSON_AVX2) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
           __builtin_cpu_supports("popcnt");
#else
    return true;
#endif
}

namespace {
Status unsupportedCpu() {
    return Status(ErrorCode::Unsupported, "this build's JSON parser needs an AVX2 CPU; rebuild "
                                          "with -DXT_JSON_AVX2=OFF");
}

std::uint64_t maxInflated(const ImportOptions& options) {
    if (options.maxInflatedBytes) return options.maxInflatedBytes;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 8ull << 30;
    return std::uint64_t(pages) * std::uint64_t(page) / 2;
}
} // namespace

Result<TraceStore> importChromeTrace(const std::string& path, const ImportOptions& options) {
    if (!jsonKernelSupported()) return unsupportedCpu();
    return importChromeTraceParsed(TraceBytes::load(path, options.progress, maxInflated(options)),
                                   options, path);
}

Result<TraceStore> importChromeTraceBytes(std::string bytes, const ImportOptions& options,
                                          const std::string& name) {
    if (!jsonKernelSupported()) return unsupportedCpu();
    return importChromeTraceParsed(
        TraceBytes::fromMemory(std::move(bytes), options.progress, maxInflated(options)), options,
        name);
}

} // namespace xt::timeline
