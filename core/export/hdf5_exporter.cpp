#include "core/export/hdf5_exporter.h"

#include "core/analysis/tensor_kernels.h"
#include "core/base/diagnostic_codes.h"
#include "core/base/fd_io.h"
#include "core/export/atomic_file.h"
#include "core/export/hdf5_objects.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <numeric>
#include <regex>
#include <set>
#include <span>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace xt {

namespace {

using namespace h5;

// What pass 1 learns about one key of one rank.
struct KeyPlan {
    std::string key;
    std::uint64_t rows = 0;
    xdl::Dtype dtype = xdl::Dtype::Float;
    bool mixedDtypes = false;
    xdl::Shape shape;
    bool ragged = false;
    int maxRank = 0;
    std::uint64_t totalElements = 0;
};

// A row found by pass 1, kept so that pass 2 need not decode its record again.
struct RowRef {
    const xdl::RecordEntry* entry;
    const std::uint8_t* data;
    std::uint64_t size;
    std::uint32_t part, column;
    std::int32_t shape; // index into the rank's other shapes; -1: the key's first shape
    xdl::Dtype dtype;

    // Column `column` of part `part`'s record `e`.
    static RowRef of(const xdl::RecordEntry& e, const xdl::ColumnView& col, std::size_t part,
                     std::size_t column, std::int32_t shape) {
        return {&e,
                col.data.data(),
                col.data.size(),
                static_cast<std::uint32_t>(part),
                static_cast<std::uint32_t>(column),
                shape,
                col.dtype()};
    }
};

// Rows of at least this many bytes (uniform shape, file dtype) are written one by one straight
// from the mapped trace instead of being gathered into a buffer.
constexpr std::uint64_t kDirectRowBytes = 256u << 10;
// Buffered rows are written when a key has gathered this many bytes, its steps and statistics
// included (kRowBytes a row: scalars would otherwise gather 2 M rows, 200 MB, before a flush).
constexpr std::uint64_t kFlushBytes = 8u << 20;
constexpr std::uint64_t kRowBytes = 3 * sizeof(std::int64_t) + sizeof(StatsRow);
// The most rows of a chunk (a chunk of statistics: 4.7 MB).
constexpr hsize_t kMostChunkRows = 1 << 16;

// Rows of a chunk of `rows` rows where at most `most` fit: chunks as even as they can be, so that
// the last one (allocated whole in the file) is not mostly empty.
hsize_t evenChunk(hsize_t rows, hsize_t most) {
    const hsize_t chunks = (std::max<hsize_t>(rows, 1) + most - 1) / most;
    return (std::max<hsize_t>(rows, 1) + chunks - 1) / chunks;
}

// A dataset of rows and what writing them needs. Where its rows are stored as they lie in
// memory (unfiltered, file type = memory type: XDL data and these files are little-endian), its
// chunks are allocated when it is created and its rows written in place, any number at a time,
// with pwrite at the chunks' addresses; HDF5 writes the others.
struct RowDataset {
    Handle id;
    hid_t memType = -1; // the rows' type in memory (not owned)
    std::vector<hsize_t> dims;
    hsize_t rowBytes = 0;           // in memory
    hsize_t chunkRows = 0;          // where written in place
    std::vector<haddr_t> chunkAddr; // where written in place: each chunk's offset in the file
    bool inPlace() const { return !chunkAddr.empty(); }
};

// The rows a key gathered since its last flush, for each of its datasets.
struct GatheredRows {
    std::string values;
    std::vector<std::int64_t> gsteps, lsteps, timestamps, shapes;
    std::vector<StatsRow> stats;
    std::vector<std::uint64_t> offsets; // ragged: the end of the rows flushed before first

    std::uint64_t rows() const { return gsteps.size(); }
    std::uint64_t bytes() const { return values.size() + rows() * kRowBytes; }
    void clear() {
        values.clear();
        gsteps.clear(), lsteps.clear(), timestamps.clear(), shapes.clear();
        stats.clear(), offsets.clear();
    }
};

// Where a flush's rows go: the first row, and the first value element where ragged.
struct FlushAt {
    std::uint64_t row = 0, element = 0;
};

// Pass 2: a key's datasets and the rows buffered for them.
class KeyWriter {
public:
    explicit KeyWriter(KeyPlan plan) : m_plan(std::move(plan)) {}

