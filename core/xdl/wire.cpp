#include "core/xdl/wire.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace xt::xdl {

namespace {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// A bounds-checked cursor over one message.
struct Cursor {
    const std::uint8_t* begin;
    const std::uint8_t* p;
    const std::uint8_t* end;

    explicit Cursor(Bytes b) : begin(b.data()), p(b.data()), end(b.data() + b.size()) {}
    bool done() const { return p >= end; }
    std::size_t pos() const { return static_cast<std::size_t>(p - begin); }

    Status fail(const char* what) const {
        return {ErrorCode::Corrupt,
                std::string(what) + " at byte " + std::to_string(pos()) + " of the message"};
    }

    bool varint(std::uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= end) return false;
            std::uint8_t b = *p++;
            v |= std::uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return true;
        }
        return false; // more than 10 bytes
    }

    // Reads a length-delimited payload.
    bool lenDelimited(Bytes& out) {
        std::uint64_t n;
        if (!varint(n) || n > static_cast<std::uint64_t>(end - p)) return false;
        out = Bytes(p, static_cast<std::size_t>(n));
        p += n;
        return true;
    }

    bool skip(std::uint32_t wireType) {
        std::uint64_t v;
        Bytes b;
        switch (wireType) {
        case kVarint:
            return varint(v);
        case kFixed64:
            if (end - p < 8) return false;
            p += 8;
            return true;
        case kLen:
            return lenDelimited(b);
        case kFixed32:
            if (end - p < 4) return false;
            p += 4;
            return true;
        default:
            return false; // groups (3, 4) and invalid types
        }
    }

    bool tag(std::uint32_t& field, std::uint32_t& wireType) {
        std::uint64_t t;
        if (!varint(t) || t > std::numeric_limits<std::uint32_t>::max()) return false;
        field = static_cast<std::uint32_t>(t >> 3);
        wireType = static_cast<std::uint32_t>(t & 7);
        return field != 0;
    }
};

Status decodeShape(Bytes packed, std::uint32_t wireType, Cursor& c, ColumnView& col) {
    auto push = [&](std::uint64_t v) {
        if (col.shape.rank == kMaxRank) {
            col.rankTooLarge = true;
            return;
        }
        // int32 on the wire; negative values arrive sign-extended to 64 bits.
        col.shape.dims[col.shape.rank++] = static_cast<std::int32_t>(static_cast<std::int64_t>(v));
    };
    if (wireType == kVarint) { // unpacked repeated int32 (accepted by protobuf parsers)
        std::uint64_t v;
        if (!c.varint(v)) return c.fail("truncated shape dimension");
        push(v);
        return Status::ok();
    }
    Cursor s(packed);
    while (!s.done()) {
        std::uint64_t v;
        if (!s.varint(v)) return c.fail("malformed packed shape");
        push(v);
    }
    return Status::ok();
}

// `col` is a column decoded before or a new one: its dims past its rank are zero.
Status decodeColumn(Bytes message, ColumnView& col) {
    // Reset field by field: assigning a new ColumnView (168 bytes) cost more than the decoding.
    col.wireDtype = 0;
    std::fill_n(col.shape.dims.begin(), col.shape.rank, 0);
    col.shape.rank = 0;
    col.rankTooLarge = false;
    col.data = {};
    Cursor c(message);
    while (!c.done()) {
        std::uint32_t field, wt;
        if (!c.tag(field, wt)) return c.fail("malformed column field tag");
        if (field == 1 && wt == kVarint) {
            std::uint64_t v;
            if (!c.varint(v)) return c.fail("truncated column dtype");
            col.wireDtype = static_cast<std::int32_t>(static_cast<std::int64_t>(v));
        } else if (field == 2 && (wt == kLen || wt == kVarint)) {
            Bytes packed;
            if (wt == kLen && !c.lenDelimited(packed)) return c.fail("truncated column shape");
            XT_RETURN_IF_ERROR(decodeShape(packed, wt, c, col));
        } else if (field == 3 && wt == kLen) {
            if (!c.lenDelimited(col.data)) return c.fail("truncated column data");
        } else if (field <= 3) {
            return c.fail("column field with the wrong wire type");
        } else if (!c.skip(wt)) {
            return c.fail("malformed unknown column field");
        }
    }
    return Status::ok();
}

// Shared walk over a Record's top-level fields; onColumn is called with each column message.
template <class OnColumn>
Status walkRecord(Bytes message, std::int64_t& gstep, std::int64_t& lstep, std::int64_t& ts,
                  OnColumn&& onColumn) {
    gstep = lstep = ts = 0;
    Cursor c(message);
    while (!c.done()) {
        std::uint32_t field, wt;
        if (!c.tag(field, wt)) return c.fail("malformed record field tag");
        std::uint64_t v;
        if ((field == 1 || field == 2 || field == 4) && wt == kVarint) {
            if (!c.varint(v)) return c.fail("truncated step or timestamp");
            auto s = static_cast<std::int64_t>(v);
            (field == 1 ? gstep : field == 2 ? lstep : ts) = s;
        } else if (field == 3 && wt == kLen) {
            Bytes col;
            if (!c.lenDelimited(col)) return c.fail("column longer than the record");
            XT_RETURN_IF_ERROR(onColumn(col));
        } else if (field <= 4) {
            return c.fail("record field with the wrong wire type");
        } else if (!c.skip(wt)) {
            return c.fail("malformed unknown record field");
        }
    }
    return Status::ok();
}

