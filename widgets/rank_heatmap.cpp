#include "widgets/rank_heatmap.h"

#include "widgets/axis_ticks.h"
#include "widgets/plot_widget.h"
#include "widgets/stat_plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace xt::widgets {

namespace {

constexpr double kMaxScore = 10; // robust z beyond this is drawn as this

const analysis::StatField kFields[] = {analysis::StatField::Mean, analysis::StatField::Std,
                                       analysis::StatField::Min,  analysis::StatField::Max,
                                       analysis::StatField::L2,   analysis::StatField::Nan,
                                       analysis::StatField::Inf,  analysis::StatField::Zeros};

} // namespace

RankStepHeatmap::RankStepHeatmap(QWidget* parent)
    : QWidget(parent), m_jobs(new JobTracker(this)), m_fieldBox(new QComboBox(this)),
      m_modeBox(new QComboBox(this)), m_info(new QLabel(this)), m_plot(new PlotWidget(this)) {
    for (auto f : kFields)
        m_fieldBox->addItem(QString::fromUtf8(analysis::statFieldName(f)), int(f));
    m_modeBox->addItem(tr("value"));
    m_modeBox->addItem(tr("robust z vs. median of ranks"));
    m_modeBox->setToolTip(tr("(x - median) / (1.4826 MAD) at each step: a rank that stalls or "
                             "diverges from the others stands out"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(new QLabel(tr("Ranks x steps of"), this));
    bar->addWidget(m_fieldBox);
    bar->addWidget(m_modeBox);
    bar->addWidget(m_info, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);

    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    adaptTicks(m_plot);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    m_map->setInterpolate(false);
    auto* group = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_plot->xAxis->setLabel(tr("global step"));
    m_plot->yAxis->setLabel(tr("rank"));
    m_plot->yAxis->setRangeReversed(true); // rank 0 on top
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_cursor = new QCPItemStraightLine(m_plot);
    m_cursor->setPen(QPen(QColor(0xff, 0x8c, 0x00), 1.5));
    m_cursor->setVisible(false);

    connect(m_fieldBox, &QComboBox::activated, this,
            [this] { setField(analysis::StatField(m_fieldBox->currentData().toInt())); });
    connect(m_modeBox, &QComboBox::activated, this,
            [this] { setDeviation(m_modeBox->currentIndex() == 1); });
    connect(m_plot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { m_pressPos = e->position().toPoint(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        // A click (not a drag, which pans) opens the cell's rank and step.
        if (e->button() != Qt::LeftButton ||
            (e->position().toPoint() - m_pressPos).manhattanLength() > 3)
            return;
        if (const auto cell = cellAt(e->position())) emit cellActivated(cell->first, cell->second);
    });
    applyPalette();
}

void RankStepHeatmap::setData(RunSnapshot run, const QString& key) {
    m_run = std::move(run);
    m_key = key;
    invalidate();
}

void RankStepHeatmap::setField(analysis::StatField field) {
    m_field = field;
    m_fieldBox->setCurrentIndex(m_fieldBox->findData(int(field)));
    invalidate();
}

void RankStepHeatmap::setDeviation(bool on) {
    m_deviation = on;
    m_modeBox->setCurrentIndex(on ? 1 : 0);
    invalidate();
}

void RankStepHeatmap::invalidate() {
    // A pass over every record of every rank: done when the heatmap is on screen (its tab is
    // often not), or when a cell is asked for.
    m_stale = true;
    m_jobs->cancel(); // a grid being built is of the data before
    if (isVisible()) ensureBuilt();
}

void RankStepHeatmap::ensureBuilt() {
    if (!m_stale) return;
    m_stale = false;
    rebuild();
}

void RankStepHeatmap::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    ensureBuilt();
}

void RankStepHeatmap::rebuild() {
    m_series =
        m_run ? m_run->seriesOf(m_key.toStdString()) : std::vector<const analysis::KeySeries*>{};
    std::size_t records = 0;
    for (const auto* s : m_series)
        records += s->records.size();
    if (records < StatPlot::kBackgroundBuildRecords) {
        m_jobs->cancel();
        applyGrid(computeGrid(m_series, m_field, m_deviation));
        return;
    }
    m_map->data()->clear(); // not the last key's grid meanwhile
    m_columns = m_rows = 0;
    m_info->setText(tr("building the grid of %1 records...").arg(records));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    // The snapshot keeps the series alive while the job reads them.
    m_jobs->startJob([run = m_run, series = m_series, field = m_field, deviation = m_deviation](
                         JobContext&) { return computeGrid(series, field, deviation); },
                     [this](Grid g) { applyGrid(g); });
}

RankStepHeatmap::Grid
RankStepHeatmap::computeGrid(const std::vector<const analysis::KeySeries*>& series,
                             analysis::StatField field, bool deviation) {
    Grid g;
    bool any = false;
    for (const auto* s : series)
        for (const auto& r : s->records) {
            g.s0 = any ? std::min(g.s0, r.gstep) : r.gstep;
            g.s1 = any ? std::max(g.s1, r.gstep) : r.gstep;
            g.r0 = any ? std::min(g.r0, s->rank) : s->rank;
            g.r1 = any ? std::max(g.r1, s->rank) : s->rank;
            any = true;
        }
    if (!any) return g;
    const std::int64_t s0 = g.s0;
    const int rows = g.r1 - g.r0 + 1;
    g.columns = int(std::min<std::int64_t>(g.s1 - s0 + 1, kMaxColumns));
    g.columnWidth = double(g.s1 + 1 - s0) / g.columns;
    const auto columnOf = [&](std::int64_t step) {
        return std::min(g.columns - 1, int(double(step - s0) / g.columnWidth));
    };
    const analysis::RankSpread spread =
        deviation ? analysis::rankSpread(series, field) : analysis::RankSpread{};
    auto valueOf = [&](const analysis::RecordStats& r) -> double {
        const auto v = analysis::statValue(r.stats, field);
        if (!v) return std::nan("");
        if (!deviation) return *v;
        const auto it = std::lower_bound(
            spread.steps.begin(), spread.steps.end(), r.gstep,
            [](const analysis::RankSpreadStep& s, std::int64_t step) { return s.gstep < step; });
        if (it == spread.steps.end() || it->gstep != r.gstep || it->ranks < 3) return std::nan("");
        return std::clamp(analysis::robustScore(*v, *it), -kMaxScore, kMaxScore);
    };
    g.cells.assign(std::size_t(g.columns) * std::size_t(rows), std::nan(""));
    std::vector<double> sum(static_cast<std::size_t>(g.columns)),
        count(static_cast<std::size_t>(g.columns));
    for (const auto* s : series) {
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(count.begin(), count.end(), 0.0);
        std::vector<int> columns; // columns holding a record, ascending
        for (const auto& r : s->records) {
            const double v = valueOf(r);
            const int c = columnOf(r.gstep);
            if (columns.empty() || columns.back() != c) columns.push_back(c);
            if (std::isnan(v)) continue;
            sum[std::size_t(c)] += v;
            count[std::size_t(c)] += 1;
        }
        std::sort(columns.begin(), columns.end());
        columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
        const std::size_t row = std::size_t(s->rank - g.r0);
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const int c = columns[i];
            if (count[std::size_t(c)] == 0) continue;
            const double v = sum[std::size_t(c)] / count[std::size_t(c)];
            g.lo = g.anyValue ? std::min(g.lo, v) : v;
            g.hi = g.anyValue ? std::max(g.hi, v) : v;
            g.extreme = std::max(g.extreme, std::abs(v));
            g.anyValue = true;
            // Up to the rank's next record.
            const int next = i + 1 < columns.size() ? columns[i + 1] : c + 1;
            for (int x = c; x < next; ++x)
                g.cells[row * std::size_t(g.columns) + std::size_t(x)] = v;
        }
    }
    return g;
}

void RankStepHeatmap::applyGrid(const Grid& g) {
    m_map->data()->clear();
    m_columns = g.columns;
    m_rows = g.columns ? g.r1 - g.r0 + 1 : 0;
    if (!m_columns) {
        m_info->setText(m_run ? tr("no data for this key") : QString());
        drawNotes();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_s0 = g.s0;
    m_minRank = g.r0;
    m_columnWidth = g.columnWidth;
    auto* data = m_map->data();
    data->setSize(m_columns, m_rows);
    const double c0 = double(g.s0) + m_columnWidth / 2, c1 = double(g.s1 + 1) - m_columnWidth / 2;
    data->setRange(QCPRange(c0, m_columns == 1 ? c0 + 1 : c1),
                   QCPRange(g.r0, m_rows == 1 ? g.r0 + 1 : g.r1));
    for (int row = 0; row < m_rows; ++row)
        for (int x = 0; x < m_columns; ++x)
            data->setCell(x, row,
                          g.cells[std::size_t(row) * std::size_t(m_columns) + std::size_t(x)]);
    if (m_deviation) {
        // Blue below the median, white at it, red above.
        QCPColorGradient polar;
        polar.clearColorStops();
        polar.setColorStopAt(0, QColor(0x21, 0x66, 0xac));
        polar.setColorStopAt(0.5, QColor(0xf7, 0xf7, 0xf7));
        polar.setColorStopAt(1, QColor(0xb2, 0x18, 0x2b));
        m_map->setGradient(polar);
        const double range = std::clamp(g.extreme, 3.5, kMaxScore);
        m_map->setDataRange(QCPRange(-range, range));
        m_scale->axis()->setLabel(tr("robust z of %1").arg(analysis::statFieldName(m_field)));
    } else {
        m_map->setGradient(QCPColorGradient(QCPColorGradient::gpThermal));
        m_map->setDataRange(g.anyValue && g.hi > g.lo ? QCPRange(g.lo, g.hi)
                                                      : QCPRange(g.lo - 0.5, g.lo + 0.5));
        m_scale->axis()->setLabel(QString::fromUtf8(analysis::statFieldName(m_field)));
    }
    QCPColorGradient gradient = m_map->gradient();
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    m_map->setGradient(gradient);
    m_plot->xAxis->setRange(double(g.s0), double(g.s1 + 1));
    m_plot->yAxis->setRange(g.r0 - 0.5, g.r1 + 0.5);
    m_info->setText(tr("%1 ranks, %2 steps; click a cell to open its rank and step")
                        .arg(m_series.size())
                        .arg(g.s1 - g.s0 + 1));
    drawNotes();
    m_plot->replot(QCustomPlot::rpQueuedReplot); // not within the caller (10 ms of 1024 ranks)
}

std::optional<std::pair<int, std::int64_t>> RankStepHeatmap::cellAt(QPointF pos) const {
    if (m_rows == 0 || !m_plot->axisRect()->rect().contains(pos.toPoint())) return std::nullopt;
    const int rank = int(std::lround(m_plot->yAxis->pixelToCoord(pos.y())));
    const auto x = std::int64_t(std::floor(m_plot->xAxis->pixelToCoord(pos.x())));
    for (const auto* s : m_series) {
        if (s->rank != rank || s->records.empty()) continue;
        // The rank's record whose colour covers x: the last one at or before it.
        double hit = double(s->records.front().gstep);
        s->records.scan(analysis::RecordSeries::Field::Gstep, [&](std::size_t, double g) {
            if (g <= double(x) && g >= hit) hit = g;
            return true;
        });
        return std::make_pair(rank, std::int64_t(hit));
    }
    return std::nullopt;
}

double RankStepHeatmap::cellValue(int rank, std::int64_t gstep) {
    ensureBuilt();
    if (isBuilding() || m_rows == 0 || rank < m_minRank || rank >= m_minRank + m_rows ||
        gstep < m_s0)
        return std::nan("");
    const int c = std::min(m_columns - 1, int(double(gstep - m_s0) / m_columnWidth));
    return m_map->data()->cell(c, rank - m_minRank);
}

QPointF RankStepHeatmap::cellPosition(int rank, std::int64_t gstep) {
    ensureBuilt();
    const int c = std::min(m_columns - 1, int(double(gstep - m_s0) / m_columnWidth));
    const double x = double(m_s0) + (c + 0.5) * m_columnWidth;
    return {m_plot->xAxis->coordToPixel(x), m_plot->yAxis->coordToPixel(rank)};
}

void RankStepHeatmap::setStepCursor(std::int64_t gstep) {
    m_cursorStep = gstep;
    m_cursor->point1->setCoords(double(gstep) + 0.5, 0);
    m_cursor->point2->setCoords(double(gstep) + 0.5, 1);
    m_cursor->setVisible(true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RankStepHeatmap::setNotes(std::vector<Note> notes) {
    m_notes = std::move(notes);
    drawNotes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RankStepHeatmap::drawNotes() {
    removeItems(m_plot, m_noteItems);
    for (const Note& n : m_notes)
        if (const auto steps = noteSteps(n, m_series))
            addNoteItems(m_plot, m_plot->axisRect(), double(steps->first),
                         double(steps->second + (steps->second > steps->first ? 1 : 0)), n,
                         m_noteItems, false);
}

void RankStepHeatmap::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange)
        applyPalette();
    QWidget::changeEvent(e);
}

void RankStepHeatmap::applyPalette() {
    const QPalette p = palette();
    const QColor fg = p.color(QPalette::Text);
    m_plot->setBackground(p.brush(QPalette::Base));
    for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis, m_scale->axis()}) {
        a->setBasePen(QPen(fg));
        a->setTickPen(QPen(fg));
        a->setSubTickPen(QPen(fg));
        a->setTickLabelColor(fg);
        a->setLabelColor(fg);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace xt::widgets