    // fd: the file's descriptor where rows can be written in place; else -1.
    Status create(hid_t rankGroup, const std::string& path, int deflate, int fd) {
        m_fd = fd;
        m_writeWhat = "cannot write rows of key " + m_plan.key;
        XT_ASSIGN_OR_RETURN(m_group, ensureGroups(rankGroup, path));
        XT_RETURN_IF_ERROR(writeStringAttr(m_group.get(), "key", m_plan.key));
        m_valueDtype = m_plan.mixedDtypes ? xdl::Dtype::Double : m_plan.dtype;
        if (m_plan.mixedDtypes)
            XT_RETURN_IF_ERROR(
                writeStringAttr(m_group.get(), "converted_from_mixed_dtypes", "float64"));
        m_elementSize = xdl::elementSize(m_valueDtype);
        H5Types vt = typesOf(m_valueDtype);
        m_valueMemType = std::move(vt.memory);

        std::vector<hsize_t> dims, chunk;
        if (m_plan.ragged) {
            dims = {m_plan.totalElements};
            chunk = {
                evenChunk(m_plan.totalElements, std::max<hsize_t>((1 << 20) / m_elementSize, 1))};
        } else {
            dims.push_back(m_plan.rows);
            for (auto d : m_plan.shape.view())
                dims.push_back(static_cast<hsize_t>(d));
            hsize_t rowBytes = static_cast<hsize_t>(m_plan.shape.numElements()) * m_elementSize;
            chunk = dims;
            chunk[0] = evenChunk(
                m_plan.rows,
                std::clamp<hsize_t>((1 << 20) / std::max<hsize_t>(rowBytes, 1), 1, kMostChunkRows));
            // Bool is excluded: HDF5 maps values other than 0/1 through its enum conversion.
            m_direct = !m_plan.mixedDtypes && m_valueDtype != xdl::Dtype::Bool &&
                       rowBytes >= kDirectRowBytes;
            // Buffered rows written by HDF5 are flushed a chunk at a time, every dataset of the
            // key chunked alike: each flush writes whole chunks (HDF5 would read a partial one
            // back), and the buffers are used again.
            if (!m_direct) m_chunkRows = m_untilChunkEnd = chunk[0];
        }
        auto dataset = [&](const char* name, hid_t fileType, hid_t memType,
                           const std::vector<hsize_t>& d,
                           const std::vector<hsize_t>& c) -> Result<RowDataset> {
            Handle space(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose);
            Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
            const bool inPlace =
                d[0] > 0 && deflate == 0 && m_fd >= 0 && H5Tequal(fileType, memType) > 0;
            if (d[0] > 0) {
                H5Pset_chunk(dcpl.get(), static_cast<int>(c.size()), c.data());
                if (deflate > 0) H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflate));
            }
            if (inPlace) { // every chunk allocated now, no fill values written
                H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY);
                H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
            }
            const std::string what = std::string("dataset ") + name + " of key " + m_plan.key;
            hid_t id = H5Dcreate2(m_group.get(), name, fileType, space.get(), H5P_DEFAULT,
                                  dcpl.get(), H5P_DEFAULT);
            if (id < 0) return h5Error("create " + what);
            RowDataset out{Handle(id, H5Dclose), memType, d, H5Tget_size(memType), 0, {}};
            for (std::size_t i = 1; i < d.size(); ++i)
                out.rowBytes *= d[i];
            if (!inPlace) return out;
            out.chunkRows = c[0];
            std::vector<hsize_t> at(d.size(), 0);
            for (at[0] = 0; at[0] < d[0]; at[0] += c[0]) {
                haddr_t addr = HADDR_UNDEF;
                hsize_t size = 0;
                unsigned filters = 0;
                if (H5Dget_chunk_info_by_coord(id, at.data(), &filters, &addr, &size) < 0 ||
                    addr == HADDR_UNDEF || size != c[0] * out.rowBytes)
                    return h5Error("allocate the chunks of " + what);
                out.chunkAddr.push_back(addr);
            }
            return out;
        };
        auto make = [&](RowDataset& out, const char* name, hid_t type, hid_t memType,
                        std::vector<hsize_t> d) -> Status {
            std::vector<hsize_t> c = d;
            c[0] = m_chunkRows ? m_chunkRows : evenChunk(c[0], kMostChunkRows);
            XT_ASSIGN_OR_RETURN(out, dataset(name, type, memType, d, c));
            m_inPlace = m_inPlace && out.inPlace();
            return Status::ok();
        };
        XT_ASSIGN_OR_RETURN(m_values,
                            dataset("values", vt.file.get(), m_valueMemType.get(), dims, chunk));
        m_inPlace = m_plan.rows > 0 && (m_direct || m_values.inPlace());
        XT_RETURN_IF_ERROR(make(m_gstep, "gstep", H5T_STD_I64LE, H5T_NATIVE_INT64, {m_plan.rows}));
        XT_RETURN_IF_ERROR(make(m_lstep, "lstep", H5T_STD_I64LE, H5T_NATIVE_INT64, {m_plan.rows}));
        XT_RETURN_IF_ERROR(
            make(m_timestamp, "timestamp", H5T_STD_I64LE, H5T_NATIVE_INT64, {m_plan.rows}));
        Handle st = statsType(true);
        m_statsMemType = statsType(false);
        XT_RETURN_IF_ERROR(make(m_stats, "stats", st.get(), m_statsMemType.get(), {m_plan.rows}));
        if (m_plan.ragged) {
            XT_RETURN_IF_ERROR(
                make(m_offsets, "offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, {m_plan.rows + 1}));
            XT_RETURN_IF_ERROR(make(m_shapes, "shapes", H5T_STD_I64LE, H5T_NATIVE_INT64,
                                    {m_plan.rows, static_cast<hsize_t>(m_plan.maxRank)}));
            m_rows.offsets.push_back(0);
        }
        // The buffers' final sizes where known (they are flushed at a chunk or kFlushBytes): no
        // regrowth.
        const std::uint64_t valueBytes = m_direct ? 0 : m_plan.totalElements * m_elementSize;
        const std::uint64_t meanRowBytes = valueBytes / std::max<std::uint64_t>(m_plan.rows, 1);
        m_reserveRows = std::min(m_plan.rows, kFlushBytes / (meanRowBytes + kRowBytes) + 1);
        if (m_chunkRows) m_reserveRows = std::min<std::uint64_t>(m_reserveRows, m_chunkRows);
        m_reserveValueBytes = std::min(valueBytes, m_chunkRows ? m_reserveRows * meanRowBytes
                                                               : kFlushBytes + (1u << 20));
        reserve(m_rows);
        return Status::ok();
    }

    // Adds one row (`r`'s bytes, of `shape`) with its statistics: large uniform rows are written
    // at once from the tensor's bytes, others buffered until flush().
    Status add(const RowRef& r, const xdl::Shape& shape, const StatsRow& stats) {
        const xdl::Bytes bytes(r.data, r.size);
        if (m_direct) {
            XT_RETURN_IF_ERROR(writeRows(m_values, m_rowsFlushed + m_rows.rows(), 1, r.data));
        } else if (m_plan.mixedDtypes) {
            std::vector<double> d = xdl::TensorView(r.dtype, shape, bytes).toDoubles();
            m_rows.values.append(reinterpret_cast<const char*>(d.data()),
                                 d.size() * sizeof(double));
        } else {
            m_rows.values.append(reinterpret_cast<const char*>(r.data), r.size);
        }
        m_rows.gsteps.push_back(r.entry->gstep);
        m_rows.lsteps.push_back(r.entry->lstep);
        m_rows.timestamps.push_back(r.entry->timestamp);
        m_rows.stats.push_back(stats);
        if (m_plan.ragged) {
            m_elementsWritten += r.size / xdl::elementSize(r.dtype);
            m_rows.offsets.push_back(m_elementsWritten);
            for (int i = 0; i < m_plan.maxRank; ++i)
                m_rows.shapes.push_back(i < shape.rank ? shape.dims[static_cast<size_t>(i)] : -1);
        }
        m_bytes += r.size;
        const bool chunkEnds = m_chunkRows && !m_inPlace && --m_untilChunkEnd == 0;
        if (chunkEnds) m_untilChunkEnd = m_chunkRows;
        if (chunkEnds || buffered() >= kFlushBytes) return flush();
        return Status::ok();
    }

    Status flush() {
        if (m_rows.rows() == 0) return Status::ok();
        Status st = write(m_rows, flushed());
        m_rows.clear();
        restart(m_rows);
        return st;
    }
    // For a writer whose rows are all written in place: takes the rows gathered since the last
    // flush out, to be written by write() (from any thread). Where `more` rows are to come, they
    // are gathered into `next`, reserved as the first buffers were.
    std::pair<GatheredRows, FlushAt> takeRows(GatheredRows next, bool more) {
        const FlushAt at = flushed();
        if (more) reserve(next);
        restart(next);
        std::swap(next, m_rows);
        return {std::move(next), at};
    }
    // Writes rows taken by takeRows() (or all gathered) where flushed() placed them. Reads only
    // what creation set: may run on another thread while rows are gathered.
    Status write(const GatheredRows& rows, FlushAt at) const {
        const std::uint64_t n = rows.rows();
        if (!m_direct)
            XT_RETURN_IF_ERROR(writeRows(m_values, m_plan.ragged ? at.element : at.row,
                                         m_plan.ragged ? rows.values.size() / m_elementSize : n,
                                         rows.values.data()));
        XT_RETURN_IF_ERROR(writeRows(m_gstep, at.row, n, rows.gsteps.data()));
        XT_RETURN_IF_ERROR(writeRows(m_lstep, at.row, n, rows.lsteps.data()));
        XT_RETURN_IF_ERROR(writeRows(m_timestamp, at.row, n, rows.timestamps.data()));
        XT_RETURN_IF_ERROR(writeRows(m_stats, at.row, n, rows.stats.data()));
        if (m_plan.ragged) {
            // offsets has one more entry than rows: the buffer starts with the last flushed end.
            XT_RETURN_IF_ERROR(writeRows(m_offsets, at.row, n + 1, rows.offsets.data()));
            XT_RETURN_IF_ERROR(writeRows(m_shapes, at.row, n, rows.shapes.data()));
        }
        return Status::ok();
    }

    std::uint64_t bytes() const { return m_bytes; }
    // Whether every dataset is written in place: flush() takes any number of rows.
    bool inPlace() const { return m_inPlace; }
    // Bytes of the rows gathered since the last flush.
    std::uint64_t buffered() const { return m_rows.bytes(); }
    const KeyPlan& plan() const { return m_plan; }

private:
    // Where the gathered rows go, which are counted as flushed.
    FlushAt flushed() {
        const FlushAt at{m_rowsFlushed, m_valueElementsFlushed};
        m_rowsFlushed += m_rows.rows();
        m_valueElementsFlushed += m_rows.values.size() / m_elementSize;
        return at;
    }
    // Empty rows ready to gather the next: the buffers' final sizes where known (they are
    // flushed at a chunk or kFlushBytes), and a ragged key's flushed end.
    void reserve(GatheredRows& rows) const {
        rows.values.reserve(m_reserveValueBytes);
        for (auto* v : {&rows.gsteps, &rows.lsteps, &rows.timestamps})
            v->reserve(m_reserveRows);
        rows.stats.reserve(m_reserveRows);
    }
    void restart(GatheredRows& rows) const {
        if (m_plan.ragged) rows.offsets.push_back(m_elementsWritten);
    }

    // Writes `count` leading-dimension rows of `ds` starting at `start` from `data`.
    Status writeRows(const RowDataset& ds, std::uint64_t start, std::uint64_t count,
                     const void* data) const {
        if (!ds.inPlace()) return writeSlab(ds, start, count, data);
        // A run of rows in adjacent chunks is one pwrite.
        const auto* bytes = static_cast<const std::uint8_t*>(data);
        const std::uint64_t end = start + count;
        for (std::uint64_t row = start; row < end;) {
            std::size_t chunk = row / ds.chunkRows;
            const haddr_t at = ds.chunkAddr[chunk] + (row - chunk * ds.chunkRows) * ds.rowBytes;
            std::uint64_t last = std::min<std::uint64_t>(end, (chunk + 1) * ds.chunkRows);
            while (last < end &&
                   ds.chunkAddr[chunk + 1] == ds.chunkAddr[chunk] + ds.chunkRows * ds.rowBytes) {
                ++chunk;
                last = std::min<std::uint64_t>(end, (chunk + 1) * ds.chunkRows);
            }
            XT_RETURN_IF_ERROR(writeFullyAt(m_fd, bytes + (row - start) * ds.rowBytes,
                                            (last - row) * ds.rowBytes, at, m_writeWhat));
            row = last;
        }
        return Status::ok();
    }
    Status writeSlab(const RowDataset& ds, std::uint64_t start, std::uint64_t count,
                     const void* data) const {
        Handle fileSpace(H5Dget_space(ds.id.get()), H5Sclose);
        std::vector<hsize_t> offset(ds.dims.size(), 0), extent = ds.dims;
        offset[0] = start;
        extent[0] = count;
        H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, offset.data(), nullptr, extent.data(),
                            nullptr);
        Handle memSpace(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr),
                        H5Sclose);
        if (H5Dwrite(ds.id.get(), ds.memType, memSpace.get(), fileSpace.get(), H5P_DEFAULT, data) <
            0)
            return h5Error("write rows of key " + m_plan.key);
        return Status::ok();
    }

    KeyPlan m_plan;
    Handle m_group;
    RowDataset m_values, m_gstep, m_lstep, m_timestamp, m_stats, m_offsets, m_shapes;
    Handle m_valueMemType, m_statsMemType;
    xdl::Dtype m_valueDtype = xdl::Dtype::Float;
    std::size_t m_elementSize = 4;
    int m_fd = -1;
    bool m_direct = false;
    bool m_inPlace = false;
    // Rows of a chunk of every dataset, where the buffered rows' datasets are chunked alike (then
    // flushed a chunk at a time unless written in place); else 0.
    hsize_t m_chunkRows = 0;
    hsize_t m_untilChunkEnd = 0; // rows added before the next chunk is whole
    GatheredRows m_rows;
    std::uint64_t m_reserveRows = 0, m_reserveValueBytes = 0; // see reserve()
    std::string m_writeWhat;                                  // a failed write's message
    std::uint64_t m_rowsFlushed = 0, m_valueElementsFlushed = 0, m_elementsWritten = 0, m_bytes = 0;
};

