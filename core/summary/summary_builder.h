#pragma once
// Building summaries: indexing a part's records and computing every column's statistics and
// sketch, bit-identical to the CPU backend. Incremental: a summary of a part that grew is
// extended with the new records only.

#include "core/base/diagnostics.h"
#include "core/base/mapped_file.h"
#include "core/base/progress.h"
#include "core/summary/part_summary.h"

namespace xt::summary {

// Extends `s` (empty for a new summary) over the complete records of file.bytes() beyond
// s.identity.size, then sets s.identity.size and fingerprints (source and mtimeNs are the
// caller's). `final` declares the file complete (a trailing incomplete record is then reported,
// as RecordIndex::finish does). Damaged records and columns go to diag and are kept as Damaged.
// Releases the file's pages as it goes (MappedFile::release), so memory stays bounded.
Status extendSummary(PartSummary& s, const MappedFile& file, bool final, Diagnostics& diag,
                     const ProgressCallback& progress = {});

// The fingerprints of `bytes` (its first and last PartIdentity::kPrintBytes).
std::uint64_t headPrint(std::span<const std::uint8_t> bytes);
std::uint64_t tailPrint(std::span<const std::uint8_t> bytes);

} // namespace xt::summary
