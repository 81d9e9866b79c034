#include "core/summary/overview.h"

#include <algorithm>
#include <limits>

namespace xt::summary {

namespace {

constexpr std::uint64_t kBlockBytes = 64, kTotalsBytes = 72, kCellBytes = 8 + 16 * kOverviewFields;
constexpr std::uint64_t kFixedBytes = 24;

} // namespace

std::uint64_t Overview::encodedBytes(std::uint64_t records, std::size_t columns) {
    const std::uint64_t blocks = blocksFor(records);
    return kFixedBytes + blocks * kBlockBytes + columns * (kTotalsBytes + blocks * kCellBytes);
}

OverviewBuilder::OverviewBuilder(std::uint64_t records, std::size_t columns) {
    m_o.records = records;
    m_o.blocks.resize(Overview::blocksFor(records));
    m_o.totals.resize(columns);
    OverviewCell empty;
    empty.lo.fill(std::numeric_limits<double>::infinity());
    empty.hi.fill(-std::numeric_limits<double>::infinity());
    m_o.cells.assign(columns * m_o.blocks.size(), empty);
}

void OverviewBuilder::addRecord(std::uint64_t record, const xdl::RecordEntry& e) {
    OverviewBlock& b = m_o.blocks[record / kOverviewBlock];
    if (record % kOverviewBlock == 0) {
        b = {e.gstep, e.gstep, e.gstep, e.gstep, e.lstep, e.lstep, e.timestamp, e.timestamp};
        return;
    }
    b.g0 = std::min(b.g0, e.gstep), b.g1 = std::max(b.g1, e.gstep);
    b.l0 = std::min(b.l0, e.lstep), b.l1 = std::max(b.l1, e.lstep);
    b.t0 = std::min(b.t0, e.timestamp), b.t1 = std::max(b.t1, e.timestamp);
    b.gLast = e.gstep;
}

void OverviewBuilder::add(std::uint64_t record, std::size_t column, const ColumnSummary& c,
                          std::span<const xdl::Shape> shapes) {
    if (column >= m_o.totals.size()) return; // not counted by the summary's totals either
    m_o.totals[column].add(c, record, shapes);
    if (c.state != ColumnState::Data) return;
    OverviewCell& cell = m_o.cells[column * m_o.blocks.size() + record / kOverviewBlock];
    const auto& st = c.stats;
    ++cell.data;
    cell.nonFinite += st.nan || st.inf;
    const double v[kOverviewFields] = {double(st.count),
                                       double(st.nan),
                                       double(st.inf),
                                       double(st.zeros),
                                       double(st.count - st.nan - st.inf),
                                       st.min,
                                       st.max,
                                       st.mean,
                                       st.std,
                                       st.l2};
    const bool finite = st.count > st.nan + st.inf;
    for (std::size_t f = 0; f < (finite ? kOverviewFields : 5); ++f) {
        cell.lo[f] = std::min(cell.lo[f], v[f]);
        cell.hi[f] = std::max(cell.hi[f], v[f]);
    }
}

Overview OverviewBuilder::finish() {
    return std::move(m_o);
}

} // namespace xt::summary