// What an export is asked for, and how far it has come (progress counts records, twice).
struct ExportScope {
    const Hdf5ExportOptions& options;
    std::optional<std::regex> filter;
    analysis::Backend* backend;
    Diagnostics& diag;
    const ProgressCallback& progress;
    std::uint64_t done = 0, total = 0;
    int fd = -1; // the output's descriptor, where rows can be written in place (see RowDataset)

    bool wanted(const std::string& key) const { return !filter || std::regex_search(key, *filter); }
    bool inRange(std::int64_t g) const {
        return (!options.gstepFirst || g >= *options.gstepFirst) &&
               (!options.gstepLast || g <= *options.gstepLast);
    }
    // Reports every 1024 records; false: cancelled.
    bool step(const char* what) const {
        return (done & 0x3ff) != 0 || reportProgress(progress, done, total, what);
    }
};

Status cancelled() {
    return Status(ErrorCode::Cancelled, "export cancelled");
}

// Pass 1 over one rank: which keys have rows, how many, of which dtype and shapes, and (while
// they fit options.rowRefBytes) every row, so that pass 2 need not decode its record again.
struct RankPlan {
    std::map<std::string, KeyPlan> plans;
    std::vector<std::string> order; // keys in the order of their first row
    // In record order, a segment for each thread of pass 1; a row's shape indexes otherShapes.
    std::vector<std::vector<RowRef>> rowRefs{1};
    std::size_t rowRefCount = 0;
    std::vector<xdl::Shape> otherShapes;
    bool allRowRefs = true;