int varintSize(std::uint64_t v) {
    int n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

void appendTagVarint(std::string& out, std::uint32_t field, std::int64_t v) {
    if (v == 0) return; // proto3 omits zero scalars
    out += static_cast<char>(field << 3 | kVarint);
    appendVarint(out, static_cast<std::uint64_t>(v));
}

} // namespace

std::int64_t Shape::numElements() const {
    std::int64_t n = 1;
    for (int i = 0; i < rank; ++i) {
        if (dims[i] < 0) return -1;
        if (dims[i] != 0 && n > std::numeric_limits<std::int64_t>::max() / dims[i]) return -1;
        n *= dims[i];
    }
    return n;
}

std::string Shape::toString() const {
    std::string s = "[";
    for (int i = 0; i < rank; ++i) {
        if (i) s += ", ";
        s += std::to_string(dims[i]);
    }
    return s + "]";
}

const char* columnProblemName(ColumnProblem p) {
    switch (p) {
    case ColumnProblem::None:
        return "ok";
    case ColumnProblem::UnknownDtype:
        return "unknown dtype";
    case ColumnProblem::BadShape:
        return "negative or overflowing shape";
    case ColumnProblem::RankTooLarge:
        return "more dimensions than supported";
    case ColumnProblem::SizeMismatch:
        return "data size does not match shape";
    }
    return "?";
}

ColumnProblem ColumnView::check() const {
    if (!isKnownDtype(wireDtype)) return ColumnProblem::UnknownDtype;
    if (rankTooLarge) return ColumnProblem::RankTooLarge;
    std::int64_t n = shape.numElements();
    if (n < 0) return ColumnProblem::BadShape;
    if (data.empty() && (n == 0 || shape.rank == 0)) return ColumnProblem::None;
    auto expected = static_cast<std::uint64_t>(n);
    if (expected > std::numeric_limits<std::uint64_t>::max() / 8 ||
        expected * elementSize(dtype()) != data.size())
        return ColumnProblem::SizeMismatch;
    return ColumnProblem::None;
}

// The hot path of indexing: the four known fields with single-byte tags. Returns false on
// anything else (unknown fields, damage), and the general walk then decides.
bool scanRecordHeadFast(const std::uint8_t* p, const std::uint8_t* end, RecordHead& out) {
    std::int64_t fields[5] = {0, 0, 0, 0, 0};
    std::uint32_t columns = 0;
    while (p < end) {
        const std::uint8_t tag = *p++;
        std::uint64_t v;
        if (p < end && *p < 0x80) {
            v = *p++;
        } else {
            v = 0;
            int shift = 0;
            for (;; shift += 7) {
                if (p >= end || shift >= 64) return false;
                std::uint8_t b = *p++;
                v |= std::uint64_t(b & 0x7f) << shift;
                if (!(b & 0x80)) break;
            }
        }
        switch (tag) {
        case 0x08:
            fields[1] = static_cast<std::int64_t>(v);
            break;
        case 0x10:
            fields[2] = static_cast<std::int64_t>(v);
            break;
        case 0x20:
            fields[4] = static_cast<std::int64_t>(v);
            break;
        case 0x1a:
            if (v > static_cast<std::uint64_t>(end - p)) return false;
            p += v;
            ++columns;
            break;
        default:
            return false;
        }
    }
    out.gstep = fields[1];
    out.lstep = fields[2];
    out.timestamp = fields[4];
    out.columnCount = columns;
    return true;
}

Status decodeRecordHead(Bytes message, RecordHead& out) {
    if (scanRecordHeadFast(message.data(), message.data() + message.size(), out))
        return Status::ok();
    out.columnCount = 0;
    return walkRecord(message, out.gstep, out.lstep, out.timestamp, [&](Bytes) {
        ++out.columnCount;
        return Status::ok();
    });
}

Status decodeRecord(Bytes message, RecordView& out) {
    std::size_t n = 0; // the previous record's columns are decoded over
    Status st = walkRecord(message, out.gstep, out.lstep, out.timestamp, [&](Bytes col) {
        if (n == out.columns.size()) out.columns.emplace_back();
        return decodeColumn(col, out.columns[n++]);
    });
    out.columns.resize(n);
    return st;
}

