#include "core/summary/part_summary.h"

#include "core/base/fd_io.h"
#include "core/summary/overview.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <stdexcept>
#include <type_traits>

namespace xt::summary {

static_assert(std::endian::native == std::endian::little,
              "the summary format is little-endian; this code writes host order");

namespace {

// docs/SUMMARY-FORMAT.md, version 1.
constexpr char kMagic[8] = {'X', 'T', 'S', 'U', 'M', '\r', '\n', '\x1a'};
constexpr char kEndMagic[8] = {'X', 'T', 'S', 'U', 'M', 'E', 'N', 'D'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 32;
constexpr std::size_t kSectionHeaderBytes = 24;
constexpr std::size_t kFooterBytes = 16;

enum SectionId : std::uint32_t {
    kPart = 1,
    kKeys = 2,
    kRecords = 3,
    kDamagedRecords = 4,
    kColumns = 5,
    kShapes = 6,
    kSketches = 7,
    kDiagnostics = 8,
    kOverview = 9,
};
constexpr std::uint32_t kLastRequired = kSketches; // 1..7 must each appear once
constexpr std::uint32_t kLastKnown = kOverview;
// The sections whose payloads the overview's own checksum covers, before its own.
constexpr SectionId kOverviewCovers[] = {kPart, kKeys, kDamagedRecords, kShapes};
constexpr std::size_t kPartBytes = 56; // + the source
constexpr std::size_t kRecordBytes = 40;
constexpr std::size_t kSketchBytes = 4 * kSketchBins;
constexpr std::size_t kDiagnosticBytes = 24; // + code + message

enum PartFlags : std::uint32_t { kHasHeader = 1, kStartChecked = 2, kTailReported = 4 };

// Writes the file in two passes: the first only counts (the file's size and each section's
// length, which come before their bytes), the second hands the bytes to a sink in pieces of
// kFlushBytes with the CRC kept as it goes, so a summary of GBs is never held whole.
class Writer {
public:
    using Sink = std::function<Status(std::string_view)>;
    Writer() = default; // counting
    Writer(Sink sink, std::vector<std::uint64_t> lengths)
        : m_sink(std::move(sink)), m_lengths(std::move(lengths)) {}

    template <class T> void put(T v) {
        static_assert(std::is_trivially_copyable_v<T>);
        char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        bytes({b, sizeof(T)});
    }
    void bytes(std::string_view s) {
        m_size += s.size();
        if (!m_sink) return;
        if (m_covered)
            m_coveredCrc =
                crc32({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}, m_coveredCrc);
        m_out.append(s);
        if (m_out.size() >= kFlushBytes) (void)flush(); // a failure stays in m_status
    }
    // Starts a section; end it with endSection().
    void beginSection(std::uint32_t id, std::uint64_t count) {
        put(id);
        put(std::uint32_t(0));
        put(count);
        put(m_sink ? m_lengths.at(m_section) : std::uint64_t(0));
        m_sectionStart = m_size;
        m_covered = std::find(std::begin(kOverviewCovers), std::end(kOverviewCovers), id) !=
                    std::end(kOverviewCovers);
    }
    void endSection() {
        m_covered = false;
        if (!m_sink) m_lengths.push_back(m_size - m_sectionStart);
        ++m_section;
        static constexpr char kZeros[8] = {};
        bytes({kZeros, (8 - m_size % 8) % 8});
    }
    // Counting only: `n` bytes that are not written.
    bool counting() const { return !m_sink; }
    void skip(std::uint64_t n) { m_size += n; }
    // Bytes so far; the CRC of those flushed; the first failure of the sink.
    std::uint64_t size() const { return m_size; }
    std::uint32_t crc() const { return m_crc; }
    Status flush() {
        if (m_sink && !m_out.empty() && m_status) {
            m_crc =
                crc32({reinterpret_cast<const std::uint8_t*>(m_out.data()), m_out.size()}, m_crc);
            m_status = m_sink(m_out);
        }
        m_out.clear();
        return m_status;
    }
    const std::vector<std::uint64_t>& lengths() const { return m_lengths; }
    // The CRC of the payloads of the sections in kOverviewCovers so far.
    std::uint32_t coveredCrc() const { return m_coveredCrc; }

private:
    static constexpr std::size_t kFlushBytes = std::size_t(4) << 20;
    Sink m_sink;
    std::vector<std::uint64_t> m_lengths; // of the sections' payloads, in order
    std::string m_out;
    std::uint64_t m_size = 0, m_sectionStart = 0;
    std::size_t m_section = 0;
    std::uint32_t m_crc = 0, m_coveredCrc = 0;
    bool m_covered = false;
    Status m_status = Status::ok();
};

// Bounds-checked little-endian reads over the file's bytes; the first failure sticks.
class Reader {
public:
    Reader(std::span<const std::uint8_t> b, std::size_t pos, std::size_t end)
        : m_b(b), m_pos(pos), m_end(end) {}
    template <class T> T get() {
        T v{};
        if (!need(sizeof(T))) return v;
        std::memcpy(&v, m_b.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }
    std::string string(std::size_t n) {
        if (!need(n)) return {};
        std::string s(reinterpret_cast<const char*>(m_b.data() + m_pos), n);
        m_pos += n;
        return s;
    }
    bool need(std::size_t n) {
        if (m_failed || m_end - m_pos < n) {
            m_failed = true;
            return false;
        }
        return true;
    }
    bool failed() const { return m_failed; }
    std::size_t pos() const { return m_pos; }
    std::size_t left() const { return m_end - m_pos; }

private:
    std::span<const std::uint8_t> m_b;
    std::size_t m_pos, m_end;
    bool m_failed = false;
};

struct Section {
    std::uint32_t id = 0;
    std::uint64_t count = 0;
    std::size_t begin = 0, end = 0; // payload bytes
};

class Parser {
public:
    Parser(std::span<const std::uint8_t> b, const std::string& name, std::uint64_t* errorOffset,
           std::shared_ptr<const MappedFile> file = nullptr,
           std::uint64_t inPlaceAbove = kMappedColumnsAbove, std::shared_ptr<ColumnSink> sink = {})
        : m_b(b), m_name(name), m_errorOffset(errorOffset), m_file(std::move(file)),
          m_inPlaceAbove(inPlaceAbove), m_sink(std::move(sink)) {}

    Result<PartSummary> run();
    // The summary without its records checked and without its columns, from its overview.
    Result<PartSummary> peek();

private:
    struct Table {
        Section at[kLastKnown + 1];
        bool seen[kLastKnown + 1] = {};
    };
    // The header's checks; the footer's offset and the count of sections.
    Status checkHeader(std::size_t& footer, std::uint32_t& sections);
    // The section headers, with the required sections present once each.
    Status readTable(std::size_t footer, std::uint32_t sections, Table& table);
    // The `sections` sections, once the header, the end marker and the footer are in place.
    Result<PartSummary> parseSections(std::size_t footer, std::uint32_t sections);
    Status fail(std::uint64_t offset, const std::string& why, ErrorCode code = ErrorCode::Corrupt) {
        if (m_errorOffset) *m_errorOffset = offset;
        return Status(code, m_name + ": offset " + std::to_string(offset) + ": " + why);
    }
    Status checkFixed(const Section& s, std::size_t itemBytes, const char* what) {
        if (s.count > (s.end - s.begin) / itemBytes || s.count * itemBytes != s.end - s.begin)
            return fail(s.begin - 16, std::string(what) + ": " + std::to_string(s.count) +
                                          " items do not fill " + std::to_string(s.end - s.begin) +
                                          " bytes");
        return Status::ok();
    }
    Status parsePart(const Section& s, PartSummary& out);
    Status parseKeys(const Section& s, PartSummary& out);
    Status parseRecords(const Section& s, PartSummary& out, bool inPlace);
    Status parseDamaged(const Section& s, PartSummary& out);
    Status parseShapes(const Section& s, PartSummary& out);
    Status parseSketches(const Section& s, PartSummary& out);
    // The records' section `records` is given back along with the columns.
    Status parseColumns(const Section& s, PartSummary& out, bool inPlace, const Section& records);
    Status parseDiagnostics(const Section& s, PartSummary& out);
    // Section 9, with its own checksum, for a part of `records` records.
    Status parseOverview(const Table& table, std::uint64_t records, Overview& out);

    // Gives back a mapped file's pages of bytes [begin, end), read for the last time.
    void release(std::size_t begin, std::size_t end) const {
        if (m_file && begin < end) m_file->release(begin, end - begin);
    }
    // release() of [from, to) passed front to back, with the piece of kReleaseStep before it once
    // more (not below `floor`): faults in one piece can map pages of the one before again (large
    // folios of the page cache).
    void releasePassed(std::size_t floor, std::size_t from, std::size_t to) const {
        release(std::max(floor, from - std::min(from, kReleaseStep)), to);
    }
    // releasePassed() of [released, at) once it spans kReleaseStep; `released` moves on to `at`.
    void releaseBehind(std::size_t floor, std::size_t& released, std::size_t at) const {
        if (at < released + kReleaseStep) return;
        releasePassed(floor, released, at);
        released = at;
    }
    // Carries the CRC of the file's bytes on to `end`, in file order. The parse calls it as it
    // passes the bytes, so that a large section is read once for both (2.2 GB of columns for a
    // 1 GB run of 200 B records). With `releaseBehind`, pages are given back as they are passed.
    void crcTo(std::size_t end, bool releaseBehind) {
        while (m_crcTo < end) {
            const std::size_t n = std::min(kReleaseStep, end - m_crcTo);
            m_crc = crc32(m_b.subspan(m_crcTo, n), m_crc);
            if (releaseBehind) releasePassed(0, m_crcTo, m_crcTo + n);
            m_crcTo += n;
        }
    }

    // Several parts are parsed at once. In pieces of 16 MB, given back without the piece before,
    // a part being parsed held up to ~60 MB of its pages.
    static constexpr std::size_t kReleaseStep = std::size_t(4) << 20;
    static constexpr std::size_t kCrcStep = std::size_t(128) << 10; // fits in a core's L2
    std::span<const std::uint8_t> m_b;
    const std::string& m_name;
    std::uint64_t* m_errorOffset;
    std::shared_ptr<const MappedFile> m_file;
    std::uint64_t m_inPlaceAbove;
    std::shared_ptr<ColumnSink> m_sink;
    std::size_t m_sinkColumn = ~std::size_t(0); // the column m_sink takes of each record
    // With an overview section, the overview of the records and columns as they are checked.
    std::optional<OverviewBuilder> m_overview;
    std::uint32_t m_crc = 0;
    std::size_t m_crcTo = 0; // m_crc covers the bytes before this
};

// A column's 96 bytes (docs/SUMMARY-FORMAT.md, section 5), of a record at `recordOffset`. The
// raw state byte goes to *state and the data's offset in its record to *rel, for checking.
ColumnSummary decodeColumn(const std::uint8_t* p, std::uint64_t recordOffset,
                           std::uint8_t* state = nullptr, std::uint32_t* rel = nullptr) {
    struct Raw {
        std::uint32_t rel, length;
        std::int32_t dtype;
        std::uint8_t state, problem;
        std::uint16_t reserved;
        std::uint32_t shape, sketch;
        std::uint64_t count, nan, inf, zeros;
        double min, max, mean, std, l2;
    };
    static_assert(sizeof(Raw) == kColumnBytes);
    Raw raw;
    std::memcpy(&raw, p, sizeof raw);
    ColumnSummary c;
    c.dataOffset = recordOffset + raw.rel;
    c.dataLength = raw.length;
    c.wireDtype = raw.dtype;
    c.state = ColumnState(raw.state);
    c.problem = raw.problem;
    c.shape = raw.shape;
    c.sketch = raw.sketch;
    c.stats = {raw.count, raw.nan, raw.inf,  raw.zeros, 0,
               raw.min,   raw.max, raw.mean, raw.std,   raw.l2};
    // Checked by the parser: nan + inf <= count.
    c.stats.finite = raw.count - std::min(raw.count, raw.nan + raw.inf);
    if (state) *state = raw.state;
    if (rel) *rel = raw.rel;
    return c;
}

Status Parser::parsePart(const Section& s, PartSummary& out) {
    Reader r(m_b, s.begin, s.end);
    auto& id = out.identity;
    id.size = r.get<std::uint64_t>();
    id.mtimeNs = r.get<std::int64_t>();
    id.headPrint = r.get<std::uint64_t>();
    id.tailPrint = r.get<std::uint64_t>();
    out.scannedTo = r.get<std::uint64_t>();
    out.headerLength = r.get<std::uint64_t>();
    const auto flags = r.get<std::uint32_t>();
    const auto sourceLength = r.get<std::uint32_t>();
    if (s.count != 1 || r.failed() || sourceLength != r.left())
        return fail(s.begin, "part section: bad size or count");
    id.source = r.string(sourceLength);
    out.hasHeader = flags & kHasHeader;
    out.startChecked = flags & kStartChecked;
    out.tailReported = flags & kTailReported;
    if (out.scannedTo > id.size || out.headerLength > out.scannedTo)
        return fail(s.begin, "part section: scanned " + std::to_string(out.scannedTo) +
                                 " (header " + std::to_string(out.headerLength) +
                                 ") of a part of " + std::to_string(id.size) + " bytes");
    return Status::ok();
}

Status Parser::parseKeys(const Section& s, PartSummary& out) {
    if (s.count > (s.end - s.begin) / 4) return fail(s.begin, "keys: count exceeds the section");
    Reader r(m_b, s.begin, s.end);
    out.keys.reserve(s.count);
    for (std::uint64_t i = 0; i < s.count; ++i) {
        const auto n = r.get<std::uint32_t>();
        out.keys.push_back(r.string(n));
        if (r.failed()) return fail(r.pos(), "keys: key " + std::to_string(i) + " is cut off");
    }
    if (r.left()) return fail(r.pos(), "keys: trailing bytes");
    return Status::ok();
}

Status Parser::parseRecords(const Section& s, PartSummary& out, bool inPlace) {
    XT_RETURN_IF_ERROR(checkFixed(s, kRecordBytes, "records"));
    static_assert(
        sizeof(xdl::RecordEntry) == kRecordBytes && alignof(xdl::RecordEntry) == 8 &&
        offsetof(xdl::RecordEntry, length) == 8 && offsetof(xdl::RecordEntry, columnCount) == 12 &&
        offsetof(xdl::RecordEntry, gstep) == 16 && offsetof(xdl::RecordEntry, timestamp) == 32);
    // The section starts at a multiple of 8 bytes of the (page-aligned) mapping.
    const auto* inFile = reinterpret_cast<const xdl::RecordEntry*>(m_b.data() + s.begin);
    xdl::RecordList* built = inPlace ? nullptr : &out.records.built();
    if (built) built->resize(s.count);
    std::uint64_t prevEnd = 0;
    // Read here, again for the columns' starts and again with the columns: each pass gives the
    // pages back behind it (two parses at once held their whole records sections, 40-60 MB each).
    std::size_t released = s.begin;
    for (std::size_t i = 0; i < s.count; ++i) {
        xdl::RecordEntry e;
        std::memcpy(&e, m_b.data() + s.begin + i * kRecordBytes, kRecordBytes);
        if (e.offset < prevEnd + 4 || e.offset > out.scannedTo ||
            e.length > out.scannedTo - e.offset)
            return fail(s.begin + i * kRecordBytes,
                        "record " + std::to_string(i) + " at " + std::to_string(e.offset) + " (+" +
                            std::to_string(e.length) +
                            ") is out of order or beyond the scanned bytes");
        prevEnd = e.offset + e.length;
        if (built) (*built)[i] = e;
        if (m_overview) m_overview->addRecord(i, e);
        const std::size_t checked = s.begin + (i + 1) * kRecordBytes;
        if (checked >= m_crcTo + kCrcStep) crcTo(checked, false); // as for the columns
        releaseBehind(s.begin, released, std::min(checked, m_crcTo));
    }
    release(released, s.end);
    if (inPlace) out.records = RecordTable::mapped(m_file, {inFile, std::size_t(s.count)});
    return Status::ok();
}

Status Parser::parseDamaged(const Section& s, PartSummary& out) {
    XT_RETURN_IF_ERROR(checkFixed(s, 8, "damaged records"));
    Reader r(m_b, s.begin, s.end);
    out.damagedRecords.resize(s.count);
    for (std::size_t i = 0; i < out.damagedRecords.size(); ++i) {
        out.damagedRecords[i] = r.get<std::uint64_t>();
        if (out.damagedRecords[i] >= out.records.size() ||
            (i > 0 && out.damagedRecords[i] <= out.damagedRecords[i - 1]))
            return fail(r.pos() - 8, "damaged record numbers out of order or range");
    }
    return Status::ok();
}

Status Parser::parseShapes(const Section& s, PartSummary& out) {
    if (s.count > (s.end - s.begin) / 8) return fail(s.begin, "shapes: count exceeds the section");
    Reader r(m_b, s.begin, s.end);
    out.shapes.resize(s.count);
    for (auto& shape : out.shapes) {
        const auto rank = r.get<std::uint32_t>();
        (void)r.get<std::uint32_t>();
        if (rank > std::uint32_t(xdl::kMaxRank) || !r.need(rank * 8u))
            return fail(r.pos(), "shapes: bad rank " + std::to_string(rank));
        shape.rank = int(rank);
        for (std::uint32_t d = 0; d < rank; ++d)
            shape.dims[d] = r.get<std::int64_t>();
    }
    if (r.failed() || r.left()) return fail(r.pos(), "shapes: size mismatch");
    return Status::ok();
}

Status Parser::parseSketches(const Section& s, PartSummary& out) {
    XT_RETURN_IF_ERROR(checkFixed(s, kSketchBytes, "sketches"));
    out.sketches.resize(s.count);
    if (s.count) std::memcpy(out.sketches.data(), m_b.data() + s.begin, s.end - s.begin);
    return Status::ok();
}

Status Parser::parseColumns(const Section& s, PartSummary& out, bool inPlace,
                            const Section& records) {
    XT_RETURN_IF_ERROR(checkFixed(s, kColumnBytes, "columns"));
    // Columns belong to the records in order; damaged records have none.
    out.columnStart.reset();
    std::size_t damaged = 0, startsReleased = records.begin;
    for (std::size_t i = 0; i < out.records.size(); ++i) {
        const bool isDamaged =
            damaged < out.damagedRecords.size() && out.damagedRecords[damaged] == i;
        damaged += isDamaged;
        out.columnStart.push_back(out.columnStart.back() +
                                  (isDamaged ? 0 : out.records[i].columnCount));
        releaseBehind(records.begin, startsReleased, records.begin + i * kRecordBytes);
    }
    release(startsReleased, records.end);
    if (out.columnStart.back() != s.count)
        return fail(s.begin - 16, "columns: " + std::to_string(s.count) +
                                      " for records that have " +
                                      std::to_string(out.columnStart.back()));
    // In place, the table stays in the mapped file (checked here all the same).
    std::vector<ColumnSummary>* built = inPlace ? nullptr : &out.columns.built();
    if (built) built->reserve(s.count);
    std::size_t record = 0, released = s.begin, recordsReleased = records.begin;
    for (std::size_t i = 0; i < s.count; ++i) {
        while (out.columnStart[record + 1] <= i)
            ++record;
        const xdl::RecordEntry& e = out.records[record];
        const std::size_t at = s.begin + i * kColumnBytes;
        // The columns are read once, front to back: ask for those ~20 ahead while this one is
        // checked (`xtrace info` of 2.2 GB of columns: 0.50 -> 0.45 s, 1-16 KB ahead all alike).
        __builtin_prefetch(m_b.data() + std::min(at + 2048, s.end - 1));
        std::uint8_t state = 0;
        std::uint32_t rel = 0;
        const ColumnSummary c = decodeColumn(m_b.data() + at, e.offset, &state, &rel);
        const auto& st = c.stats;
        if (state > std::uint8_t(ColumnState::Damaged) ||
            std::uint64_t(rel) + c.dataLength > e.length ||
            (c.shape != kNone && c.shape >= out.shapes.size()) ||
            (c.sketch != kNone && c.sketch >= out.sketches.size()) ||
            (c.state == ColumnState::Data && c.shape == kNone) || st.nan > st.count ||
            st.inf > st.count - st.nan || st.zeros > st.count)
            return fail(at, "column " + std::to_string(i) + " (record " + std::to_string(record) +
                                ") is inconsistent");
        if (built) built->push_back(c);
        const std::size_t column = i - out.columnStart[record];
        if (column == m_sinkColumn) m_sink->add(record, e, c);
        if (column >= out.totals.size()) out.totals.resize(column + 1);
        out.totals[column].add(c, record, out.shapes);
        if (m_overview) m_overview->add(record, column, c, out.shapes);
        // The checksum of what was just checked, while it is in the cache.
        if (at + kColumnBytes >= m_crcTo + kCrcStep) crcTo(at + kColumnBytes, false);
        if (at + kColumnBytes >= released + kReleaseStep) {
            crcTo(at + kColumnBytes, false);
            releaseBehind(s.begin, released, at + kColumnBytes);
        }
        releaseBehind(records.begin, recordsReleased, records.begin + record * kRecordBytes);
    }
    crcTo(s.end, false);
    release(released, s.end);
    release(recordsReleased, s.begin);
    if (inPlace) out.columns = ColumnTable::mapped(m_file, s.begin, s.count);
    if (m_sink) m_sink->finish(out.records.size());
    return Status::ok();
}

Status Parser::parseDiagnostics(const Section& s, PartSummary& out) {
    if (s.count > (s.end - s.begin) / kDiagnosticBytes)
        return fail(s.begin, "diagnostics: count exceeds the section");
    Reader r(m_b, s.begin, s.end);
    out.indexDiagnostics.resize(s.count);
    for (auto& d : out.indexDiagnostics) {
        const auto severity = r.get<std::uint8_t>();
        (void)r.get<std::uint8_t>();
        const auto codeLength = r.get<std::uint16_t>();
        const auto messageLength = r.get<std::uint32_t>();
        d.offset = r.get<std::uint64_t>();
        d.record = r.get<std::int64_t>();
        d.code = r.string(codeLength);
        d.message = r.string(messageLength);
        if (r.failed() || severity > std::uint8_t(Severity::Error))
            return fail(r.pos(), "diagnostics: bad item");
        d.severity = Severity(severity);
    }
    if (r.left()) return fail(r.pos(), "diagnostics: trailing bytes");
    return Status::ok();
}

Status Parser::parseOverview(const Table& table, std::uint64_t records, Overview& out) {
    const Section& s = table.at[kOverview];
    Reader r(m_b, s.begin, s.end);
    const auto stored = r.get<std::uint32_t>();
    out.blockRecords = r.get<std::uint32_t>();
    out.records = r.get<std::uint64_t>();
    const auto columns = r.get<std::uint32_t>();
    const auto blocks = r.get<std::uint32_t>();
    if (r.failed() || out.blockRecords != kOverviewBlock || out.records != records ||
        columns != s.count || blocks != Overview::blocksFor(records) ||
        Overview::encodedBytes(records, columns) != s.end - s.begin)
        return fail(s.begin, "overview: its size does not fit " + std::to_string(records) +
                                 " records of " + std::to_string(s.count) + " columns");
    std::uint32_t crc = 0;
    for (SectionId id : kOverviewCovers)
        if (table.seen[id])
            crc =
                crc32(m_b.subspan(table.at[id].begin, table.at[id].end - table.at[id].begin), crc);
    crc = crc32(m_b.subspan(s.begin + 4, s.end - s.begin - 4), crc);
    if (crc != stored) return fail(s.begin, "overview: checksum mismatch");
    out.blocks.resize(blocks);
    for (OverviewBlock& b : out.blocks)
        for (std::int64_t* v : {&b.g0, &b.g1, &b.gFirst, &b.gLast, &b.l0, &b.l1, &b.t0, &b.t1})
            *v = r.get<std::int64_t>();
    out.totals.resize(columns);
    for (ColumnTotals& t : out.totals) {
        for (std::uint64_t* v : {&t.data, &t.empty, &t.damaged})
            *v = r.get<std::uint64_t>();
        t.wireDtype = r.get<std::int32_t>();
        t.shape = r.get<std::uint32_t>();
        t.mixedDtypes = r.get<std::uint8_t>();
        t.varyingShape = r.get<std::uint8_t>();
        (void)r.get<std::uint16_t>();
        (void)r.get<std::uint32_t>();
        for (std::uint64_t* v : {&t.firstNan, &t.firstInf, &t.nanElements, &t.infElements})
            *v = r.get<std::uint64_t>();
        if ((t.firstNan != kNoRecord && t.firstNan >= records) ||
            (t.firstInf != kNoRecord && t.firstInf >= records))
            return fail(r.pos(), "overview: a first NaN or Inf beyond the records");
    }
    out.cells.resize(std::size_t(columns) * blocks);
    for (OverviewCell& c : out.cells) {
        c.data = r.get<std::uint32_t>();
        c.nonFinite = r.get<std::uint32_t>();
        for (auto* side : {&c.lo, &c.hi})
            for (double& v : *side)
                v = r.get<double>();
    }
    if (r.failed() || r.left()) return fail(r.pos(), "overview: bad size");
    return Status::ok();
}

Status Parser::checkHeader(std::size_t& footer, std::uint32_t& sections) {
    const std::size_t size = m_b.size();
    if (size < kHeaderBytes + kFooterBytes)
        return fail(size,
                    "truncated: " + std::to_string(size) + " bytes is shorter than any summary");
    if (std::memcmp(m_b.data(), kMagic, 8) != 0) return fail(0, "not a summary (bad magic)");
    Reader h(m_b, 8, kHeaderBytes);
    const auto version = h.get<std::uint32_t>();
    (void)h.get<std::uint32_t>(); // flags
    const auto fileSize = h.get<std::uint64_t>();
    sections = h.get<std::uint32_t>();
    if (version != kVersion)
        return fail(8,
                    "summary format version " + std::to_string(version) + " (this reader knows " +
                        std::to_string(kVersion) + ")",
                    ErrorCode::Unsupported);
    if (fileSize != size)
        return fail(size, fileSize > size
                              ? "truncated: the header says " + std::to_string(fileSize) +
                                    " bytes, the file has " + std::to_string(size)
                              : "the header says " + std::to_string(fileSize) +
                                    " bytes, the file has " + std::to_string(size));
    footer = size - kFooterBytes;
    if (std::memcmp(m_b.data() + footer + 8, kEndMagic, 8) != 0)
        return fail(footer + 8, "bad end marker");
    return Status::ok();
}

Result<PartSummary> Parser::run() {
    const std::size_t size = m_b.size();
    std::size_t footer = 0;
    std::uint32_t sections = 0;
    XT_RETURN_IF_ERROR(checkHeader(footer, sections));
    // The checksum is taken as the sections are parsed, and decides: a file whose bytes do not
    // match it is refused for that, whatever else the parse found in them.
    std::uint64_t errorOffset = 0;
    std::uint64_t* const wantedOffset = std::exchange(m_errorOffset, &errorOffset);
    Result<PartSummary> out = parseSections(footer, sections);
    m_errorOffset = wantedOffset;
    crcTo(footer, true);
    release(0, size); // what stays in the file (records, columns) is read again on demand
    std::uint32_t stored;
    std::memcpy(&stored, m_b.data() + footer, 4);
    if (m_crc != stored) return fail(footer, "checksum mismatch");
    if (!out.isOk() && m_errorOffset) *m_errorOffset = errorOffset;
    return out;
}

Status Parser::readTable(std::size_t footer, std::uint32_t sections, Table& table) {
    std::size_t pos = kHeaderBytes;
    for (std::uint32_t i = 0; i < sections; ++i) {
        if (footer - pos < kSectionHeaderBytes) return fail(pos, "section header is cut off");
        Reader r(m_b, pos, footer);
        Section s;
        s.id = r.get<std::uint32_t>();
        (void)r.get<std::uint32_t>();
        s.count = r.get<std::uint64_t>();
        const auto length = r.get<std::uint64_t>();
        s.begin = pos + kSectionHeaderBytes;
        if (length > footer - s.begin) return fail(pos, "section runs past the end");
        s.end = s.begin + std::size_t(length);
        const std::size_t padded = s.end + (8 - s.end % 8) % 8;
        if (padded > footer) return fail(s.end, "section padding runs past the end");
        pos = padded;
        if (s.id < 1 || s.id > kLastKnown) continue; // a later minor addition: skipped
        if (table.seen[s.id]) return fail(s.begin - kSectionHeaderBytes, "repeated section");
        table.seen[s.id] = true;
        table.at[s.id] = s;
    }
    if (pos != footer) return fail(pos, "bytes between the last section and the footer");
    for (std::uint32_t id = 1; id <= kLastRequired; ++id)
        if (!table.seen[id])
            return fail(kHeaderBytes, "section " + std::to_string(id) + " is missing");
    return Status::ok();
}

Result<PartSummary> Parser::parseSections(std::size_t footer, std::uint32_t sections) {
    // The sections, then each in an order where what it refers to is known.
    Table t;
    XT_RETURN_IF_ERROR(readTable(footer, sections, t));
    const auto& table = t.at;
    const auto& seen = t.seen;
    PartSummary out;
    // The overview is checked against the records and columns as they are parsed.
    auto overview = std::make_shared<Overview>();
    if (seen[kOverview]) {
        XT_RETURN_IF_ERROR(parseOverview(t, table[kRecords].count, *overview));
        m_overview.emplace(overview->records, overview->columns());
    }
    XT_RETURN_IF_ERROR(parsePart(table[kPart], out));
    XT_RETURN_IF_ERROR(parseKeys(table[kKeys], out));
    if (m_sink) {
        const int column = m_sink->select(out.keys);
        if (column >= 0) m_sinkColumn = std::size_t(column);
    }
    // A large summary's records and columns stay in the mapped file (RecordTable, ColumnTable).
    const bool inPlace = m_file && table[kColumns].end - table[kColumns].begin > m_inPlaceAbove;
    XT_RETURN_IF_ERROR(parseRecords(table[kRecords], out, inPlace));
    // The records and what precedes the columns; the records are read again with the columns.
    crcTo(table[kRecords].begin, true);
    crcTo(table[kColumns].begin, false);
    XT_RETURN_IF_ERROR(parseDamaged(table[kDamagedRecords], out));
    XT_RETURN_IF_ERROR(parseShapes(table[kShapes], out));
    XT_RETURN_IF_ERROR(parseSketches(table[kSketches], out));
    XT_RETURN_IF_ERROR(parseColumns(table[kColumns], out, inPlace, table[kRecords]));
    if (seen[kDiagnostics]) XT_RETURN_IF_ERROR(parseDiagnostics(table[kDiagnostics], out));
    if (m_overview) {
        const Overview fresh = m_overview->finish();
        // Its totals are the ones the parse counted.
        if (!(fresh.blocks == overview->blocks && fresh.cells == overview->cells &&
              overview->totals == out.totals))
            return fail(table[kOverview].begin, "the overview does not match the columns");
        out.overview = std::move(overview);
    }
    out.taken = m_sink;
    return out;
}

Result<PartSummary> Parser::peek() {
    std::size_t footer = 0;
    std::uint32_t sections = 0;
    XT_RETURN_IF_ERROR(checkHeader(footer, sections));
    Table t;
    XT_RETURN_IF_ERROR(readTable(footer, sections, t));
    if (!t.seen[kOverview])
        return Status(ErrorCode::NotFound, m_name + ": the summary has no overview");
    PartSummary out;
    XT_RETURN_IF_ERROR(parsePart(t.at[kPart], out));
    XT_RETURN_IF_ERROR(parseKeys(t.at[kKeys], out));
    const Section& records = t.at[kRecords];
    XT_RETURN_IF_ERROR(checkFixed(records, kRecordBytes, "records"));
    out.records = RecordTable::mapped(
        m_file, {reinterpret_cast<const xdl::RecordEntry*>(m_b.data() + records.begin),
                 std::size_t(records.count)});
    XT_RETURN_IF_ERROR(parseDamaged(t.at[kDamagedRecords], out));
    XT_RETURN_IF_ERROR(parseShapes(t.at[kShapes], out));
    auto overview = std::make_shared<Overview>();
    XT_RETURN_IF_ERROR(parseOverview(t, records.count, *overview));
    for (const ColumnTotals& c : overview->totals)
        if (c.shape != kNone && c.shape >= out.shapes.size())
            return fail(t.at[kOverview].begin, "overview: a shape that does not exist");
    out.totals = overview->totals;
    out.overview = std::move(overview);
    return out;
}

} // namespace

std::vector<ColumnSummary>& ColumnTable::built() {
    if (m_file) throw std::logic_error("a mapped summary's columns are read-only");
    return m_built;
}

void ColumnTable::release(std::size_t first, std::size_t last) const {
    if (m_file && first < last)
        m_file->release(m_begin + first * kColumnBytes, (last - first) * kColumnBytes);
}

ColumnTable ColumnTable::mapped(std::shared_ptr<const MappedFile> file, std::size_t begin,
                                std::size_t count) {
    ColumnTable t;
    t.m_file = std::move(file);
    t.m_begin = begin;
    t.m_count = count;
    return t;
}

ColumnSummary ColumnTable::decode(std::size_t i, std::uint64_t recordOffset) const {
    if (!m_file) throw std::logic_error("spilled columns are read once mapped");
    return decodeColumn(m_file->bytes().data() + m_begin + i * kColumnBytes, recordOffset);
}

xdl::RecordList& RecordTable::built() {
    if (inPlace()) throw std::logic_error("a mapped summary's records are read-only");
    return m_built;
}

void RecordTable::release(std::size_t first, std::size_t last) const {
    if (first < last && (m_file || m_keep)) // in a read-only file mapping
        releaseMappedPages(m_mapped.data(), m_mapped.size_bytes(), first * sizeof(xdl::RecordEntry),
                           (last - first) * sizeof(xdl::RecordEntry));
}

void RecordTable::releaseBehind(std::size_t passed, std::size_t& releasedTo) const {
    constexpr std::size_t kRecords = std::size_t(1) << 16;
    passed = std::min(passed, size());
    if (passed <= releasedTo || (passed - releasedTo < kRecords && passed < size())) return;
    release(releasedTo - std::min(releasedTo, kRecords), passed); // the piece before once more
    releasedTo = passed;
}

RecordTable RecordTable::mapped(std::shared_ptr<const MappedFile> file,
                                std::span<const xdl::RecordEntry> records) {
    RecordTable t;
    t.m_file = std::move(file);
    t.m_mapped = records;
    return t;
}

RecordTable RecordTable::borrowed(std::span<const xdl::RecordEntry> records,
                                  std::shared_ptr<const void> keep) {
    RecordTable t;
    t.m_mapped = records;
    t.m_keep = std::move(keep);
    t.m_borrowed = true;
    return t;
}

void RecordTable::own() {
    if (!inPlace()) return;
    RecordTable built;
    built.m_built.assign(begin(), end());
    *this = std::move(built);
}

void PartSummary::materialize() {
    records.own();
    if (!columns.isMapped()) return;
    ColumnTable built;
    built.built().reserve(columns.size());
    for (std::size_t r = 0; r < records.size(); ++r)
        for (const ColumnSummary& c : columnsOf(r))
            built.built().push_back(c);
    columns.release(0, columns.size());
    columns = std::move(built);
}

void ColumnStarts::push_back(std::uint64_t v) {
    if (m_v.empty()) {
        if (m_count == 1 && v <= SIZE_MAX / 2) m_stride = v; // the second entry sets the stride
        if (v == m_count * m_stride) {
            ++m_count;
            return;
        }
        hold();
    }
    m_v.push_back(v);
}

void ColumnStarts::resize(std::size_t n) {
    if (m_v.empty() && n <= m_count) {
        m_count = std::max<std::size_t>(n, 1);
        if (m_count == 1) m_stride = 0;
        return;
    }
    hold();
    m_v.resize(n);
}

void ColumnStarts::hold() {
    if (!m_v.empty()) return;
    m_v.resize(m_count);
    for (std::size_t r = 0; r < m_count; ++r)
        m_v[r] = r * m_stride;
}

bool ColumnStarts::operator==(const ColumnStarts& o) const {
    if (size() != o.size()) return false;
    for (std::size_t r = 0; r < size(); ++r)
        if ((*this)[r] != o[r]) return false;
    return true;
}

void ColumnTotals::add(const ColumnSummary& c, std::uint64_t record,
                       std::span<const xdl::Shape> shapes) {
    if (c.state != ColumnState::Data) {
        ++(c.state == ColumnState::Empty ? empty : damaged);
        return;
    }
    if (data++ == 0) {
        wireDtype = c.wireDtype;
        shape = c.shape;
    } else {
        mixedDtypes = mixedDtypes || c.wireDtype != wireDtype;
        // Shapes are stored once each by the builder; compared by value all the same.
        varyingShape = varyingShape || (c.shape != shape && (c.shape == kNone || shape == kNone ||
                                                             !(shapes[c.shape] == shapes[shape])));
    }
    if (c.stats.nan && firstNan == kNoRecord) {
        firstNan = record;
        nanElements = c.stats.nan;
    }
    if (c.stats.inf && firstInf == kNoRecord) {
        firstInf = record;
        infElements = c.stats.inf;
    }
}

void PartSummary::countColumns(std::size_t record) {
    const auto cols = columnsOf(record);
    if (cols.size() > totals.size()) totals.resize(cols.size());
    for (std::size_t c = 0; c < cols.size(); ++c)
        totals[c].add(cols[c], record, shapes);
}

void PartSummary::recountTotals() {
    totals.clear();
    for (std::size_t r = 0; r + 1 < columnStart.size(); ++r)
        countColumns(r);
}

void PartSummary::releaseBehind(std::size_t record, std::size_t& releasedTo) const {
    constexpr std::size_t kRecords = 1 << 16;
    if (!columns.isMapped() || record < releasedTo ||
        (record - releasedTo < kRecords && record < records.size()))
        return;
    record = std::min(record, records.size());
    // The records before are given back once more: faults in a piece can map pages of the one
    // before again (large folios of the page cache).
    const std::size_t from = releasedTo - std::min(releasedTo, kRecords);
    columns.release(columnStart[from], columnStart[record]);
    records.release(from, record);
    releasedTo = record;
}

bool PartSummary::isDamaged(std::size_t record) const {
    return std::binary_search(damagedRecords.begin(), damagedRecords.end(), record);
}

const xdl::Shape& PartSummary::shapeOf(const ColumnSummary& c) const {
    static const xdl::Shape kEmpty;
    return c.shape == kNone ? kEmpty : shapes[c.shape];
}

xdl::IndexState PartSummary::indexState() const {
    xdl::IndexState s;
    if (auto keep = records.keep()) {
        s.mapped = records.view();
        s.keep = std::move(keep);
    } else {
        s.records.assign(records.begin(), records.end());
    }
    s.keys = keys;
    s.hasHeader = hasHeader;
    s.startChecked = startChecked;
    s.tailReported = tailReported;
    s.headerLength = headerLength;
    s.scannedTo = scannedTo;
    return s;
}

namespace {

// The part section: the identity of the data file and the scan state.
void writePart(Writer& w, const PartSummary& s) {
    const auto& id = s.identity;
    w.beginSection(kPart, 1);
    w.put(id.size);
    w.put(id.mtimeNs);
    w.put(id.headPrint);
    w.put(id.tailPrint);
    w.put(s.scannedTo);
    w.put(s.headerLength);
    std::uint32_t flags = 0;
    if (s.hasHeader) flags |= kHasHeader;
    if (s.startChecked) flags |= kStartChecked;
    if (s.tailReported) flags |= kTailReported;
    w.put(flags);
    w.put(std::uint32_t(id.source.size()));
    w.bytes(id.source);
    w.endSection();
}

// The index: keys, records and the records found damaged. The records go to `ov` as well.
void writeIndex(Writer& w, const PartSummary& s, OverviewBuilder* ov) {
    w.beginSection(kKeys, s.keys.size());
    for (const auto& k : s.keys) {
        w.put(std::uint32_t(k.size()));
        w.bytes(k);
    }
    w.endSection();

    w.beginSection(kRecords, s.records.size());
    if (w.counting()) {
        w.skip(s.records.size() * kRecordBytes);
    } else {
        std::size_t released = 0; // records in place: read once
        for (std::size_t r = 0; r < s.records.size(); ++r) {
            const xdl::RecordEntry& e = s.records[r];
            w.put(e.offset);
            w.put(e.length);
            w.put(e.columnCount);
            w.put(e.gstep);
            w.put(e.lstep);
            w.put(e.timestamp);
            if (ov) ov->addRecord(r, e);
            s.records.releaseBehind(r + 1, released);
        }
    }
    w.endSection();

    w.beginSection(kDamagedRecords, s.damagedRecords.size());
    for (auto r : s.damagedRecords)
        w.put(r);
    w.endSection();
}

// A column's kColumnBytes, of a record at `recordOffset`.
void putColumn(Writer& w, const ColumnSummary& c, std::uint64_t recordOffset) {
    w.put(std::uint32_t(c.dataOffset - recordOffset));
    w.put(std::uint32_t(c.dataLength));
    w.put(c.wireDtype);
    w.put(std::uint8_t(c.state));
    w.put(c.problem);
    w.put(std::uint16_t(0));
    w.put(c.shape);
    w.put(c.sketch);
    const auto& st = c.stats;
    w.put(st.count);
    w.put(st.nan);
    w.put(st.inf);
    w.put(st.zeros);
    w.put(st.min);
    w.put(st.max);
    w.put(st.mean);
    w.put(st.std);
    w.put(st.l2);
}

// Per column statistics, with the shapes and sketches they refer to. The columns go to `ov` as
// well.
void writeColumns(Writer& w, const PartSummary& s, OverviewBuilder* ov) {
    w.beginSection(kColumns, s.columns.size());
    if (w.counting()) {
        w.skip(s.columns.size() * kColumnBytes);
    } else if (s.columns.isMapped()) { // already encoded: copied as they are
        const auto bytes = s.columns.encoded();
        constexpr std::size_t kPiece = std::size_t(4) << 20;
        std::size_t record = 0, counted = 0; // columns [0, counted) went to ov
        for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
            const std::size_t n = std::min(kPiece, bytes.size() - at);
            const std::size_t to =
                at + n == bytes.size() ? s.columns.size() : (at + n) / kColumnBytes;
            for (; ov && counted < to; ++counted) {
                while (s.columnStart[record + 1] <= counted)
                    ++record;
                ov->add(record, counted - s.columnStart[record],
                        decodeColumn(bytes.data() + counted * kColumnBytes, 0), s.shapes);
            }
            w.bytes({reinterpret_cast<const char*>(bytes.data() + at), n});
            // Faults in a piece can map pages of the one before again (large folios of the page
            // cache): it is given back once more (without that, a third of them stayed).
            s.columns.release((at - std::min(at, kPiece)) / kColumnBytes, (at + n) / kColumnBytes);
        }
    } else {
        std::size_t released = 0; // mapped columns' pages are given back behind
        for (std::size_t r = 0; r + 1 < s.columnStart.size(); ++r) {
            s.releaseBehind(r, released);
            const auto columns = s.columnsOf(r);
            for (std::size_t c = 0; c < columns.size(); ++c) {
                putColumn(w, columns[c], s.records[r].offset);
                if (ov) ov->add(r, c, columns[c], s.shapes);
            }
        }
        s.releaseBehind(s.recordCount(), released);
    }
    w.endSection();

    w.beginSection(kShapes, s.shapes.size());
    for (const auto& shape : s.shapes) {
        w.put(std::uint32_t(shape.rank));
        w.put(std::uint32_t(0));
        for (auto d : shape.view())
            w.put(d);
    }
    w.endSection();

    w.beginSection(kSketches, s.sketches.size());
    for (const auto& sk : s.sketches)
        for (auto c : sk)
            w.put(c);
    w.endSection();
}

// The diagnostics of indexing.
void writeDiagnostics(Writer& w, const PartSummary& s) {
    w.beginSection(kDiagnostics, s.indexDiagnostics.size());
    for (const auto& d : s.indexDiagnostics) {
        const std::string_view code(d.code.data(), std::min<std::size_t>(d.code.size(), 0xffff));
        w.put(std::uint8_t(d.severity));
        w.put(std::uint8_t(0));
        w.put(std::uint16_t(code.size()));
        w.put(std::uint32_t(d.message.size()));
        w.put(d.offset);
        w.put(d.record);
        w.bytes(code);
        w.bytes(d.message);
    }
    w.endSection();
}

} // namespace

namespace {

template <class T> void append(std::string& out, T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The overview's payload after its checksum.
std::string encodeOverview(const Overview& o) {
    std::string out;
    append(out, o.blockRecords);
    append(out, o.records);
    append(out, std::uint32_t(o.columns()));
    append(out, std::uint32_t(o.blocks.size()));
    for (const OverviewBlock& b : o.blocks)
        for (auto v : {b.g0, b.g1, b.gFirst, b.gLast, b.l0, b.l1, b.t0, b.t1})
            append(out, v);
    for (const ColumnTotals& t : o.totals) {
        for (auto v : {t.data, t.empty, t.damaged})
            append(out, v);
        append(out, t.wireDtype);
        append(out, t.shape);
        append(out, std::uint8_t(t.mixedDtypes));
        append(out, std::uint8_t(t.varyingShape));
        append(out, std::uint16_t(0));
        append(out, std::uint32_t(0));
        for (auto v : {t.firstNan, t.firstInf, t.nanElements, t.infElements})
            append(out, v);
    }
    for (const OverviewCell& c : o.cells) {
        append(out, c.data);
        append(out, c.nonFinite);
        for (const auto& side : {c.lo, c.hi})
            for (double v : side)
                append(out, v);
    }
    return out;
}

// The overview of the records and columns written before, with its own checksum: of the
// payloads of kOverviewCovers, then of the rest of its own.
void writeOverview(Writer& w, const PartSummary& s, OverviewBuilder* ov) {
    w.beginSection(kOverview, s.totals.size());
    if (w.counting()) {
        w.skip(Overview::encodedBytes(s.records.size(), s.totals.size()));
    } else {
        const std::string payload = encodeOverview(ov->finish());
        w.put(crc32({reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()},
                    w.coveredCrc()));
        w.bytes(payload);
    }
    w.endSection();
}

void writeAll(Writer& w, const PartSummary& s, std::uint64_t size) {
    w.bytes(std::string_view(kMagic, 8));
    w.put(kVersion);
    w.put(std::uint32_t(0));
    w.put(size);
    w.put(std::uint32_t(9)); // sections
    w.put(std::uint32_t(0));
    std::optional<OverviewBuilder> ov;
    if (!w.counting()) ov.emplace(s.records.size(), s.totals.size());
    OverviewBuilder* const o = ov ? &*ov : nullptr;
    writePart(w, s);
    writeIndex(w, s, o);
    writeColumns(w, s, o);
    writeDiagnostics(w, s);
    writeOverview(w, s, o);
}

} // namespace

Status writeSummary(const PartSummary& s, const std::function<Status(std::string_view)>& sink) {
    Writer count;
    writeAll(count, s, 0);
    Writer w(sink, count.lengths());
    writeAll(w, s, count.size() + kFooterBytes);
    XT_RETURN_IF_ERROR(w.flush());
    w.put(w.crc());
    w.put(std::uint32_t(0));
    w.bytes(std::string_view(kEndMagic, 8));
    return w.flush();
}

Status PartSummary::spillColumns(int fd, std::size_t firstRecord) {
    auto& built = columns.m_built;
    Writer w(
        [&](std::string_view b) {
            return writeFully(fd, b.data(), b.size(), "cannot write the spilled columns");
        },
        {});
    for (std::size_t r = firstRecord; r + 1 < columnStart.size(); ++r)
        for (std::size_t c = columnStart[r]; c < columnStart[r + 1]; ++c)
            putColumn(w, built[c - columns.m_count], records[r].offset);
    XT_RETURN_IF_ERROR(w.flush());
    columns.m_count += built.size();
    built.clear();
    return Status::ok();
}

Status PartSummary::mapSpilledColumns(int fd) {
    if (!columns.m_built.empty() || columns.m_file)
        return Status(ErrorCode::Internal, "columns left to spill");
    if (!columns.m_count) return Status::ok();
    auto file = MappedFile::open("/proc/self/fd/" + std::to_string(fd)); // the unlinked file
    if (!file) return file.status();
    if (file->size() != columns.m_count * kColumnBytes)
        return Status(ErrorCode::Internal, "spilled columns of the wrong size");
    file->advise(MappedFile::Access::Sequential);
    columns.m_file = std::make_shared<const MappedFile>(std::move(*file));
    columns.m_begin = 0;
    return Status::ok();
}

std::string serializeSummary(const PartSummary& s) {
    std::string out;
    (void)writeSummary(s, [&out](std::string_view b) {
        out.append(b);
        return Status::ok();
    });
    return out;
}

Result<PartSummary> parseSummary(std::span<const std::uint8_t> bytes, const std::string& name,
                                 std::uint64_t* errorOffset) {
    return Parser(bytes, name, errorOffset).run();
}

Result<PartSummary> peekSummary(std::shared_ptr<const MappedFile> file, const std::string& name,
                                std::uint64_t* errorOffset) {
    const auto bytes = file->bytes();
    return Parser(bytes, name, errorOffset, std::move(file)).peek();
}

Result<PartSummary> parseSummary(std::shared_ptr<const MappedFile> file, const std::string& name,
                                 std::uint64_t* errorOffset, std::uint64_t inPlaceAbove,
                                 const ColumnTap& tap) {
    file->advise(MappedFile::Access::Sequential);
    const auto bytes = file->bytes();
    return Parser(bytes, name, errorOffset, std::move(file), inPlaceAbove, tap ? tap() : nullptr)
        .run();
}

namespace {

// CRC-32 of zlib over bytes [p, p + n), continuing from `c` (the register: the CRC inverted).
// Slicing by 8 over the reflected polynomial 0xEDB88320.
std::uint32_t crc32Sliced(const std::uint8_t* p, std::size_t n, std::uint32_t c) {
    static const auto table = [] {
        std::array<std::array<std::uint32_t, 256>, 8> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[0][i] = c;
        }
        for (std::uint32_t i = 0; i < 256; ++i)
            for (int s = 1; s < 8; ++s)
                t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
        return t;
    }();
    for (; n >= 8; n -= 8, p += 8) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
        lo ^= c;
        c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
            table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
            table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
    }
    for (; n; --n, ++p)
        c = table[0][(c ^ *p) & 0xff] ^ (c >> 8);
    return c;
}

#if defined(__x86_64__)
// The same by folding with carry-less multiplies, 64 bytes a step (Gopal et al., "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ", Intel, 2009; the constants are those of
// the bit-reflected CRC-32 given there). n >= 64 and a multiple of 16.
#define XT_FOLDING __attribute__((target("pclmul,sse4.1")))
XT_FOLDING inline __m128i load(const std::uint8_t* at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}
// x's two halves multiplied by k's, added to the next 16 bytes.
XT_FOLDING inline __m128i fold(__m128i x, __m128i k, __m128i next) {
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x11), next),
                         _mm_clmulepi64_si128(x, k, 0x00));
}