    void addRow(KeyPlan& p, const xdl::RecordEntry& e, const xdl::ColumnView& col,
                std::size_t partIndex, std::size_t c, std::uint64_t rowRefBytes) {
        if (p.rows == 0) {
            order.push_back(p.key);
            p.dtype = col.dtype(), p.shape = col.shape;
        }
        p.mixedDtypes = p.mixedDtypes || p.dtype != col.dtype();
        p.ragged = p.ragged || !(p.shape == col.shape);
        p.maxRank = std::max(p.maxRank, col.shape.rank);
        p.totalElements += static_cast<std::uint64_t>(col.shape.numElements());
        ++p.rows;
        if (!allRowRefs) return;
        std::int32_t shape = -1;
        if (!(col.shape == p.shape)) {
            shape = static_cast<std::int32_t>(otherShapes.size());
            otherShapes.push_back(col.shape);
        }
        rowRefs.back().push_back(RowRef::of(e, col, partIndex, c, shape));
        if (++rowRefCount * sizeof(RowRef) + otherShapes.size() * sizeof(xdl::Shape) > rowRefBytes)
            dropRowRefs();
    }
    void dropRowRefs() {
        allRowRefs = false;
        rowRefs = {}, rowRefCount = 0, otherShapes = {};
    }

    // Appends the plan of `rank`'s records that follow this plan's.
    void append(const xdl::RankReader& rank, RankPlan&& later) {
        // later's rows of a key's first shape there: which shape index they take here.
        std::map<std::string, std::int32_t> firstShapeOf;
        for (const std::string& key : later.order) {
            const KeyPlan& l = later.plans.at(key);
            KeyPlan& p = plans[key];
            if (p.rows == 0) {
                p = l;
                order.push_back(key);
                continue;
            }
            if (!(l.shape == p.shape)) {
                firstShapeOf[key] = static_cast<std::int32_t>(otherShapes.size());
                otherShapes.push_back(l.shape);
            }
            p.mixedDtypes = p.mixedDtypes || l.mixedDtypes || p.dtype != l.dtype;
            p.ragged = p.ragged || l.ragged || !(p.shape == l.shape);
            p.maxRank = std::max(p.maxRank, l.maxRank);
            p.totalElements += l.totalElements;
            p.rows += l.rows;
        }
        if (!allRowRefs || !later.allRowRefs) return dropRowRefs();
        const auto shapesBefore = static_cast<std::int32_t>(otherShapes.size());
        otherShapes.insert(otherShapes.end(), later.otherShapes.begin(), later.otherShapes.end());
        rowRefCount += later.rowRefCount;
        const bool renumber = !firstShapeOf.empty() || !later.otherShapes.empty();
        std::vector<std::vector<std::int32_t>> shapeOfColumn; // [part][column]: -1 or an index
        for (auto& segment : later.rowRefs) {
            if (renumber)
                for (RowRef& r : segment) {
                    if (r.shape >= 0) {
                        r.shape += shapesBefore;
                        continue;
                    }
                    if (shapeOfColumn.size() <= r.part) shapeOfColumn.resize(r.part + 1);
                    auto& columns = shapeOfColumn[r.part];
                    if (columns.size() <= r.column) columns.resize(r.column + 1, -2);
                    if (columns[r.column] == -2) {
                        auto it = firstShapeOf.find(rank.parts()[r.part]->keys()[r.column]);
                        columns[r.column] = it == firstShapeOf.end() ? -1 : it->second;
                    }
                    r.shape = columns[r.column];
                }
            rowRefs.push_back(std::move(segment));
        }
    }
};

// Pass 1 over records [first, last) of one rank into `out`. proceed(i) is asked at every
// record; false: stop (cancelled).
Status planRecords(const xdl::RankReader& rank, const ExportScope& scope, std::size_t first,
                   std::size_t last, std::uint64_t rowRefBytes, RankPlan& out, Diagnostics& diag,
                   const std::function<bool(std::size_t)>& proceed) {
    // Each part's columns find their plan by index; null: filtered out.
    std::vector<std::vector<KeyPlan*>> planOf(rank.parts().size());
    for (std::size_t p = 0; p < rank.parts().size(); ++p)
        for (const auto& key : rank.parts()[p]->keys()) {
            KeyPlan* plan = scope.wanted(key) ? &out.plans[key] : nullptr;
            if (plan) plan->key = key;
            planOf[p].push_back(plan);
        }
    // At most a row a column: reserved at once, not grown (each growth copied what was kept and
    // touched twice as much fresh memory). Pages not written to are never taken.
    std::uint64_t most = 0;
    for (std::size_t p = 0; p < rank.parts().size(); ++p) {
        const std::size_t from = std::max(first, rank.partStart(p));
        const std::size_t to = std::min(last, rank.partStart(p + 1));
        if (from < to) most += (to - from) * rank.parts()[p]->keys().size();
    }
    if (out.allRowRefs)
        out.rowRefs.back().reserve(std::min<std::uint64_t>(most, rowRefBytes / sizeof(RowRef)));
    xdl::RecordView view;
    for (std::size_t i = first; i < last; ++i) {
        if (!proceed(i)) return cancelled();
        const auto& e = rank.entry(i);
        if (!scope.inRange(e.gstep)) continue;
        const std::size_t partIndex = rank.partOf(i);
        const auto& part = *rank.parts()[partIndex];
        if (Status st = rank.decode(i, view); !st) {
            // Bytes of a remote part that cannot be fetched: no export with rows missing.
            if (st.code() == ErrorCode::IoError) return st;
            continue; // damage: reported by the index already
        }
        for (std::size_t c = 0; c < view.columns.size() && c < part.keys().size(); ++c) {
            const auto& col = view.columns[c];
            KeyPlan* plan = planOf[partIndex][c];
            if (!plan || col.isEmpty()) continue;
            if (col.check() != xdl::ColumnProblem::None) {
                diag.add(codes::kBadColumn, part.part().displayPath(), e.offset - 4, -1,
                         "key '" + part.keys()[c] +
                             "' skipped in the export: " + columnProblemName(col.check()));
                continue;
            }
            out.addRow(*plan, e, col, partIndex, c, rowRefBytes);
        }
    }
    return Status::ok();
}

