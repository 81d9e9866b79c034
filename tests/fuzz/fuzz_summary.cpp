// Fuzz target summary: the input is a part summary file (.xts). It is parsed from memory and from
// a mapped file with its records and columns left in place (whatever its size), which must agree:
// both refuse it, or both give a summary that serialises to the same bytes. An accepted summary
// serialises to a file that parses back to itself, its per-column totals count every column, and
// a pass that gives the pages back reads what the parse read.
#include "core/base/mapped_file.h"
#include "core/summary/part_summary.h"
#include "fuzz_targets.h"
#include "temp_dir.h"

#include <fstream>
#include <string>

namespace xt::fuzz {

int summary(const std::uint8_t* data, std::size_t size) {
    using namespace xt::summary;
    auto fromMemory = parseSummary({data, size}, "fuzz.xts");
    static const xt::test::TempDir dir; // removed when the process ends
    static const std::string path = dir.file("fuzz.xts");
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), std::streamsize(size));
    auto file = MappedFile::open(path);
    XT_FUZZ_CHECK(file.isOk());
    auto inPlace =
        parseSummary(std::make_shared<const MappedFile>(std::move(*file)), "fuzz.xts", nullptr, 0);
    XT_FUZZ_CHECK(fromMemory.isOk() == inPlace.isOk());
    if (!fromMemory) return 0;
    const std::string bytes = serializeSummary(*fromMemory);
    XT_FUZZ_CHECK(serializeSummary(*inPlace) == bytes);
    auto again = parseSummary({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()},
                              "again.xts");
    XT_FUZZ_CHECK(again.isOk());
    XT_FUZZ_CHECK(serializeSummary(*again) == bytes);

    const PartSummary& s = *inPlace;
    XT_FUZZ_CHECK(s.columnStart.size() == s.recordCount() + 1);
    std::uint64_t counted = 0;
    for (const ColumnTotals& t : s.totals)
        counted += t.data + t.empty + t.damaged;
    XT_FUZZ_CHECK(counted == s.columns.size());
    std::size_t released = 0;
    for (std::size_t r = 0; r < s.recordCount(); ++r) {
        s.releaseBehind(r, released);
        const auto cols = s.columnsOf(r);
        for (std::size_t c = 0; c < cols.size(); ++c) {
            const ColumnSummary col = cols[c];
            XT_FUZZ_CHECK(col.dataOffset >= s.records[r].offset);
            XT_FUZZ_CHECK(col.dataOffset + col.dataLength <=
                          s.records[r].offset + s.records[r].length);
            XT_FUZZ_CHECK(col.stats.nan + col.stats.inf <= col.stats.count);
            XT_FUZZ_CHECK(col.sketch == kNone || col.sketch < s.sketches.size());
            (void)s.shapeOf(col);
        }
    }
    s.releaseBehind(s.recordCount(), released);
    XT_FUZZ_CHECK(serializeSummary(s) == bytes);
    return 0;
}

} // namespace xt::fuzz
