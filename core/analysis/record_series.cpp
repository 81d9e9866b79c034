#include "core/analysis/record_series.h"

#include "core/base/file_arena.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace xt::analysis {

namespace {

using Field = RecordSeries::Field;

bool isDouble(std::size_t c) {
    return c >= std::size_t(Field::Min);
}
bool isSigned(std::size_t c) {
    return c >= std::size_t(Field::Gstep) && c <= std::size_t(Field::Timestamp);
}

// Field c of r as its 64 bits (integers as they are, doubles as their representation).
std::uint64_t bitsOf(const RecordStats& r, std::size_t c) {
    const TensorStats& s = r.stats;
    switch (Field(c)) {
    case Field::Record:
        return r.record;
    case Field::Gstep:
        return std::uint64_t(r.gstep);
    case Field::Lstep:
        return std::uint64_t(r.lstep);
    case Field::Timestamp:
        return std::uint64_t(r.timestamp);
    case Field::Count:
        return s.count;
    case Field::Nan:
        return s.nan;
    case Field::Inf:
        return s.inf;
    case Field::Zeros:
        return s.zeros;
    case Field::Finite:
        return s.finite;
    case Field::Min:
        return std::bit_cast<std::uint64_t>(s.min);
    case Field::Max:
        return std::bit_cast<std::uint64_t>(s.max);
    case Field::Mean:
        return std::bit_cast<std::uint64_t>(s.mean);
    case Field::Std:
        return std::bit_cast<std::uint64_t>(s.std);
    case Field::L2:
        return std::bit_cast<std::uint64_t>(s.l2);
    }
    return 0;
}

// A double whose value a float holds exactly, bit for bit (-0.0 and NaN included).
bool fitsFloat(std::uint64_t bits) {
    const double d = std::bit_cast<double>(bits);
    return std::bit_cast<std::uint64_t>(double(float(d))) == bits;
}

constexpr std::uint64_t kSignBit = std::uint64_t(1) << 63;

std::uint8_t widthFor(std::uint64_t range) {
    return range == 0 ? 0 : range <= 0xff ? 1 : range <= 0xffff ? 2 : range <= 0xffffffff ? 4 : 8;
}

} // namespace

// kChunk records, column by column. Column c's value of record i is, by the column's kind:
// - base + i * stride (width 0): a constant, or integers in steps of one size (record numbers,
//   steps, regular timestamps);
// - the same as an earlier double column (`alias`), or its absolute value (`absolute`): a
//   scalar's min, max and mean are one value, and its l2 is that value's absolute value;
// - base + the i-th of its `width`-byte offsets, or, for doubles, the i-th float (width 4) or
//   double (width 8) read as is.
class RecordSeries::Packed {
public:
    // Kept in `arena` where it takes them, else on the heap.
    Packed(std::span<const RecordStats> records, FileArena* arena);
    RecordStats record(std::size_t i) const;
    // Field f of records [first, first + n) as doubles.
    void values(Field f, std::size_t first, std::size_t n, double* out) const;
    std::size_t bytes() const { return sizeof(*this) + (m_bytes ? m_size : 0); } // on the heap

private:
    static constexpr std::uint8_t kNoAlias = 0xff;
    std::uint64_t bits(std::size_t c, std::size_t i) const;
    struct Column {
        std::uint64_t base = 0, stride = 0;
        std::uint32_t offset = 0;
        std::uint8_t width = 0;
        std::uint8_t alias = kNoAlias; // the earlier column this one equals, bit for bit
        bool absolute = false;         // ... once its sign bit is cleared
    };
    Column m_cols[kFields];
    std::unique_ptr<std::byte[]> m_bytes; // where they were packed (moved to a FileArena, null)
    const std::byte* m_data = nullptr;    // m_bytes, or in the arena's mapping that m_keep holds
    std::shared_ptr<const void> m_keep;
    std::size_t m_size = 0;
};