// Pass 1 over one rank. Its records are split in two halves, planned at once by this thread and
// a helper (each with half of rowRefBytes), unless they are few.
Result<RankPlan> planRank(const xdl::RankReader& rank, ExportScope& scope) {
    const std::size_t n = rank.recordCount();
    const std::uint64_t start = scope.done;
    const bool split = n >= 4096;
    const std::size_t half = split ? n / 2 : n;
    RankPlan out, later;
    Diagnostics laterDiag;
    std::atomic<bool> stop{false};
    std::future<Status> helper;
    if (split) // deferred (run by get, after this thread's half) where no thread can be started
        helper = std::async(std::launch::async | std::launch::deferred, [&] {
            return planRecords(rank, scope, half, n, scope.options.rowRefBytes / 2, later,
                               laterDiag,
                               [&](std::size_t i) { return (i & 0x3ff) != 0 || !stop.load(); });
        });
    // Progress: this thread's records count for both halves.
    Status st =
        planRecords(rank, scope, 0, half, scope.options.rowRefBytes / (split ? 2 : 1), out,
                    scope.diag, [&](std::size_t i) {
                        scope.done = start + (split ? 2 : 1) * i;
                        return (i & 0x3ff) != 0 || reportProgress(scope.progress, scope.done,
                                                                  scope.total, "planning export");
                    });
    if (split) {
        stop = !st;
        Status helperStatus = helper.get();
        if (st) st = helperStatus;
    }
    XT_RETURN_IF_ERROR(st);
    if (split) {
        scope.diag.merge(laterDiag);
        out.append(rank, std::move(later));
    }
    scope.done = start + n;
    return out;
}

// A hint to the core that this thread spins.
inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Pass 2's rows in record order, in batches whose statistics (all keys of a range of records)
// are computed in the background while the previous batch is written, whose bytes the
// statistics have just brought into cache. A batch holds 8 MiB or 4096 rows: a batch of one
// 1 MiB row started a thread per row, and took 1.7x as long in all. The rows are the 40-byte
// references pass 1 found, where they lie, or copies of those decoded again; the statistics'
// thread makes their views.
class RowBatcher {
public:
    // writerOf[part][column]: the writer of a part's column (pass 2 writes only planned keys).
    // Once the writers hold `bufferBytes` of rows together, every one of them is flushed.
    RowBatcher(analysis::Backend* backend, const std::vector<std::vector<KeyWriter*>>& writerOf,
               std::uint64_t bufferBytes)
        : m_backend(backend), m_writerOf(writerOf), m_bufferBytes(bufferBytes) {
        std::map<KeyWriter*, std::uint32_t> ids;
        for (const auto& writers : writerOf) {
            auto& idOf = m_idOf.emplace_back();
            for (KeyWriter* w : writers) {
                if (!w) {
                    idOf.push_back(0);
                    continue;
                }
                auto [it, added] = ids.emplace(w, static_cast<std::uint32_t>(ids.size()));
                idOf.push_back(it->second);
                if (added && w->inPlace()) m_inPlace.push_back(w);
            }
        }
        m_keys = ids.size();
        try {
            m_helper = std::thread([this] { computeStatsOnRequest(); });
        } catch (const std::system_error&) { // no thread: start() computes the statistics
        }
    }
    ~RowBatcher() {
        if (!m_helper.joinable()) return;
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_one();
        m_helper.join();
    }

    // Adds a row; `shape` is its shape where r.shape >= 0 (not its key's first shape).
    Status add(RowRef r, const xdl::Shape* shape) {
        Batch& b = m_batches[m_filling];
        if (r.shape >= 0) {
            r.shape = static_cast<std::int32_t>(b.ownShapes.size());
            b.ownShapes.push_back(*shape);
        }
        b.own.push_back(r);
        b.rows = b.own;
        b.shapes = &b.ownShapes;
        return counted(b, r) ? start() : Status::ok();
    }
    // Adds rows that stay where they are until written; a row's shape >= 0 indexes `shapes`.
    Status add(std::span<const RowRef> rows, const std::vector<xdl::Shape>& shapes) {
        for (std::size_t i = 0; i < rows.size();) {
            Batch& b = m_batches[m_filling];
            if (b.rows.empty()) b.rows = rows.subspan(i, 0), b.shapes = &shapes;
            if (b.rows.data() + b.rows.size() != &rows[i] || b.shapes != &shapes)
                XT_RETURN_IF_ERROR(start()); // not after the batch's rows (another segment)
            else if (b.rows = {b.rows.data(), b.rows.size() + 1}; counted(b, rows[i++]))
                XT_RETURN_IF_ERROR(start());
        }
        return Status::ok();
    }
    // Writes every row added.
    Status finish() {
        XT_RETURN_IF_ERROR(start());
        XT_RETURN_IF_ERROR(write(m_batches[m_filling ^ 1]));
        // The rows the keys written in place still hold, written by both threads (16 MiB of
        // them by default).
        {
            std::lock_guard lock(m_mutex);
            m_draining = true;
        }
        for (KeyWriter* w : m_inPlace)
            if (w->buffered() > 0) XT_RETURN_IF_ERROR(queueFlush(*w));
        std::unique_lock lock(m_mutex);
        while (writeQueued(lock)) {
        }
        m_written.wait(lock, [this] { return m_writing == 0; });
        return m_writeFailure;
    }

private:
    struct Batch {
        std::span<const RowRef> rows; // own, or rows of pass 1
        // A row's shape >= 0 indexes *shapes; -1: its key's first shape.
        const std::vector<xdl::Shape>* shapes = nullptr;
        std::vector<RowRef> own; // rows added one by one, and their shapes
        std::vector<xdl::Shape> ownShapes;
        std::vector<xdl::TensorView> views; // for the backend, made on the statistics' thread
        std::vector<StatsRow> stats;        // the rows' statistics, as written
        std::vector<analysis::TensorStats> backendStats; // the backend's, where not shared
        std::uint64_t bytes = 0, largestRow = 0;         // largestRow: in elements
        bool shared = false; // statistics by both threads, row by row (see start)
        // Where shared: the next row without statistics. Both threads take rows from it, so it
        // has a cache line of its own.
        alignas(64) std::atomic<std::size_t> next{0};
        std::promise<Status> statsPromise;
        std::future<Status> statsDone;
    };

