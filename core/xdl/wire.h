#pragma once
// The XDL wire format (schema in proto/xdl.proto), decoded and encoded by hand.
// Decoding is zero-copy: a column's data is a span into the caller's bytes (the mapped file).
// Encoding produces exactly the bytes protobuf's serializer writes for the same message.
// Every decoder takes one message WITHOUT its u32 length prefix.

#include "core/base/status.h"
#include "core/xdl/dtype.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace xt::xdl {

using Bytes = std::span<const std::uint8_t>;

inline constexpr int kMaxRank = 16; // deeper shapes are reported, not decoded

struct Shape {
    std::array<std::int64_t, kMaxRank> dims{};
    int rank = 0;

    std::span<const std::int64_t> view() const { return {dims.data(), size_t(rank)}; }
    // Product of the dims (1 for a 0-d scalar), or -1 for a negative dim or an overflow.
    std::int64_t numElements() const;
    std::string toString() const; // "[3, 4]", "[]" for a scalar
    // The rank and its dims; dims past the rank do not count. A loop: comparing all 16 (a
    // 136-byte memcmp), twice a row, was 3.7% of the instructions of an export of small rows.
    bool operator==(const Shape& o) const {
        if (rank != o.rank) return false;
        for (int i = 0; i < rank; ++i)
            if (dims[static_cast<std::size_t>(i)] != o.dims[static_cast<std::size_t>(i)])
                return false;
        return true;
    }
};

enum class ColumnProblem { None, UnknownDtype, BadShape, RankTooLarge, SizeMismatch };
const char* columnProblemName(ColumnProblem p);

struct ColumnView {
    std::int64_t wireDtype = 0; // the enum value as written; see dtype()
    Shape shape;
    bool rankTooLarge = false;
    Bytes data;

    Dtype dtype() const { return static_cast<Dtype>(wireDtype); } // valid when check() allows
    // Whether dtype, shape and data size agree. Empty data with an empty shape is accepted
    // as an empty column (trace_once placeholders are float32 [0] with no data).
    ColumnProblem check() const;
    bool isEmpty() const { return data.empty(); }
};

struct RecordView {
    std::int64_t gstep = 0;
    std::int64_t lstep = 0;
    std::int64_t timestamp = 0;
    std::vector<ColumnView> columns;
};

// The cheap part of a record: scalar fields and the number of columns, without column contents.
struct RecordHead {
    std::int64_t gstep = 0;
    std::int64_t lstep = 0;
    std::int64_t timestamp = 0;
    std::uint32_t columnCount = 0;
};

// Steps and timestamps of a data file's first and last record; -1 where unknown.
struct MetaInfo {
    std::int64_t lstepBegin = -1, lstepEnd = -1;
    std::int64_t gstepBegin = -1, gstepEnd = -1;
    std::int64_t timestampBegin = -1, timestampEnd = -1;
    bool operator==(const MetaInfo&) const = default;
};

// Decoders. Errors are ErrorCode::Corrupt with the byte position inside the message.
Status decodeRecordHead(Bytes message, RecordHead& out);
Status decodeRecord(Bytes message, RecordView& out); // reuses out.columns' storage
Status decodeHeader(Bytes message, std::vector<std::string>& keys);
Status decodeMeta(Bytes message, MetaInfo& out);
// A Header's first field is tag 0x0a (field 1, length-delimited); a Record's never is.
bool looksLikeHeader(Bytes message);
// Reads the u32 little-endian length prefix at p.
inline std::uint32_t readLength(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
           std::uint32_t(p[3]) << 24;
}

// Encoders.
void appendVarint(std::string& out, std::uint64_t v);
void appendLength(std::string& out, std::uint32_t length); // u32 little-endian prefix
std::string encodeHeader(const std::vector<std::string>& keys);
std::string encodeMeta(const MetaInfo& meta);

// Builds one framed record ([u32 length][Record]) in a reusable buffer.
class RecordEncoder {
public:
    void begin(std::int64_t gstep, std::int64_t lstep);
    // Shape dims must fit in int32 (the wire type); data is written as given.
    void addColumn(Dtype dtype, std::span<const std::int64_t> shape, Bytes data);
    // Appends the timestamp and fills in the length prefix. Fails when the record is over 4 GiB.
    Status finish(std::int64_t timestamp);
    // The framed record; valid until the next begin().
    Bytes framed() const;
    std::string& buffer() { return m_buf; }

private:
    std::string m_buf;
};

} // namespace xt::xdl
