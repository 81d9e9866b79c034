#include "widgets/histogram_view.h"

#include "core/analysis/key_stats.h"
#include "widgets/app_backend.h"
#include "widgets/axis_ticks.h"
#include "widgets/plot_palette.h"
#include "widgets/plot_widget.h"
#include "widgets/text_format.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace xt::widgets {

namespace {

// Wider than any screen (as the ranks heatmap's); a longer run merges neighbouring steps. The
// matrix and its cells cost ~1.5 KB a column at 64 bins: a live run's heatmap stops growing here.
constexpr std::int64_t kMaxColumns = 4000;

// The row of the last record at or before `step` (the first row before the first record).
std::size_t rowAt(const std::vector<std::int64_t>& steps, std::int64_t step) {
    const auto it = std::upper_bound(steps.begin(), steps.end(), step);
    return it == steps.begin() ? 0 : std::size_t(it - steps.begin()) - 1;
}

// The heatmap's cells for a matrix with steps: columns of one gstep each over [s0, s1 + 1), or
// kMaxColumns of several over a longer span. A record's colour reaches from its step to the
// rank's next record (the last one covers its own step), so a rank that records every k-th step
// draws no empty stripes; records sharing a column show their mean (a row that merges several
// gsteps counts as their mean too). Built with the matrix, off the GUI thread; its range is
// that of the cells' centres.
std::unique_ptr<QCPColorMapData> heatmapCells(const analysis::HistogramMatrix& m) {
    const auto& steps = m.steps;
    const auto& layout = m.layout;
    const std::int64_t s0 = steps.front(), s1 = steps.back();
    const int nx = int(std::min<std::int64_t>(s1 - s0 + 1, kMaxColumns));
    const double columnWidth = double(s1 + 1 - s0) / nx;
    const auto columnOf = [&](std::int64_t step) {
        return std::min(nx - 1, int(double(step - s0) / columnWidth));
    };
    const int ny = layout.bins;
    const double t0 = layout.transform(layout.lo), t1 = layout.transform(layout.hi);
    const double w = (t1 - t0) / ny;
    const double c0 = double(s0) + columnWidth / 2, c1 = double(s1 + 1) - columnWidth / 2;
    auto cells =
        std::make_unique<QCPColorMapData>(nx, ny, QCPRange(c0, nx == 1 ? c0 + 1 : c1),
                                          QCPRange(t0 + w / 2, t1 - w / 2 + (ny == 1 ? w : 0)));
    cells->fill(std::nan(""));
    std::vector<double> sum(std::size_t(ny), 0.0);
    for (std::size_t first = 0, end = 0; first < steps.size(); first = end) {
        const int column = columnOf(steps[first]);
        std::fill(sum.begin(), sum.end(), 0.0);
        for (end = first; end < steps.size() && columnOf(steps[end]) == column; ++end)
            for (int b = 0; b < ny; ++b)
                sum[std::size_t(b)] +=
                    double(m.rows[end].counts[std::size_t(b)]) / m.stepCounts[end];
        const int next = end < steps.size() ? columnOf(steps[end]) : column + 1;
        const auto& last = m.rows[end - 1].counts;
        const double lastSteps = m.stepCounts[end - 1];
        for (int b = 0; b < ny; ++b) {
            cells->setCell(column, b, std::log10(1.0 + sum[std::size_t(b)] / double(end - first)));
            for (int x = column + 1; x < next; ++x)
                cells->setCell(x, b, std::log10(1.0 + double(last[std::size_t(b)]) / lastSteps));
        }
    }
    cells->recalculateDataBounds();
    return cells;
}

struct HistogramJobResult {
    std::shared_ptr<const analysis::HistogramMatrix> matrix;
    // When the matrix has steps: handed over to the colour map, which then owns them.
    std::shared_ptr<std::unique_ptr<QCPColorMapData>> cells;
    QString error;
};

HistogramJobResult withCells(Result<analysis::HistogramMatrix> m) {
    HistogramJobResult out;
    if (m.isOk()) {
        out.matrix = std::make_shared<const analysis::HistogramMatrix>(std::move(m.value()));
        if (!out.matrix->steps.empty())
            out.cells =
                std::make_shared<std::unique_ptr<QCPColorMapData>>(heatmapCells(*out.matrix));
    } else if (m.status().code() != ErrorCode::NotFound)
        out.error = QString::fromStdString(m.status().toString());
    return out;
}

// The exact matrix of `key` of `rank` over `steps`, with its cells; off the GUI thread.
HistogramJobResult exactMatrix(const RunSnapshot& run, const std::string& key, int rank,
                               const analysis::HistogramOptions& options,
                               const analysis::StepRange& steps, JobContext& ctx) {
    const auto* reader = run->reader->rank(rank);
    if (!reader) return {};
    analysis::KeyStatsOptions work;
    work.rank = rank;
    auto backend = appBackend().get(analysis::estimateWorkBytes(*run->reader, work));
    Diagnostics diag;
    // The key's statistics give the range: no pass over its tensors for it.
    const analysis::RecordSeries* series = nullptr;
    if (run->partialKey != key)
        for (const auto* s : run->seriesOf(key))
            if (s->rank == rank) series = &s->records;
    return withCells(analysis::stepHistograms(*reader, key, *backend, options, steps, diag,
                                              ctx.callback(), run->summaries.get(), series));
}

// x (a whole number) as a step, saturated to the int64 range.
std::int64_t stepOf(double x) {
    constexpr double kLimit = 9.2e18;
    if (x >= kLimit) return std::numeric_limits<std::int64_t>::max();
    if (x <= -kLimit) return std::numeric_limits<std::int64_t>::min();
    return std::int64_t(x);
}

// The gsteps with records in the rows of `m` (a row may merge several).
std::uint64_t stepCount(const analysis::HistogramMatrix& m) {
    std::uint64_t n = 0;
    for (const std::uint32_t c : m.stepCounts)
        n += c;
    return n;
}

bool sameBins(const analysis::BinLayout& a, const analysis::BinLayout& b) {
    return a.bins == b.bins && a.lo == b.lo && a.hi == b.hi && a.scale == b.scale &&
           a.linthresh == b.linthresh;
}
} // namespace