XT_FOLDING std::uint32_t crc32Folded(const std::uint8_t* p, std::size_t n, std::uint32_t c) {
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    __m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(int(c)));
    __m128i x2 = load(p + 16), x3 = load(p + 32), x4 = load(p + 48);
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
        x1 = fold(x1, k1k2, load(p));
        x2 = fold(x2, k1k2, load(p + 16));
        x3 = fold(x3, k1k2, load(p + 32));
        x4 = fold(x4, k1k2, load(p + 48));
    }
    x1 = fold(x1, k3k4, x2);
    x1 = fold(x1, k3k4, x3);
    x1 = fold(x1, k3k4, x4);
    for (; n >= 16; p += 16, n -= 16)
        x1 = fold(x1, k3k4, load(p));
    // 128 bits to 64, then Barrett reduction to 32.
    const __m128i mask = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(x1, k3k4, 0x10));
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask), k5k0, 0x00),
                       _mm_srli_si128(x1, 4));
    __m128i x2b = _mm_clmulepi64_si128(_mm_and_si128(x1, mask), poly, 0x10);
    x2b = _mm_clmulepi64_si128(_mm_and_si128(x2b, mask), poly, 0x00);
    return std::uint32_t(_mm_extract_epi32(_mm_xor_si128(x1, x2b), 1));
}
#undef XT_FOLDING