    KeyWriter* writerOf(const RowRef& r) const { return m_writerOf[r.part][r.column]; }
    const xdl::Shape& shapeOf(const Batch& b, const RowRef& r) const {
        return r.shape < 0 ? writerOf(r)->plan().shape : (*b.shapes)[static_cast<size_t>(r.shape)];
    }
    // Counts r, the last row of b; true: b is full.
    static bool counted(Batch& b, const RowRef& r) {
        b.bytes += r.size;
        b.largestRow = std::max(b.largestRow, r.size / xdl::elementSize(r.dtype));
        return b.bytes >= (8u << 20) || b.rows.size() >= 4096;
    }

    // Starts the filling batch's statistics and writes the previous batch.
    // Where the backend is the CPU's and every row is one chunk of statistics, the rows'
    // statistics are the single-threaded tensorStats (the backend's results, bit for bit), which
    // this thread helps compute once it has written the previous batch: the statistics of small
    // rows take longer than their writing, and the backend's own threads would take this
    // thread's core while it writes.
    Status start() {
        Batch &b = m_batches[m_filling], &previous = m_batches[m_filling ^ 1];
        if (previous.statsDone.valid()) { // one backend call at a time
            // Meanwhile, the queued writes, unless both threads shared the statistics: then the
            // other finishes its last rows within microseconds, and writes the queue next.
            std::unique_lock lock(m_mutex);
            while (!previous.shared &&
                   previous.statsDone.wait_for(std::chrono::seconds(0)) !=
                       std::future_status::ready &&
                   writeQueued(lock)) {
            }
            lock.unlock();
            previous.statsDone.wait();
        }
        b.stats.resize(b.rows.size());
        b.shared = m_backend->kind() == analysis::BackendKind::Cpu &&
                   b.largestRow <= analysis::kStatsChunk;
        b.next = 0;
        b.statsPromise = {};
        b.statsDone = b.statsPromise.get_future();
        if (m_helper.joinable()) {
            bool sleeping;
            {
                std::lock_guard lock(m_mutex);
                m_request.store(&b, std::memory_order_release);
                sleeping = m_sleeping;
            }
            if (sleeping) m_wake.notify_one();
        } else {
            b.statsPromise.set_value(computeStats(b));
        }
        m_filling ^= 1;
        XT_RETURN_IF_ERROR(write(previous));
        return b.shared ? shareStats(b) : Status::ok();
    }
    // The helper thread: computes the statistics of each batch start() hands it, one at a time,
    // and writes the queued flushes, until the batcher goes.
    void computeStatsOnRequest() {
        for (bool shared = false;;) {
            // After a batch of small rows, whose statistics both threads share, the next request
            // usually comes within microseconds: a short spin first spares the writing thread
            // the system call (and, on a VM, the interrupt) of waking this one, 3% of a
            // small-row export. Large rows' batches come apart, and the backend's threads need
            // the cores meanwhile.
            for (int i = 0; shared && i < 4096 && !m_request.load(std::memory_order_acquire); ++i)
                pause();
            Batch* b = nullptr;
            {
                std::unique_lock lock(m_mutex);
                m_sleeping = true;
                m_wake.wait(lock, [this] {
                    return m_request.load() || m_stop || (m_draining && !m_queued.empty());
                });
                m_sleeping = false;
                if (m_stop) return;
                // The flushes queued while the last batch was written, first: the writing thread
                // joins this batch's statistics once it has gathered that batch's rows.
                while (writeQueued(lock)) {
                }
                b = m_request.exchange(nullptr);
                if (!b) continue; // woken for the last flushes (finish)
            }
            shared = b->shared;
            try {
                b->statsPromise.set_value(computeStats(*b));
            } catch (...) { // rethrown by the writing thread's get()
                b->statsPromise.set_exception(std::current_exception());
            }
        }
    }
    Status computeStats(Batch& b) {
        if (b.shared) return shareStats(b);
        b.views.clear();
        for (const RowRef& r : b.rows)
            b.views.emplace_back(r.dtype, shapeOf(b, r), xdl::Bytes(r.data, r.size));
        b.backendStats.resize(b.rows.size());
        XT_RETURN_IF_ERROR(m_backend->computeStats(b.views, b.backendStats));
        std::transform(b.backendStats.begin(), b.backendStats.end(), b.stats.begin(), toRow);
        return Status::ok();
    }
    // Rows a thread takes at a time from a shared batch: each take moves `next`'s cache line
    // between the cores (16 at a time: 3-4% of a small-row export on the lock xadd).
    static constexpr std::size_t kShareRows = 64;
    // Computes statistics of b's rows, kShareRows at a time, until none is left.
    Status shareStats(Batch& b) const {
        const std::size_t n = b.rows.size();
        std::array<analysis::SmallTensor, kShareRows> rows;
        std::array<analysis::TensorStats, kShareRows> stats;
        for (std::size_t i; (i = b.next.fetch_add(kShareRows)) < n;) {
            const std::size_t end = std::min(i + kShareRows, n);
            for (std::size_t k = i; k < end; ++k) {
                const RowRef& r = b.rows[k];
                rows[k - i] = {r.dtype, r.data, r.size / xdl::elementSize(r.dtype)};
            }
            analysis::smallTensorStats({rows.data(), end - i}, stats.data());
            // Converted once all are stored: read at once, they would wait for the stores.
            std::transform(stats.begin(), stats.begin() + (end - i), b.stats.begin() + i, toRow);
        }
        return Status::ok();
    }
    // Waits for b's statistics and gives its rows to the writers, grouped by key (a stable
    // counting sort), so that each key's buffers are appended to in one run.
    Status write(Batch& b) {
        if (!b.statsDone.valid()) return Status::ok();
        XT_RETURN_IF_ERROR(b.statsDone.get());
        m_start.assign(m_keys + 1, 0);
        for (const RowRef& r : b.rows)
            ++m_start[m_idOf[r.part][r.column] + 1];
        std::partial_sum(m_start.begin(), m_start.end(), m_start.begin());
        m_order.resize(b.rows.size());
        for (std::size_t k = 0; k < b.rows.size(); ++k)
            m_order[m_start[m_idOf[b.rows[k].part][b.rows[k].column]]++] =
                static_cast<std::uint32_t>(k);
        for (std::uint32_t k : m_order) {
            const RowRef& r = b.rows[k];
            KeyWriter* w = writerOf(r);
            const std::uint64_t before = w->buffered();
            XT_RETURN_IF_ERROR(w->add(r, shapeOf(b, r), b.stats[k]));
            m_buffered = m_buffered + w->buffered() - before;
            if (m_buffered >= m_bufferBytes) XT_RETURN_IF_ERROR(flushAll());
        }
        // Keys written in place are queued for writing (queueFlush) one after the other, in
        // turn, while the writers hold more than a 16th of m_bufferBytes (16 MiB by default: a
        // few hundred kB a key and dataset at a time). As the keys of a run fill at the same
        // pace, flushing each one when it is full would write them all at once.
        for (std::size_t tried = 0; m_buffered > m_bufferBytes / 16 && tried < m_inPlace.size();
             ++tried) {
            KeyWriter* w = m_inPlace[m_nextInPlace++ % m_inPlace.size()];
            m_buffered -= w->buffered();
            XT_RETURN_IF_ERROR(queueFlush(*w));
        }
        b.rows = {}, b.own.clear(), b.ownShapes.clear();
        b.bytes = 0, b.largestRow = 0;
        return Status::ok();
    }

