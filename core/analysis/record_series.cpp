#include "core/analysis/record_series.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

namespace xt::analysis {

namespace {

using Field = RecordSeries::Field;

bool isDouble(std::size_t c) {
    return c >= std::size_t(Field::Min);
}
bool isSigned(std::size_t c) {
    return c >= std::size_t(Field::Gstep) && c <= std::size_t(Field::Timestamp);
}

// The fields of r, in Field's order, as their 64 bits (doubles as their representation).
std::array<std::uint64_t, RecordSeries::kFields> fieldsOf(const RecordStats& r) {
    const TensorStats& s = r.stats;
    return {r.record,
            std::uint64_t(r.gstep),
            std::uint64_t(r.lstep),
            std::uint64_t(r.timestamp),
            s.count,
            s.nan,
            s.inf,
            s.zeros,
            s.finite,
            std::bit_cast<std::uint64_t>(s.min),
            std::bit_cast<std::uint64_t>(s.max),
            std::bit_cast<std::uint64_t>(s.mean),
            std::bit_cast<std::uint64_t>(s.std),
            std::bit_cast<std::uint64_t>(s.l2)};
}

// A double whose value a float holds exactly, bit for bit (-0.0 and NaN included).
bool fitsFloat(std::uint64_t bits) {
    const double d = std::bit_cast<double>(bits);
    return std::bit_cast<std::uint64_t>(double(float(d))) == bits;
}

std::uint8_t widthFor(std::uint64_t range) {
    return range == 0 ? 0 : range <= 0xff ? 1 : range <= 0xffff ? 2 : range <= 0xffffffff ? 4 : 8;
}

} // namespace

// kChunk records, column by column: column c's value of record i is base + the i-th of its
// `width`-byte offsets (width 0: base alone), or, for doubles, the i-th float (width 4) or double
// (width 8) read as is.
class RecordSeries::Packed {
public:
    explicit Packed(std::span<const RecordStats> records);
    RecordStats record(std::size_t i) const;
    // Field f of records [first, first + n) as doubles.
    void values(Field f, std::size_t first, std::size_t n, double* out) const;
    std::size_t bytes() const { return sizeof(*this) + m_size; }

private:
    std::uint64_t bits(std::size_t c, std::size_t i) const;
    struct Column {
        std::uint64_t base = 0;
        std::uint32_t offset = 0;
        std::uint8_t width = 0;
    };
    Column m_cols[kFields];
    std::unique_ptr<std::byte[]> m_bytes;
    std::size_t m_size = 0;
};

RecordSeries::Packed::Packed(std::span<const RecordStats> records) {
    const std::size_t n = records.size();
    // The records turned into columns first: the passes below then run over plain arrays.
    std::vector<std::uint64_t> bits(kFields * n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto row = fieldsOf(records[i]);
        for (std::size_t c = 0; c < kFields; ++c)
            bits[c * n + i] = row[c];
    }
    for (std::size_t c = 0; c < kFields; ++c) {
        Column& col = m_cols[c];
        const std::uint64_t* v = bits.data() + c * n;
        bool same = true, floats = true;
        std::uint64_t lo = v[0], hi = v[0]; // as signed or unsigned, as the field is
        for (std::size_t i = 0; i < n; ++i)
            same &= v[i] == v[0];
        if (same) {
            col.base = v[0];
        } else if (isDouble(c)) {
            for (std::size_t i = 0; i < n && floats; ++i)
                floats = fitsFloat(v[i]);
            col.width = floats ? 4 : 8;
        } else if (isSigned(c)) {
            for (std::size_t i = 0; i < n; ++i) {
                lo = std::uint64_t(std::min(std::int64_t(lo), std::int64_t(v[i])));
                hi = std::uint64_t(std::max(std::int64_t(hi), std::int64_t(v[i])));
            }
        } else {
            for (std::size_t i = 0; i < n; ++i)
                lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
        }
        if (!same && !isDouble(c)) col.base = lo, col.width = widthFor(hi - lo);
        col.offset = std::uint32_t(m_size);
        m_size += (col.width * n + 7) & ~std::size_t(7); // each column 8-byte aligned
    }
    m_bytes = std::make_unique_for_overwrite<std::byte[]>(m_size);
    for (std::size_t c = 0; c < kFields; ++c) {
        const Column& col = m_cols[c];
        const std::uint64_t* v = bits.data() + c * n;
        std::byte* out = m_bytes.get() + col.offset;
        auto put = [&]<class T>(T) {
            for (std::size_t i = 0; i < n; ++i) {
                const T d = T(v[i] - col.base); // the low bytes
                std::memcpy(out + sizeof(T) * i, &d, sizeof(T));
            }
        };
        if (isDouble(c) && col.width == 4) {
            for (std::size_t i = 0; i < n; ++i) {
                const float f = float(std::bit_cast<double>(v[i]));
                std::memcpy(out + 4 * i, &f, 4);
            }
        } else if (col.width == 1) {
            put(std::uint8_t());
        } else if (col.width == 2) {
            put(std::uint16_t());
        } else if (col.width == 4) {
            put(std::uint32_t());
        } else if (col.width == 8) {
            put(std::uint64_t()); // base is 0 for doubles
        }
    }
}

std::uint64_t RecordSeries::Packed::bits(std::size_t c, std::size_t i) const {
    const Column& col = m_cols[c];
    const std::byte* p = m_bytes.get() + col.offset;
    switch (col.width) {
    case 0:
        return col.base;
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
    const std::byte* p = m_bytes.get() + col.offset;
    switch (col.width) {
    case 0:
        std::fill_n(out, n, asDouble(c, col.base));
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
                out[k] = asDouble(std::size_t(f), fieldsOf(m_tail[inChunk + k])[std::size_t(f)]);
        }
        out += take, i += take;
    }
}

void RecordSeries::grow() {
    // A series that filled a chunk fills the next one too: no copies on the way there.
    m_tail.reserve(m_chunks.empty() ? std::min(kChunk, std::max<std::size_t>(8, 2 * m_tail.size()))
                                    : kChunk);
}

void RecordSeries::seal() {
    m_chunks.push_back(std::make_shared<const Packed>(m_tail));
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