HistogramView::HistogramView(QWidget* parent)
    : QWidget(parent), m_jobs(new JobTracker(this)), m_detailJobs(new JobTracker(this)),
      m_rank(new QComboBox(this)), m_bins(new QSpinBox(this)), m_scale(new QComboBox(this)),
      m_info(new QLabel(this)), m_heatmap(new PlotWidget(this)), m_stepPlot(new PlotWidget(this)) {
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(new QLabel(tr("Histograms of rank"), this));
    bar->addWidget(m_rank);
    bar->addWidget(new QLabel(tr("bins"), this));
    m_bins->setRange(4, 1024);
    m_bins->setValue(64);
    bar->addWidget(m_bins);
    m_scale->addItem(tr("linear bins"));
    m_scale->addItem(tr("symlog bins"));
    bar->addWidget(m_scale);
    // The summary may be long (an approximate range, NaN counts): it gives way to the plots
    // instead of widening the tab, and its tooltip holds all of it.
    m_info->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_info, 1);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_heatmap);
    split->addWidget(m_stepPlot);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    m_map = new QCPColorMap(m_heatmap->xAxis, m_heatmap->yAxis);
    adaptTicks(m_heatmap);
    adaptTicks(m_stepPlot);
    m_colorScale = new QCPColorScale(m_heatmap);
    m_heatmap->plotLayout()->addElement(0, 1, m_colorScale);
    m_colorScale->setType(QCPAxis::atRight);
    m_colorScale->axis()->setLabel(tr("log10(1 + count)"));
    m_map->setColorScale(m_colorScale);
    QCPColorGradient gradient(QCPColorGradient::gpThermal);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    m_map->setGradient(gradient);
    m_map->setInterpolate(false);
    m_detailMap = new QCPColorMap(m_heatmap->xAxis, m_heatmap->yAxis);
    m_detailMap->setColorScale(m_colorScale); // the same colours for the same counts
    m_detailMap->setGradient(gradient);
    m_detailMap->setInterpolate(false);
    auto* group = new QCPMarginGroup(m_heatmap);
    m_heatmap->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_colorScale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_heatmap->xAxis->setLabel(tr("global step"));
    m_heatmap->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_cursor = new QCPItemStraightLine(m_heatmap);
    m_cursor->setPen(QPen(QColor(0xff, 0x8c, 0x00), 1.5));
    m_cursor->setVisible(false);

    m_bars = new QCPBars(m_stepPlot->xAxis, m_stepPlot->yAxis);
    m_bars->setPen(Qt::NoPen);
    m_bars->setBrush(QColor(0x1f, 0x77, 0xb4));
    m_bars->setWidthType(QCPBars::wtPlotCoords);
    m_stepPlot->yAxis->setLabel(tr("count"));
    m_stepPlot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    m_liveTimer.setSingleShot(true);
    m_liveTimer.setInterval(1000);
    connect(&m_liveTimer, &QTimer::timeout, this, [this] {
        if (m_jobs->isRunning())
            m_liveTimer.start(); // the previous matrix first
        else if (m_run && m_rank->count() > 0)
            startMatrixJob(false);
    });
    m_detailTimer.setSingleShot(true);
    m_detailTimer.setInterval(250);
    connect(&m_detailTimer, &QTimer::timeout, this, &HistogramView::updateDetail);
    connect(m_heatmap->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& r) {
                if (m_settingRange || !m_matrix || m_matrix->steps.empty()) return;
                m_zoomed = r.lower > double(m_matrix->steps.front()) ||
                           r.upper < double(m_matrix->steps.back()) + 1; // as showMatrix shows
                m_detailTimer.start();
            });
    connect(m_rank, &QComboBox::activated, this, &HistogramView::recompute);
    connect(m_bins, &QSpinBox::editingFinished, this, &HistogramView::recompute);
    connect(m_scale, &QComboBox::activated, this, &HistogramView::recompute);
    connect(m_heatmap, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* e) {
        if (!m_matrix || m_matrix->steps.empty()) return;
        const std::int64_t x =
            stepOf(std::floor(m_heatmap->xAxis->pixelToCoord(e->position().x())));
        const auto& s = matrixAt(x)->steps;
        const std::int64_t step = s[rowAt(s, x)]; // the column's record
        setStepCursor(step);
        emit stepSelected(step);
    });
    applyPalette();
}

