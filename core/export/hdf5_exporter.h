#pragma once
// Exports one XDL run to HDF5 with this layout (README "HDF5 layout"), readable with h5py, pandas
// or MATLAB without this project:
//   /                      attrs producer="xtview", layout_version=1, run, sources
//   /rank{R}/meta          compound, one row per part file
//   /rank{R}/{key}/        "/" in a key nests groups; attr `key` holds the original name
//       values             [n, *shape] in the original dtype, or ragged: values 1-D +
//                          offsets [n+1] + shapes [n, max rank] (padded with -1)
//       gstep, lstep, timestamp   int64 [n]
//       stats              compound [n]: count, nan, inf, zeros, min, max, mean, std, l2
// Empty columns are not rows. Datasets are chunked; deflate is optional. The file is written
// under a temporary name and renamed when complete, so a failed or cancelled export leaves
// nothing behind.

#include "core/analysis/backend.h"
#include "core/base/diagnostics.h"
#include "core/base/progress.h"
#include "core/xdl/trace_reader.h"

#include <optional>
#include <string>

namespace xt {

struct Hdf5ExportOptions {
    std::string keyRegex; // ECMAScript regex searched in key names; empty: every key
    std::optional<std::int64_t> gstepFirst, gstepLast; // inclusive range of global steps
    int deflateLevel = 0;                              // 0: no compression, 1-9: gzip level
    // Computes `stats` (the CPU when null), called from a helper thread, one call at a time.
    analysis::Backend* backend = nullptr;
    // Memory for the rows the planning pass finds (about 40 B a row); past it, the writing pass
    // decodes the records again.
    std::uint64_t rowRefBytes = 128ull << 20;
    // Memory for the rows gathered before they are written, all keys together (a key is also
    // written on its own at 8 MiB; uncompressed keys are written in turn past a 16th of it, by
    // the statistics' thread, with up to 4 MiB more waiting for it).
    std::uint64_t bufferBytes = 256ull << 20;
};

struct Hdf5ExportReport {
    std::uint64_t keys = 0;       // key groups written (over all ranks)
    std::uint64_t rows = 0;       // tensor rows written
    std::uint64_t valueBytes = 0; // tensor payload bytes written
    std::uint64_t raggedKeys = 0; // key groups stored ragged
};

Result<Hdf5ExportReport> exportHdf5(const xdl::RunReader& run, const std::string& outPath,
                                    const Hdf5ExportOptions& options, Diagnostics& diag,
                                    const ProgressCallback& progress = {});

} // namespace xt
