#pragma once
// The per-record statistics of one (rank, key): a sequence that is cheap to copy and small. Records
// are kept in immutable chunks shared by every copy, plus a short tail of its own, so a copy costs
// a pointer per chunk; a followed run makes a new snapshot on every update and would otherwise copy
// every record each time and keep one copy per snapshot alive. A full chunk is packed column by
// column, each column as narrow as its values allow (values in steps of one size, a column equal
// to another or to its absolute value, offsets from the chunk's least value, floats that are
// exact): a record of a tensor takes ~33 B there instead of 112, one of a scalar ~4-8 B. Reads
// give records by value; records are only appended, never changed.

#include "core/analysis/tensor_stats.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <vector>

namespace xt {
class FileArena;
}

namespace xt::analysis {

struct RecordStats {
    std::size_t record = 0; // record number in the rank
    std::int64_t gstep = 0, lstep = 0, timestamp = 0;
    TensorStats stats;
};

class RecordSeries {
public:
    static constexpr std::size_t kChunk = 512;

    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = RecordStats;
        using difference_type = std::ptrdiff_t;
        using reference = RecordStats; // decoded on reading
        struct pointer {
            RecordStats r;
            const RecordStats* operator->() const { return &r; }
        };

        const_iterator() = default;
        const_iterator(const RecordSeries* s, std::size_t i) : m_s(s), m_i(i) {}
        reference operator*() const { return (*m_s)[m_i]; }
        pointer operator->() const { return {(*m_s)[m_i]}; }
        reference operator[](difference_type n) const { return (*m_s)[m_i + std::size_t(n)]; }
        const_iterator& operator++() { return ++m_i, *this; }
        const_iterator operator++(int) { return {m_s, m_i++}; }
        const_iterator& operator--() { return --m_i, *this; }
        const_iterator operator--(int) { return {m_s, m_i--}; }
        const_iterator& operator+=(difference_type n) { return m_i += std::size_t(n), *this; }
        const_iterator& operator-=(difference_type n) { return m_i -= std::size_t(n), *this; }
        friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
        friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
        friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return difference_type(a.m_i) - difference_type(b.m_i);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.m_i == b.m_i;
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
            return a.m_i <=> b.m_i;
        }

    private:
        const RecordSeries* m_s = nullptr;
        std::size_t m_i = 0;
    };
    using iterator = const_iterator; // records are never changed once added
    using value_type = RecordStats;
    using size_type = std::size_t;

    RecordSeries() = default;
    RecordSeries(std::initializer_list<RecordStats> records) {
        append(records.begin(), records.end());
    }

    // The fields of a record, in the order of RecordStats.
    enum class Field : std::uint8_t {
        Record,
        Gstep,
        Lstep,
        Timestamp,
        Count,
        Nan,
        Inf,
        Zeros,
        Finite,
        Min,
        Max,
        Mean,
        Std,
        L2
    };
    static constexpr std::size_t kFields = 14;

    std::size_t size() const { return m_chunks.size() * kChunk + m_tail.size(); }
    bool empty() const { return m_chunks.empty() && m_tail.empty(); }
    RecordStats operator[](std::size_t i) const;
    RecordStats front() const { return (*this)[0]; }
    RecordStats back() const { return (*this)[size() - 1]; }
    // One field of records [first, first + n) as doubles (integers converted), into out: a line
    // of a million records reads only what it draws.
    void read(Field f, std::size_t first, std::size_t n, double* out) const;
    // Calls fn(i, field f of record i) for i = first, first + 1, ... until fn returns false,
    // decoding a block at a time (one field of a million records: ~2 ms, the whole records: 30).
    template <class Fn> void scan(Field f, Fn fn, std::size_t first = 0) const {
        constexpr std::size_t kBlock = 256;
        double v[kBlock];
        for (std::size_t i = first; i < size(); i += kBlock) {
            const std::size_t n = std::min(kBlock, size() - i);
            read(f, i, n, v);
            for (std::size_t k = 0; k < n; ++k)
                if (!fn(i + k, v[k])) return;
        }
    }
    // The first record from `first` on whose field f is `value`, or size().
    std::size_t find(Field f, double value, std::size_t first = 0) const {
        std::size_t at = size();
        scan(
            f, [&](std::size_t i, double v) { return v == value ? (at = i, false) : true; }, first);
        return at;
    }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    void push_back(const RecordStats& r) {
        if (m_tail.size() == m_tail.capacity()) grow(); // never beyond one chunk
        m_tail.push_back(r);
        m_nonFinite += r.stats.nan || r.stats.inf;
        if (m_tail.size() == kChunk) seal();
    }
    template <class It> void append(It first, It last) {
        for (; first != last; ++first)
            push_back(*first);
    }
    void clear() { m_chunks.clear(), m_tail.clear(), m_nonFinite = 0; }
    // How many of the records hold a NaN or an Inf (counted as they are added: no pass).
    std::size_t nonFiniteRecords() const { return m_nonFinite; }
    // How many of its chunks this series holds together with other copies.
    std::size_t sharedChunks() const;
    // Bytes the records hold on the heap (packed chunks and the tail's capacity).
    std::size_t heldBytes() const;
    // Where the chunks this series (and its copies) seals from now on are kept: in `arena` (page
    // cache, read through its mapping), or on the heap (null, the default, or where the arena
    // fails). A followed run's series, which grow as long as it is watched, are kept in the
    // cache folder (extendRun).
    void keepChunksIn(std::shared_ptr<FileArena> arena);

private:
    class Packed; // kChunk records, column by column
    void grow();
    void seal(); // the full tail becomes a shared chunk

    std::vector<std::shared_ptr<const Packed>> m_chunks; // kChunk records each
    std::vector<RecordStats> m_tail;                     // < kChunk records
    std::size_t m_nonFinite = 0;
    std::shared_ptr<FileArena> m_arena; // where sealed chunks go (keepChunksIn)
};

} // namespace xt::analysis