void HistogramView::setData(RunSnapshot run, const QString& key) {
    m_run = std::move(run);
    m_key = key;
    const int previous = rank();
    m_rank->clear();
    if (m_run)
        for (const auto* s : m_run->seriesOf(key.toStdString()))
            m_rank->addItem(QString::number(s->rank), s->rank);
    const int keep = m_rank->findData(previous);
    if (keep >= 0) m_rank->setCurrentIndex(keep);
    drawNotes();
    recompute();
}

void HistogramView::extendRun(RunSnapshot run) {
    m_run = std::move(run);
    const bool hadRanks = m_rank->count() > 0;
    for (const auto* s : m_run->seriesOf(m_key.toStdString()))
        if (m_rank->findData(s->rank) < 0) m_rank->addItem(QString::number(s->rank), s->rank);
    if (!hadRanks) {
        recompute(); // the key had no data before
        return;
    }
    if (!m_liveTimer.isActive()) m_liveTimer.start();
}

void HistogramView::replaceRun(RunSnapshot run) {
    const bool waited = m_run && m_run->overview;
    m_run = std::move(run);
    if (waited) setData(m_run, m_key);
}

void HistogramView::setRank(int rank) {
    const int i = m_rank->findData(rank);
    if (i < 0 || i == m_rank->currentIndex()) return;
    m_rank->setCurrentIndex(i);
    recompute();
}

void HistogramView::setNotes(std::vector<Note> notes) {
    m_notes = std::move(notes);
    drawNotes();
    m_heatmap->replot(QCustomPlot::rpQueuedReplot);
}