Status decodeHeader(Bytes message, std::vector<std::string>& keys) {
    keys.clear();
    Cursor c(message);
    while (!c.done()) {
        std::uint32_t field, wt;
        if (!c.tag(field, wt)) return c.fail("malformed header field tag");
        if (field == 1 && wt == kLen) {
            Bytes k;
            if (!c.lenDelimited(k)) return c.fail("key longer than the header");
            keys.emplace_back(reinterpret_cast<const char*>(k.data()), k.size());
        } else if (field == 1) {
            return c.fail("header key with the wrong wire type");
        } else if (!c.skip(wt)) {
            return c.fail("malformed unknown header field");
        }
    }
    return Status::ok();
}

Status decodeMeta(Bytes message, MetaInfo& out) {
    // Proto3 semantics: an absent field is 0 (an empty Meta is all zeros, not "unknown").
    out = MetaInfo{0, 0, 0, 0, 0, 0};
    std::int64_t* fields[] = {&out.lstepBegin, &out.lstepEnd,       &out.gstepBegin,
                              &out.gstepEnd,   &out.timestampBegin, &out.timestampEnd};
    Cursor c(message);
    while (!c.done()) {
        std::uint32_t field, wt;
        if (!c.tag(field, wt)) return c.fail("malformed meta field tag");
        if (field >= 1 && field <= 6 && wt == kVarint) {
            std::uint64_t v;
            if (!c.varint(v)) return c.fail("truncated meta field");
            *fields[field - 1] = static_cast<std::int64_t>(v);
        } else if (field <= 6) {
            return c.fail("meta field with the wrong wire type");
        } else if (!c.skip(wt)) {
            return c.fail("malformed unknown meta field");
        }
    }
    return Status::ok();
}

bool looksLikeHeader(Bytes message) {
    return !message.empty() && message[0] == 0x0a;
}

void appendVarint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out += static_cast<char>(v | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

void appendLength(std::string& out, std::uint32_t n) {
    char b[4] = {char(n), char(n >> 8), char(n >> 16), char(n >> 24)};
    out.append(b, 4);
}

std::string encodeHeader(const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) {
        out += char(1 << 3 | kLen);
        appendVarint(out, k.size());
        out += k;
    }
    return out;
}

std::string encodeMeta(const MetaInfo& m) {
    std::string out;
    appendTagVarint(out, 1, m.lstepBegin);
    appendTagVarint(out, 2, m.lstepEnd);
    appendTagVarint(out, 3, m.gstepBegin);
    appendTagVarint(out, 4, m.gstepEnd);
    appendTagVarint(out, 5, m.timestampBegin);
    appendTagVarint(out, 6, m.timestampEnd);
    return out;
}

void RecordEncoder::begin(std::int64_t gstep, std::int64_t lstep) {
    m_buf.clear();
    m_buf.append(4, '\0'); // length prefix, filled in by finish()
    appendTagVarint(m_buf, 1, gstep);
    appendTagVarint(m_buf, 2, lstep);
}

void RecordEncoder::addColumn(Dtype dtype, std::span<const std::int64_t> shape, Bytes data) {
    // Column body: [dtype][packed shape][data], each omitted when zero/empty.
    std::size_t shapeBytes = 0;
    for (std::int64_t d : shape)
        shapeBytes += varintSize(
            static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(d))));
    std::size_t body = 0;
    if (dtype != Dtype::Int8) body += 1 + varintSize(static_cast<std::uint64_t>(dtype));
    if (!shape.empty()) body += 1 + varintSize(shapeBytes) + shapeBytes;
    if (!data.empty()) body += 1 + varintSize(data.size()) + data.size();

    m_buf += char(3 << 3 | kLen);
    appendVarint(m_buf, body);
    if (dtype != Dtype::Int8) {
        m_buf += char(1 << 3 | kVarint);
        appendVarint(m_buf, static_cast<std::uint64_t>(dtype));
    }
    if (!shape.empty()) {
        m_buf += char(2 << 3 | kLen);
        appendVarint(m_buf, shapeBytes);
        for (std::int64_t d : shape)
            appendVarint(m_buf, static_cast<std::uint64_t>(
                                    static_cast<std::int64_t>(static_cast<std::int32_t>(d))));
    }
    if (!data.empty()) {
        m_buf += char(3 << 3 | kLen);
        appendVarint(m_buf, data.size());
        m_buf.append(reinterpret_cast<const char*>(data.data()), data.size());
    }
}

Status RecordEncoder::finish(std::int64_t timestamp) {
    appendTagVarint(m_buf, 4, timestamp);
    std::size_t n = m_buf.size() - 4;
    if (n > std::numeric_limits<std::uint32_t>::max())
        return {ErrorCode::InvalidArgument,
                "record of " + std::to_string(n) + " bytes exceeds the format's 4 GiB limit"};
    std::string prefix;
    appendLength(prefix, static_cast<std::uint32_t>(n));
    std::memcpy(m_buf.data(), prefix.data(), 4);
    return Status::ok();
}

Bytes RecordEncoder::framed() const {
    return {reinterpret_cast<const std::uint8_t*>(m_buf.data()), m_buf.size()};
}

} // namespace xt::xdl
