#pragma once
// Building summaries: indexing a part's records and computing every column's statistics and
// sketch, bit-identical to the CPU backend. Incremental: a summary of a part that grew is
// extended with the new records only.

#include "core/base/diagnostics.h"
#include "core/base/mapped_file.h"
#include "core/base/progress.h"
#include "core/summary/part_summary.h"

#include <string>
#include <unordered_map>

namespace xt::summary {

// Extends `s` (empty for a new summary) over the complete records of file.bytes() beyond
// s.scannedTo, then sets s.identity.size and fingerprints (source and mtimeNs are the
// caller's). `final` declares the file complete (a trailing incomplete record is then reported,
// as RecordIndex::finish does). Damaged records and columns go to diag and are kept as Damaged.
// Releases the file's pages as it goes (MappedFile::release), so memory stays bounded; a first
// build of many columns writes them to an unlinked file in `spillDir` (when given) as it goes
// and reads them from there, and so does the index of many records (IndexOptions::spillDir).
// Cancelled (progress said stop) leaves `s` as it was.
// A new summary can start from `readerIndex`, an index of the same bytes that reported nothing
// (xdl::PartReader::cleanScan): its records are not copied (RecordTable::borrowed), so they must
// outlive `s` or s.materialize() unless the index keeps them in a mapping (IndexState::keep).
Status extendSummary(PartSummary& s, const MappedFile& file, bool final, Diagnostics& diag,
                     const ProgressCallback& progress = {}, const std::string& spillDir = {},
                     const xdl::IndexState* readerIndex = nullptr);

// Adds column summaries record by record, for a writer that has each record's bytes in hand
// (the recorder): the caller appends the record's entry to summary.records, then calls add().
class SummaryBuilder {
public:
    explicit SummaryBuilder(PartSummary& summary);
    // The columns of summary.records[record], whose message (the bytes at its offset) is
    // `message`; every earlier record must have its columns. Damage goes to diag under `file`.
    void add(std::size_t record, xdl::Bytes message, Diagnostics& diag, const std::string& file);

private:
    std::uint32_t shapeIndex(const xdl::Shape& shape);

    PartSummary& m_s;
    std::unordered_map<std::string, std::uint32_t> m_shapes; // shape bytes -> index
    xdl::RecordView m_view;
};

// The fingerprints of `bytes` (its first and last PartIdentity::kPrintBytes).
std::uint64_t headPrint(std::span<const std::uint8_t> bytes);
std::uint64_t tailPrint(std::span<const std::uint8_t> bytes);

} // namespace xt::summary