void HistogramView::drawNotes() {
    removeItems(m_heatmap, m_noteItems);
    const auto series =
        m_run ? m_run->seriesOf(m_key.toStdString()) : std::vector<const analysis::KeySeries*>{};
    for (const Note& n : m_notes)
        if (const auto steps = noteSteps(n, series))
            addNoteItems(m_heatmap, m_heatmap->axisRect(), double(steps->first),
                         double(steps->second + (steps->second > steps->first ? 1 : 0)), n,
                         m_noteItems, false);
}

int HistogramView::rank() const {
    return m_rank->currentData().isValid() ? m_rank->currentData().toInt() : -1;
}

void HistogramView::recompute() {
    m_matrix.reset();
    clearDetail();
    m_zoomed = false;
    m_approximate = false;
    m_map->data()->clear();
    m_bars->data()->clear();
    if (!m_run || m_rank->count() == 0) {
        m_info->setText(m_run ? tr("no data for this key") : QString());
        m_jobs->cancel();
        m_heatmap->replot(QCustomPlot::rpQueuedReplot);
        m_stepPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    if (m_run->overview) { // its tensor bytes are read once its records are checked
        m_info->setText(tr("waiting for the run's summaries to be checked..."));
        m_jobs->cancel();
        m_heatmap->replot(QCustomPlot::rpQueuedReplot);
        m_stepPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_info->setText(tr("computing..."));
    startMatrixJob(m_run->summaries && m_run->summaries->size() > 0);
}

void HistogramView::startMatrixJob(bool approximate) {
    if (!approximate) m_exactClock.start();
    const int rank = m_rank->currentData().toInt();
    analysis::HistogramOptions options;
    options.bins = m_bins->value();
    options.scale =
        m_scale->currentIndex() == 1 ? analysis::BinScale::SymLog : analysis::BinScale::Linear;
    options.maxRows = kMaxColumns; // more rows than columns would only be averaged into them
    m_jobs->startJob(
        [run = m_run, key = m_key.toStdString(), rank, options, approximate](JobContext& ctx) {
            if (!approximate) return exactMatrix(run, key, rank, options, {}, ctx);
            const auto* reader = run->reader->rank(rank);
            if (!reader) return HistogramJobResult{};
            auto m = analysis::sketchStepHistograms(*reader, *run->summaries, key, options, {});
            // No sketches: the exact matrix comes next.
            return m.isOk() ? withCells(std::move(m)) : HistogramJobResult{};
        },
        [this, approximate](HistogramJobResult r) {
            if (approximate) {
                if (r.matrix) {
                    m_approximate = true;
                    showMatrix(std::move(r.matrix), r.cells ? std::move(*r.cells) : nullptr);
                }
                startMatrixJob(false);
                return;
            }
            if (!r.error.isEmpty()) {
                m_info->setText(tr("histogram failed"));
                emit failed(r.error);
            }
            m_approximate = false;
            m_liveTimer.setInterval(int(std::clamp<qint64>(4 * m_exactClock.elapsed(), 1000,
                                                           std::numeric_limits<int>::max())));
            showMatrix(std::move(r.matrix), r.cells ? std::move(*r.cells) : nullptr);
            emit finished();
        });
}

void HistogramView::showMatrix(std::shared_ptr<const analysis::HistogramMatrix> m,
                               std::unique_ptr<QCPColorMapData> cells) {
    const bool sameY = m && m_matrix && sameBins(m_matrix->layout, m->layout);
    m_matrix = std::move(m);
    if (!m_matrix || m_matrix->steps.empty() || !cells) {
        if (!m_matrix) m_info->setText(tr("no finite data"));
        m_heatmap->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const auto& steps = m_matrix->steps;
    const auto& layout = m_matrix->layout;
    const std::int64_t s0 = steps.front(), s1 = steps.back();
    const double t0 = layout.transform(layout.lo), t1 = layout.transform(layout.hi);
    m_map->setData(cells.release(), false); // the cells built with the matrix, not a copy
    m_map->rescaleDataRange(false);
    if ((m_detail && !sameBins(m_detail->layout, layout)) ||
        (m_detailRange.first && !sameBins(m_detailBins, layout)))
        clearDetail(); // shown or asked for in other bins
    // Whole cells: rescaleAxes() would stop at the outer cells' centres. A live run's new
    // matrix keeps the steps the user zoomed to (and their values, in the same bins), and their
    // detail is brought up to date.
    m_settingRange = true;
    if (!m_zoomed) m_heatmap->xAxis->setRange(double(s0), double(s1) + 1);
    if (!m_zoomed || !sameY) m_heatmap->yAxis->setRange(t0, t1);
    m_settingRange = false;
    if (m_zoomed) m_detailTimer.start();
    m_heatmap->yAxis->setLabel(
        layout.scale == analysis::BinScale::SymLog ? tr("%1 (symlog)").arg(m_key) : m_key);
    const auto& total = m_matrix->total;
    const std::uint64_t stepTotal = stepCount(*m_matrix);
    m_summary =
        tr("%1 steps%2, %3 bins over [%4, %5]%6")
            .arg(stepTotal)
            .arg(stepTotal > steps.size() ? tr(" in %1 columns").arg(steps.size()) : QString())
            .arg(layout.bins)
            .arg(formatValue(layout.lo), formatValue(layout.hi))
            .arg(total.nan + total.posInf + total.negInf ? tr(", %1 NaN, %2 Inf not binned")
                                                               .arg(total.nan)
                                                               .arg(total.posInf + total.negInf)
                                                         : QString()) +
        (m_approximate ? tr(" - approximate (from summaries), exact one coming") : QString());
    showInfo();
    m_heatmap->replot(QCustomPlot::rpQueuedReplot); // colouring the cells: an event of its own
    showStep();
}

void HistogramView::showInfo() {
    QString text = m_summary;
    if (m_detail && !m_detail->steps.empty())
        text += tr(" - gsteps %1-%2 in detail (%3 steps in %4 columns)")
                    .arg(m_detail->steps.front())
                    .arg(m_detail->lastSteps.back())
                    .arg(stepCount(*m_detail))
                    .arg(m_detail->steps.size());
    m_info->setText(text);
    m_info->setToolTip(text);
}

const analysis::HistogramMatrix* HistogramView::matrixAt(std::int64_t step) const {
    if (m_detail && !m_detail->steps.empty() && step >= m_detail->steps.front() &&
        step <= m_detail->lastSteps.back())
        return m_detail.get();
    return m_matrix.get();
}

void HistogramView::clearDetail() {
    m_detailJobs->cancel();
    m_detailTimer.stop();
    m_detailRange = {};
    m_detailPer = 0;
    if (!m_detail) return;
    m_detail.reset();
    m_detailMap->data()->clear();
    m_heatmap->replot(QCustomPlot::rpQueuedReplot);
    showInfo();
    showStep();
}

void HistogramView::updateDetail() {
    if (!m_run || !m_matrix || m_matrix->steps.empty() || m_approximate) return;
    const analysis::HistogramMatrix& m = *m_matrix;
    const std::int64_t s0 = m.steps.front(), sEnd = m.lastSteps.back();
    const QCPRange view = m_heatmap->xAxis->range();
    const std::int64_t first = std::clamp(stepOf(std::floor(view.lower)), s0, sEnd);
    const std::int64_t last = std::clamp(stepOf(std::ceil(view.upper) - 1), s0, sEnd);
    if (last < first) {
        clearDetail();
        return;
    }
    // Half the view more on each side, within the matrix's steps (differences taken unsigned:
    // they may not fit an int64).
    const std::uint64_t half = (std::uint64_t(last) - std::uint64_t(first)) / 2 + 1;
    const analysis::StepRange range{
        std::int64_t(std::uint64_t(first) -
                     std::min(half, std::uint64_t(first) - std::uint64_t(s0))),
        std::int64_t(std::uint64_t(last) +
                     std::min(half, std::uint64_t(sEnd) - std::uint64_t(last)))};
    // The steps of the matrix's rows in that range, and the most a row merges there: a detail
    // is worth its pass when it would merge fewer a column.
    std::uint64_t steps = 0;
    std::uint32_t merged = 1;
    for (std::size_t r = rowAt(m.steps, *range.first); r < m.steps.size(); ++r) {
        if (m.steps[r] > *range.last) break;
        steps += m.stepCounts[r];
        merged = std::max(merged, m.stepCounts[r]);
    }
    const std::uint64_t per = (steps + kMaxColumns - 1) / kMaxColumns;
    if (per >= merged) {
        clearDetail();
        return;
    }
    // (The range asked for ends at most at the matrix's last step then: steps recorded since
    // fall outside it.)
    if (m_detailRange.first && m_detailRange.contains(first) && m_detailRange.contains(last) &&
        m_detailPer <= per)
        return; // shown, or on its way, as fine as this one would be
    m_detailRange = range;
    m_detailPer = per;
    m_detailBins = m.layout;
    analysis::HistogramOptions options;
    options.bins = m.layout.bins;
    options.scale = m.layout.scale;
    options.linthresh = m.layout.linthresh;
    options.lo = m.layout.lo;
    options.hi = m.layout.hi;
    options.maxRows = kMaxColumns;
    m_detailJobs->startJob(
        [run = m_run, key = m_key.toStdString(), rank = rank(), options, range = m_detailRange](
            JobContext& ctx) { return exactMatrix(run, key, rank, options, range, ctx); },
        [this](HistogramJobResult r) {
            if (!r.error.isEmpty()) emit failed(r.error);
            if (!m_matrix || !r.matrix || !r.cells ||
                !sameBins(m_matrix->layout, r.matrix->layout)) {
                m_detailRange = {}; // asked for again at the next change of the view
                return;
            }
            m_detail = std::move(r.matrix);
            m_detailMap->setData(r.cells->release(), false);
            m_heatmap->replot(QCustomPlot::rpQueuedReplot);
            showInfo();
            showStep();
        });
}

void HistogramView::setStepCursor(std::int64_t gstep) {
    m_cursorStep = gstep;
    m_cursor->point1->setCoords(double(gstep), 0);
    m_cursor->point2->setCoords(double(gstep), 1);
    m_cursor->setVisible(true);
    m_heatmap->replot(QCustomPlot::rpQueuedReplot);
    showStep();
}

void HistogramView::showStep() {
    m_bars->data()->clear();
    if (!m_matrix || m_matrix->steps.empty()) {
        m_stepPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const analysis::HistogramMatrix& m = m_cursorStep ? *matrixAt(*m_cursorStep) : *m_matrix;
    const auto& steps = m.steps;
    const std::size_t row = m_cursorStep ? rowAt(steps, *m_cursorStep) : steps.size() - 1;
    const auto& layout = m.layout;
    const double t0 = layout.transform(layout.lo), t1 = layout.transform(layout.hi);
    const double w = (t1 - t0) / layout.bins;
    QVector<double> keys, values;
    for (int b = 0; b < layout.bins; ++b) {
        keys << t0 + (b + 0.5) * w;
        values << double(m.rows[row].counts[std::size_t(b)]);
    }
    m_bars->setWidth(w);
    m_bars->setData(keys, values, true);
    // A row that merges gsteps shows their sum: the axis names the first and last.
    const bool merged = m.stepCounts[row] > 1;
    const QString label = merged ? tr("gsteps %1-%2").arg(steps[row]).arg(m.lastSteps[row])
                                 : tr("gstep %1").arg(steps[row]);
    m_bars->setName(merged ? tr("%1 (%2 steps)").arg(label).arg(m.stepCounts[row]) : label);
    m_stepPlot->xAxis->setLabel(label);
    m_stepPlot->rescaleAxes();
    m_stepPlot->yAxis->setRangeLower(0);
    m_stepPlot->replot(QCustomPlot::rpQueuedReplot);
}

void HistogramView::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange)
        applyPalette();
    QWidget::changeEvent(e);
}

void HistogramView::applyPalette() {
    applyPlotPalette(m_heatmap, palette());
    applyPlotPalette(m_stepPlot, palette());
    applyAxisPalette(m_colorScale->axis(), palette());
}

} // namespace xt::widgets