    // Hands w's gathered rows to the statistics' thread, which writes them before its next
    // batch's statistics (a third of a small-row export's time on this thread, while the other
    // waited for it). This thread writes them too where more than kMostQueued bytes wait, while
    // it waits for the statistics of large rows, and, with the other, the last ones (finish).
    static constexpr std::uint64_t kMostQueued = 4u << 20;
    Status queueFlush(KeyWriter& w) {
        if (!m_helper.joinable()) return w.flush();
        std::unique_lock lock(m_mutex);
        GatheredRows next; // none needed for the last flushes (finish)
        if (!m_draining && !m_spare.empty()) next = std::move(m_spare.back()), m_spare.pop_back();
        lock.unlock();
        auto [rows, at] = w.takeRows(std::move(next), !m_draining);
        const std::uint64_t bytes = rows.bytes();
        lock.lock();
        m_queued.push_back({&w, std::move(rows), at});
        m_queuedBytes += bytes;
        if (m_draining && m_sleeping) m_wake.notify_one();
        while (m_queuedBytes > kMostQueued && writeQueued(lock)) {
        }
        return m_writeFailure;
    }
    // Writes the first queued flush, if any, without m_mutex meanwhile; false: none was queued.
    bool writeQueued(std::unique_lock<std::mutex>& lock) {
        if (m_queued.empty()) return false;
        QueuedFlush q = std::move(m_queued.front());
        m_queued.pop_front();
        m_queuedBytes -= q.rows.bytes();
        ++m_writing;
        lock.unlock();
        Status st = q.writer->write(q.rows, q.at);
        q.rows.clear();
        lock.lock();
        --m_writing;
        if (!st && m_writeFailure) m_writeFailure = std::move(st);
        m_spare.push_back(std::move(q.rows));
        m_written.notify_all();
        return true;
    }

    Status flushAll() {
        for (const auto& writers : m_writerOf)
            for (KeyWriter* w : writers)
                if (w) XT_RETURN_IF_ERROR(w->flush());
        m_buffered = 0;
        return Status::ok();
    }

    analysis::Backend* m_backend;
    const std::vector<std::vector<KeyWriter*>>& m_writerOf;
    std::vector<std::vector<std::uint32_t>> m_idOf; // each part column's writer, densely numbered
    std::size_t m_keys = 0;
    std::vector<KeyWriter*> m_inPlace; // the writers that write in place, flushed in turn
    std::size_t m_nextInPlace = 0;
    const std::uint64_t m_bufferBytes;
    std::uint64_t m_buffered = 0; // by every writer
    std::vector<std::uint32_t> m_start, m_order;
    std::array<Batch, 2> m_batches;
    std::size_t m_filling = 0;
    // The statistics' thread, and the batch it is asked for.
    std::thread m_helper;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::atomic<Batch*> m_request{nullptr}; // set under m_mutex; atomic: the helper spins on it
    bool m_sleeping = false;                // the helper waits on m_wake
    bool m_stop = false;
    // Flushes queued by queueFlush (under m_mutex, as all below), the emptied buffers they
    // leave, the flushes being written and the first failed.
    struct QueuedFlush {
        const KeyWriter* writer;
        GatheredRows rows;
        FlushAt at;
    };
    std::deque<QueuedFlush> m_queued;
    std::uint64_t m_queuedBytes = 0;
    std::vector<GatheredRows> m_spare;
    bool m_draining = false; // finish() writes the last rows: the helper is woken for them
    int m_writing = 0;
    std::condition_variable m_written;
    Status m_writeFailure;
};

// A writer per planned key, in the order of their first rows, under /rank{R}.
Result<std::map<std::string, std::unique_ptr<KeyWriter>>>
createWriters(hid_t rankGroup, RankPlan& plan, const ExportScope& scope) {
    std::map<std::string, std::unique_ptr<KeyWriter>> writers;
    std::set<std::string> usedPaths;
    for (const auto& key : plan.order) {
        std::string path = groupPathOf(key);
        for (int n = 2; usedPaths.count(path); ++n)
            path = groupPathOf(key) + "~" + std::to_string(n);
        usedPaths.insert(path);
        auto w = std::make_unique<KeyWriter>(plan.plans[key]);
        XT_RETURN_IF_ERROR(w->create(rankGroup, path, scope.options.deflateLevel, scope.fd));
        writers.emplace(key, std::move(w));
    }
    return writers;
}

