// Fuzz target xdl_record: the input is one XDL data file. Every decoder runs on the whole input
// as a single message, then the RecordIndex scans it as a file that grows in three steps (as a
// live file does) and every indexed record is decoded and its columns checked and read. The same
// scan in two-thread steps of 128 bytes must give the same records and diagnostics.
#include "core/xdl/record_index.h"
#include "core/xdl/tensor_view.h"
#include "core/xdl/wire.h"
#include "fuzz_targets.h"

#include <vector>

namespace xt::fuzz {

int xdlRecord(const std::uint8_t* data, std::size_t size) {
    using namespace xt::xdl;
    const Bytes all(data, size);

    RecordView rv;
    RecordHead head;
    std::vector<std::string> keys;
    MetaInfo meta;
    (void)decodeRecord(all, rv);
    (void)decodeRecordHead(all, head);
    (void)decodeHeader(all, keys);
    (void)decodeMeta(all, meta);

    Diagnostics diag, splitDiag;
    IndexOptions options, split;
    options.maxRecordBytes = split.maxRecordBytes = 1u << 20;
    options.splitBytes = 0;
    split.splitBytes = 128;
    RecordIndex index("fuzz.xdl", options), splitIndex("fuzz.xdl", split);
    for (std::size_t cut : {size / 3, 2 * size / 3, size}) {
        (void)index.extend(all.first(cut), diag);
        (void)splitIndex.extend(all.first(cut), splitDiag);
        XT_FUZZ_CHECK(index.scannedTo() <= cut);
    }
    index.finish(all, diag);
    splitIndex.finish(all, splitDiag);
    XT_FUZZ_CHECK(splitIndex.scannedTo() == index.scannedTo());
    XT_FUZZ_CHECK(splitIndex.records().size() == index.records().size());
    for (std::size_t i = 0; i < index.records().size(); ++i)
        XT_FUZZ_CHECK(splitIndex.records()[i].offset == index.records()[i].offset &&
                      splitIndex.records()[i].gstep == index.records()[i].gstep);
    XT_FUZZ_CHECK(splitDiag.items().size() == diag.items().size());
    for (std::size_t i = 0; i < diag.items().size(); ++i)
        XT_FUZZ_CHECK(splitDiag.items()[i].toString() == diag.items()[i].toString());
    double sink = 0;
    for (const RecordEntry& e : index.records()) {
        XT_FUZZ_CHECK(e.offset + e.length <= size);
        XT_FUZZ_CHECK(e.length <= options.maxRecordBytes);
        if (!decodeRecord(all.subspan(e.offset, e.length), rv)) continue;
        XT_FUZZ_CHECK(rv.columns.size() == e.columnCount);
        for (const ColumnView& c : rv.columns) {
            if (c.check() != ColumnProblem::None || c.isEmpty()) continue;
            XT_FUZZ_CHECK(c.data.data() >= data && c.data.data() + c.data.size() <= data + size);
            TensorView t(c.dtype(), c.shape, c.data);
            XT_FUZZ_CHECK(std::int64_t(t.size()) == c.shape.numElements());
            sink += t.valueAsDouble(0) + t.valueAsDouble(t.size() - 1);
        }
    }
    for (const auto& d : diag.items())
        XT_FUZZ_CHECK(!d.code.empty());
    static volatile double keep;
    keep = sink; // the element reads are not optimised away
    return 0;
}

} // namespace xt::fuzz