bool hasFolding() {
    static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    return yes;
}
#endif

} // namespace

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t before) {
    std::uint32_t c = before ^ 0xffffffffu;
    const std::uint8_t* p = bytes.data();
    std::size_t n = bytes.size();
#if defined(__x86_64__)
    if (n >= 64 && hasFolding()) {
        const std::size_t folded = n & ~std::size_t(15);
        c = crc32Folded(p, folded, c);
        p += folded;
        n -= folded;
    }
#endif
    return crc32Sliced(p, n, c) ^ 0xffffffffu;
}

namespace {
constexpr std::uint64_t kFnvBasis = 0xcbf29ce484222325ull, kFnvPrime = 0x100000001b3ull;
}

std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes) {
    std::uint64_t h = kFnvBasis;
    for (std::uint8_t b : bytes)
        h = (h ^ b) * kFnvPrime;
    return h;
}

std::uint64_t fingerprint(std::span<const std::uint8_t> bytes) {
    // Eight bytes per multiply: the byte-wise hash is a chain of dependent multiplies.
    std::uint64_t h = kFnvBasis;
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, bytes.data() + i, 8);
        h = (h ^ w) * kFnvPrime;
    }
    if (i < bytes.size()) {
        std::uint64_t w = 0; // the last bytes, zero-padded
        std::memcpy(&w, bytes.data() + i, bytes.size() - i);
        h = (h ^ w) * kFnvPrime;
    }
    return (h ^ bytes.size()) * kFnvPrime;
}

} // namespace xt::summary