// Pass 2 over one rank: every planned row to its key's writer, from the rows pass 1 kept or by
// decoding the records again.
Status writeRankRows(const xdl::RankReader& rank, const RankPlan& plan,
                     const std::map<std::string, std::unique_ptr<KeyWriter>>& writers,
                     ExportScope& scope) {
    std::vector<std::vector<KeyWriter*>> writerOf(rank.parts().size());
    for (std::size_t p = 0; p < rank.parts().size(); ++p)
        for (const auto& key : rank.parts()[p]->keys()) {
            auto it = writers.find(key);
            writerOf[p].push_back(it == writers.end() ? nullptr : it->second.get());
        }
    RowBatcher rows(scope.backend, writerOf, scope.options.bufferBytes);
    if (plan.allRowRefs) {
        const std::uint64_t first = scope.done;
        std::size_t k = 0;
        for (const auto& segment : plan.rowRefs) {
            for (std::size_t i = 0; i < segment.size(); i += 1024) {
                if (!reportProgress(scope.progress,
                                    first + (k + i) * rank.recordCount() / plan.rowRefCount,
                                    scope.total, "exporting"))
                    return cancelled();
                XT_RETURN_IF_ERROR(rows.add(
                    std::span(segment).subspan(i, std::min<std::size_t>(1024, segment.size() - i)),
                    plan.otherShapes));
            }
            k += segment.size();
        }
        scope.done = first + rank.recordCount();
        return rows.finish();
    }
    xdl::RecordView view;
    for (std::size_t i = 0; i < rank.recordCount(); ++i, ++scope.done) {
        if (!scope.step("exporting")) return cancelled();
        const auto& e = rank.entry(i);
        if (!scope.inRange(e.gstep)) continue;
        if (Status st = rank.decode(i, view); !st) {
            if (st.code() == ErrorCode::IoError) return st;
            continue;
        }
        const std::size_t partIndex = rank.partOf(i);
        const auto& columnWriters = writerOf[partIndex];
        for (std::size_t c = 0; c < view.columns.size() && c < columnWriters.size(); ++c) {
            const auto& col = view.columns[c];
            if (!columnWriters[c] || col.isEmpty() || col.check() != xdl::ColumnProblem::None)
                continue;
            const bool firstShape = col.shape == columnWriters[c]->plan().shape;
            XT_RETURN_IF_ERROR(
                rows.add(RowRef::of(e, col, partIndex, c, firstShape ? -1 : 0), &col.shape));
        }
    }
    return rows.finish();
}

// Both passes over one rank into its group /rank{R}.
Status exportRank(hid_t file, const xdl::RankReader& rank, ExportScope& scope,
                  Hdf5ExportReport& report) {
    XT_ASSIGN_OR_RETURN(RankPlan plan, planRank(rank, scope));
    std::string rankName = "rank" + std::to_string(rank.rank());
    Handle rankGroup(H5Gcreate2(file, rankName.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     H5Gclose);
    if (!rankGroup.valid()) return h5Error("create group " + rankName);
    XT_RETURN_IF_ERROR(writeMetaTable(rankGroup.get(), rank));
    XT_ASSIGN_OR_RETURN(auto writers, createWriters(rankGroup.get(), plan, scope));
    XT_RETURN_IF_ERROR(writeRankRows(rank, plan, writers, scope));
    for (auto& [key, w] : writers) {
        XT_RETURN_IF_ERROR(w->flush());
        ++report.keys;
        report.rows += w->plan().rows;
        report.valueBytes += w->bytes();
        report.raggedKeys += w->plan().ragged ? 1 : 0;
    }
    return Status::ok();
}

} // namespace

Result<Hdf5ExportReport> exportHdf5(const xdl::RunReader& run, const std::string& outPath,
                                    const Hdf5ExportOptions& options, Diagnostics& diag,
                                    const ProgressCallback& progress) {
    ExportScope scope{options, std::nullopt, options.backend, diag, progress};
    if (!options.keyRegex.empty()) {
        try {
            scope.filter.emplace(options.keyRegex, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            return Status(ErrorCode::InvalidArgument,
                          "bad key pattern '" + options.keyRegex + "': " + e.what());
        }
    }

    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); // errors become Status values, not stderr noise
    std::string tmp = temporaryPathFor(outPath);
    Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) return Status(ErrorCode::IoError, "cannot create HDF5 file " + tmp);
    // On failure the file is closed and removed. Where its descriptor is known, HDF5's last
    // writes go to an anonymous memory file instead: a full disk would fail them, and HDF5 1.10
    // leaves a file whose close failed half freed (the process crashed at exit).
    struct DiscardOnFailure {
        const std::string& path;
        Handle& file;
        const int& fd;
        bool keep = false;
        ~DiscardOnFailure() {
            if (keep) return;
            if (fd >= 0) {
                UniqueFd memory(::memfd_create("xtview-discarded-export", MFD_CLOEXEC));
                if (memory.get() >= 0) ::dup3(memory.get(), fd, O_CLOEXEC);
            }
            file.reset();
            std::remove(path.c_str());
        }
    } cleanup{tmp, file, scope.fd};

    // The default (sec2) driver writes the file through a descriptor, at the addresses HDF5
    // gives (no user block).
    Handle fapl(H5Fget_access_plist(file.get()), H5Pclose);
    void* vfd = nullptr;
    if (H5Pget_driver(fapl.get()) == H5FD_SEC2 &&
        H5Fget_vfd_handle(file.get(), fapl.get(), &vfd) >= 0 && vfd)
        scope.fd = *static_cast<int*>(vfd);

    Handle root(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose);
    XT_RETURN_IF_ERROR(writeStringAttr(root.get(), "producer", "xtview"));
    XT_RETURN_IF_ERROR(writeIntAttr(root.get(), "layout_version", 1));
    XT_RETURN_IF_ERROR(writeStringAttr(root.get(), "run", run.files().label()));
    std::vector<std::string> sources;
    for (const auto& r : run.ranks())
        for (const auto& p : r.parts())
            sources.push_back(p->part().displayPath());
    XT_RETURN_IF_ERROR(writeStringListAttr(root.get(), "sources", sources));

    std::unique_ptr<analysis::Backend> ownBackend;
    if (!scope.backend) {
        ownBackend = analysis::selectBackend(analysis::BackendChoice::Cpu).backend;
        scope.backend = ownBackend.get();
    }

    Hdf5ExportReport report;
    for (const auto& r : run.ranks())
        scope.total += 2 * r.recordCount();
    for (const auto& rank : run.ranks())
        XT_RETURN_IF_ERROR(exportRank(file.get(), rank, scope, report));
    root.reset();
    if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) return h5Error("flush " + tmp);
    file.reset();
    XT_RETURN_IF_ERROR(commitTemporary(tmp, outPath));
    cleanup.keep = true;
    reportProgress(progress, scope.total, scope.total, "exporting");
    return report;
}

} // namespace xt