RecordSeries::Packed::Packed(std::span<const RecordStats> records, FileArena* arena) {
    const std::size_t n = records.size();
    // Whether column c equals column a (or its absolute value) in every record.
    const auto equal = [&](std::size_t a, std::size_t c, std::uint64_t mask) {
        for (const RecordStats& r : records)
            if ((bitsOf(r, a) & mask) != bitsOf(r, c)) return false;
        return true;
    };
    for (std::size_t c = 0; c < kFields; ++c) {
        Column& col = m_cols[c];
        const std::uint64_t first = bitsOf(records[0], c);
        // Integers in steps of one size (modulo 2^64, which holds for signed ones too).
        const std::uint64_t stride = n > 1 ? bitsOf(records[1], c) - first : 0;
        bool linear = !isDouble(c) || stride == 0, floats = true;
        std::uint64_t lo = first, hi = first; // as signed or unsigned, as the field is
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t v = bitsOf(records[i], c);
            linear &= v == first + i * stride;
            if (isDouble(c)) {
                floats &= fitsFloat(v);
            } else if (isSigned(c)) {
                lo = std::uint64_t(std::min(std::int64_t(lo), std::int64_t(v)));
                hi = std::uint64_t(std::max(std::int64_t(hi), std::int64_t(v)));
            } else {
                lo = std::min(lo, v), hi = std::max(hi, v);
            }
        }
        if (linear) {
            col.base = first, col.stride = stride;
            continue;
        }
        for (std::size_t a = std::size_t(Field::Min); isDouble(c) && a < c; ++a) {
            if (m_cols[a].alias != kNoAlias || m_cols[a].width == 0) continue;
            if (equal(a, c, ~std::uint64_t(0))) {
                col.alias = std::uint8_t(a);
                break;
            }
            if (equal(a, c, ~kSignBit)) {
                col.alias = std::uint8_t(a), col.absolute = true;
                break;
            }
        }
        if (col.alias != kNoAlias) continue;
        col.base = isDouble(c) ? 0 : lo;
        col.width = isDouble(c) ? (floats ? 4 : 8) : widthFor(hi - lo);
        col.offset = std::uint32_t(m_size);
        m_size += (col.width * n + 7) & ~std::size_t(7); // each column 8-byte aligned
    }
    m_bytes = std::make_unique_for_overwrite<std::byte[]>(m_size);
    for (std::size_t c = 0; c < kFields; ++c) {
        const Column& col = m_cols[c];
        std::byte* out = m_bytes.get() + col.offset;
        for (std::size_t i = 0; i < n && col.width; ++i) {
            const std::uint64_t v = bitsOf(records[i], c);
            if (isDouble(c) && col.width == 4) {
                const float f = float(std::bit_cast<double>(v));
                std::memcpy(out + 4 * i, &f, 4);
                continue;
            }
            const std::uint64_t d = v - col.base;
            std::memcpy(out + col.width * i, &d, col.width); // little-endian: the low bytes
        }
    }
    m_data = m_bytes.get();
    if (arena)
        if (auto kept = arena->keep({m_data, m_size})) {
            m_data = kept->bytes.data();
            m_keep = std::move(kept->keep);
            m_bytes.reset();
        }
}

std::uint64_t RecordSeries::Packed::bits(std::size_t c, std::size_t i) const {
    const Column& col = m_cols[c];
    if (col.alias != kNoAlias)
        return bits(col.alias, i) & (col.absolute ? ~kSignBit : ~std::uint64_t(0));
    const std::byte* p = m_data + col.offset;
    switch (col.width) {
    case 0:
        return col.base + i * col.stride;
    case 1:
        return col.base + std::uint8_t(p[i]);
    case 2: {
        std::uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        return col.base + v;
    }
    case 4: {
        std::uint32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        if (isDouble(c)) return std::bit_cast<std::uint64_t>(double(std::bit_cast<float>(v)));
        return col.base + v;
    }
    default: {
        std::uint64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        return isDouble(c) ? v : col.base + v;
    }
    }
}

RecordStats RecordSeries::Packed::record(std::size_t i) const {
    auto b = [&](Field f) { return bits(std::size_t(f), i); };
    auto d = [&](Field f) { return std::bit_cast<double>(bits(std::size_t(f), i)); };
    RecordStats r;
    r.record = b(Field::Record);
    r.gstep = std::int64_t(b(Field::Gstep));
    r.lstep = std::int64_t(b(Field::Lstep));
    r.timestamp = std::int64_t(b(Field::Timestamp));
    r.stats.count = b(Field::Count);
    r.stats.nan = b(Field::Nan);
    r.stats.inf = b(Field::Inf);
    r.stats.zeros = b(Field::Zeros);
    r.stats.finite = b(Field::Finite);
    r.stats.min = d(Field::Min);
    r.stats.max = d(Field::Max);
    r.stats.mean = d(Field::Mean);
    r.stats.std = d(Field::Std);
    r.stats.l2 = d(Field::L2);
    return r;
}

namespace {

double asDouble(std::size_t c, std::uint64_t v) {
    if (isDouble(c)) return std::bit_cast<double>(v);
    return isSigned(c) ? double(std::int64_t(v)) : double(v);
}

// base + offsets[i] of n offsets of type T, as doubles of field c.
template <class T>
void offsetsAsDoubles(const std::byte* p, std::uint64_t base, std::size_t c, std::size_t n,
                      double* out) {
    for (std::size_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, p + sizeof(T) * i, sizeof(T));
        out[i] = asDouble(c, base + v);
    }
}

} // namespace

void RecordSeries::Packed::values(Field f, std::size_t first, std::size_t n, double* out) const {
    const std::size_t c = std::size_t(f);
    const Column& col = m_cols[c];
    if (col.alias != kNoAlias) {
        values(Field(col.alias), first, n, out);
        for (std::size_t i = 0; i < n && col.absolute; ++i)
            out[i] = std::bit_cast<double>(std::bit_cast<std::uint64_t>(out[i]) & ~kSignBit);
        return;
    }
    const std::byte* p = m_data + col.offset;
    switch (col.width) {
    case 0:
        if (col.stride == 0) return void(std::fill_n(out, n, asDouble(c, col.base)));
        for (std::size_t i = 0; i < n; ++i)
            out[i] = asDouble(c, col.base + (first + i) * col.stride);
        return;
    case 1:
        return offsetsAsDoubles<std::uint8_t>(p + first, col.base, c, n, out);
    case 2:
        return offsetsAsDoubles<std::uint16_t>(p + 2 * first, col.base, c, n, out);
    case 4:
        if (isDouble(c)) {
            for (std::size_t i = 0; i < n; ++i) {
                float v;
                std::memcpy(&v, p + 4 * (first + i), 4);
                out[i] = v;
            }
            return;
        }
        return offsetsAsDoubles<std::uint32_t>(p + 4 * first, col.base, c, n, out);
    default:
        if (isDouble(c)) return void(std::memcpy(out, p + 8 * first, 8 * n));
        return offsetsAsDoubles<std::uint64_t>(p + 8 * first, col.base, c, n, out);
    }
}

RecordStats RecordSeries::operator[](std::size_t i) const {
    return i / kChunk < m_chunks.size() ? m_chunks[i / kChunk]->record(i % kChunk)
                                        : m_tail[i - m_chunks.size() * kChunk];
}

void RecordSeries::read(Field f, std::size_t first, std::size_t n, double* out) const {
    for (std::size_t i = first, end = first + n; i < end;) {
        const std::size_t c = i / kChunk, inChunk = i % kChunk;
        const std::size_t take = std::min(end - i, kChunk - inChunk);
        if (c < m_chunks.size()) {
            m_chunks[c]->values(f, inChunk, take, out);
        } else {
            for (std::size_t k = 0; k < take; ++k)
                out[k] = asDouble(std::size_t(f), bitsOf(m_tail[inChunk + k], std::size_t(f)));
        }
        out += take, i += take;
    }
}

void RecordSeries::grow() {
    // A series that filled a chunk fills the next one too: no copies on the way there.
    m_tail.reserve(m_chunks.empty() ? std::min(kChunk, std::max<std::size_t>(8, 2 * m_tail.size()))
                                    : kChunk);
}

void RecordSeries::keepChunksIn(std::shared_ptr<FileArena> arena) {
    m_arena = std::move(arena);
}

void RecordSeries::seal() {
    m_chunks.push_back(std::make_shared<const Packed>(m_tail, m_arena.get()));
    std::vector<RecordStats>().swap(m_tail); // one that goes on takes a whole chunk (grow)
}

std::size_t RecordSeries::sharedChunks() const {
    std::size_t n = 0;
    for (const auto& c : m_chunks)
        n += c.use_count() > 1;
    return n;
}

std::size_t RecordSeries::heldBytes() const {
    std::size_t n = m_tail.capacity() * sizeof(RecordStats);
    for (const auto& c : m_chunks)
        n += c->bytes();
    return n;
}

} // namespace xt::analysis
