#include "widgets/compare_view.h"

#include "widgets/app_backend.h"
#include "widgets/axis_ticks.h"
#include "widgets/plot_export.h"
#include "widgets/plot_palette.h"
#include "widgets/plot_widget.h"
#include "widgets/run_browser_model.h"
#include "widgets/table_columns.h"
#include "widgets/text_format.h"

#include <QComboBox>
#include <QDoubleValidator>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace xt::widgets {

using view::decimateMinMax;
using view::visibleSlice;
using view::XYSeries;

namespace {

const QColor kColorA(0x1f, 0x77, 0xb4); // blue
const QColor kColorB(0xff, 0x7f, 0x0e); // orange
const QColor kColorDelta(0x6a, 0x3d, 0x9a);
const QColor kColorMaxAbs(0xd6, 0x27, 0x28);
const QColor kColorCursor(0x2c, 0xa0, 0x2c);
constexpr int kHistogramBins = 64;

using analysis::StatField;

struct CompareJobResult {
    std::shared_ptr<const analysis::RunDiff> diff;
    QString error;
    std::size_t diagnostics = 0;
    bool cancelled = false;
};

struct HistJobResult {
    std::shared_ptr<const std::pair<analysis::Histogram, analysis::Histogram>> hists;
    QString error;
};

QString sideText(const CompareSide& s) {
    if (!s.run) return QObject::tr("(none)");
    const QString name =
        s.name.isEmpty() ? QFileInfo(QString::fromStdString(s.run->label())).fileName() : s.name;
    return QObject::tr("%1 rank %2").arg(name).arg(s.rank);
}

QString alignLabel(analysis::StepAlign a) {
    switch (a) {
    case analysis::StepAlign::Gstep:
        return QObject::tr("global step");
    case analysis::StepAlign::Lstep:
        return QObject::tr("local step");
    case analysis::StepAlign::Relative:
        return QObject::tr("steps from each side's first gstep");
    }
    return {};
}

QCPItemStraightLine* makeCursor(QCustomPlot* plot, QCPAxisRect* rect) {
    auto* l = new QCPItemStraightLine(plot);
    l->setClipAxisRect(rect);
    l->point1->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    l->point2->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    l->setPen(QPen(kColorCursor, 1.5));
    l->setSelectable(false);
    l->setVisible(false);
    return l;
}

QCPBars* makeBars(QCPAxisRect* rect, QColor c) {
    auto* b = new QCPBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    b->setPen(Qt::NoPen);
    b->setBrush(c);
    b->setWidthType(QCPBars::wtPlotCoords);
    b->removeFromLegend();
    return b;
}

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent), m_compareJobs(new JobTracker(this)), m_histJobs(new JobTracker(this)),
      m_model(new KeyDivergenceModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)), m_sides(new QLabel(this)), m_status(new QLabel(this)),
      m_stat(new QComboBox(this)), m_align(new QComboBox(this)), m_atol(new QLineEdit(this)),
      m_rtol(new QLineEdit(this)),
      m_progress(new ProgressStrip(tr("keys 10000/10000 100%"), 160, this)),
      m_cancel(new QToolButton(this)), m_plot(new PlotWidget(this)) {
    // Tool bar: the two sides, the statistic, the alignment, the tolerance, progress.
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    m_sides->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sides->setContentsMargins(4, 2, 4, 0);
    m_sides->setWordWrap(true);
    bar->addWidget(new QLabel(tr("statistic"), this));
    for (StatField f :
         {StatField::Mean, StatField::Min, StatField::Max, StatField::Std, StatField::L2,
          StatField::Nan, StatField::Inf, StatField::Zeros, StatField::Count})
        m_stat->addItem(QString::fromUtf8(analysis::statFieldName(f)), int(f));
    bar->addWidget(m_stat);
    bar->addWidget(new QLabel(tr("align"), this));
    m_align->addItem(tr("gstep"), int(analysis::StepAlign::Gstep));
    m_align->addItem(tr("lstep"), int(analysis::StepAlign::Lstep));
    m_align->addItem(tr("relative"), int(analysis::StepAlign::Relative));
    m_align->setToolTip(tr("Align records by global step, local step, or by the step counted "
                           "from each side's first gstep"));
    bar->addWidget(m_align);
    for (QLineEdit* e : {m_atol, m_rtol}) {
        auto* v = new QDoubleValidator(0, 1e300, 30, e);
        v->setNotation(QDoubleValidator::ScientificNotation);
        e->setValidator(v);
        e->setMaximumWidth(80);
    }
    m_atol->setToolTip(tr("Absolute tolerance: close when |a - b| <= atol + rtol * |b|"));
    m_rtol->setToolTip(tr("Relative tolerance: close when |a - b| <= atol + rtol * |b|"));
    bar->addWidget(new QLabel(tr("atol"), this));
    bar->addWidget(m_atol);
    bar->addWidget(new QLabel(tr("rtol"), this));
    bar->addWidget(m_rtol);
    bar->addWidget(m_status, 1);
    m_progress->hide();
    m_cancel->setText(tr("Cancel"));
    m_cancel->hide();
    bar->addWidget(m_progress);
    bar->addWidget(m_cancel);

    // Key table, ranked by divergence (sorting by a header is possible; -1 is the ranking).
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(KeyDivergenceModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setSortingEnabled(true);
    m_table->setAlternatingRowColors(true);
    m_table->setTextElideMode(Qt::ElideMiddle); // keys keep their head and their last scope
    fitColumnsToContents(m_table, KeyDivergenceModel::KeyColumn);

    // One plot, three panels: curves, delta, and the two histograms side by side.
    m_plot->plotLayout()->clear();
    adaptTicks(m_plot);
    m_title = new QCPTextElement(m_plot, QString());
    m_curves = new QCPAxisRect(m_plot);
    m_delta = new QCPAxisRect(m_plot);
    m_histA = new QCPAxisRect(m_plot);
    m_histB = new QCPAxisRect(m_plot);
    // Their backgrounds under the grid and the notes, as QCustomPlot's own axis rect.
    for (QCPAxisRect* r : {m_curves, m_delta, m_histA, m_histB})
        r->setLayer(QStringLiteral("background"));
    auto* hists = new QCPLayoutGrid;
    // The legend in a row of its own under the title, never over the curves.
    auto* legend = new QCPLegend;
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_plot->plotLayout()->addElement(1, 0, legend);
    m_plot->plotLayout()->addElement(2, 0, m_curves);
    m_plot->plotLayout()->addElement(3, 0, m_delta);
    m_plot->plotLayout()->addElement(4, 0, hists);
    hists->addElement(0, 0, m_histA);
    hists->addElement(0, 1, m_histB);
    m_plot->plotLayout()->setRowStretchFactors({0.01, 0.01, 3, 2, 2});
    auto* margins = new QCPMarginGroup(m_plot);
    m_curves->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_delta->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_delta->axis(QCPAxis::atRight)->setVisible(true);
    m_delta->axis(QCPAxis::atRight)->setLabel(tr("max |a-b| (dashed)"));
    m_delta->axis(QCPAxis::atLeft)->setLabel(tr("B - A"));
    m_histA->axis(QCPAxis::atLeft)->setLabel(tr("count"));
    legend->setLayer(QStringLiteral("legend"));
    legend->setFont(font());
    m_plot->legend = legend;
    m_plot->setAutoAddPlottableToLegend(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    m_barsA = makeBars(m_histA, kColorA);
    m_barsB = makeBars(m_histB, kColorB);
    m_cursorCurves = makeCursor(m_plot, m_curves);
    m_cursorDelta = makeCursor(m_plot, m_delta);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_plot);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({520, 880});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_sides);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    // The step panels share their x range; the two histograms share both ranges.
    auto sync = [this](QCPAxis* from, QCPAxis* to) {
        connect(from, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
                [this, to](const QCPRange& r) {
                    if (m_syncing) return;
                    m_syncing = true;
                    to->setRange(r);
                    m_syncing = false;
                    m_plot->replot(QCustomPlot::rpQueuedReplot);
                });
    };
    sync(m_curves->axis(QCPAxis::atBottom), m_delta->axis(QCPAxis::atBottom));
    sync(m_delta->axis(QCPAxis::atBottom), m_curves->axis(QCPAxis::atBottom));
    sync(m_histA->axis(QCPAxis::atBottom), m_histB->axis(QCPAxis::atBottom));
    sync(m_histB->axis(QCPAxis::atBottom), m_histA->axis(QCPAxis::atBottom));
    sync(m_histA->axis(QCPAxis::atLeft), m_histB->axis(QCPAxis::atLeft));
    sync(m_histB->axis(QCPAxis::atLeft), m_histA->axis(QCPAxis::atLeft));
    m_decimateTimer.setSingleShot(true);
    m_decimateTimer.setInterval(30);
    connect(&m_decimateTimer, &QTimer::timeout, this, &CompareView::redecimate);
    connect(m_curves->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
            this, [this] { m_decimateTimer.start(); });
    connect(m_plot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { m_pressPos = e->position().toPoint(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, &CompareView::onPlotClick);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const QString key = current.data(KeyDivergenceModel::KeyRole).toString();
                if (key.isEmpty() || key == m_key) return;
                showKey(key);
                const QVariant jump = current.data(KeyDivergenceModel::JumpStepRole);
                if (jump.isValid()) {
                    setCursorStep(jump.toLongLong());
                    emit stepSelected(jump.toLongLong());
                }
            });
    connect(m_stat, &QComboBox::activated, this,
            [this] { setStatistic(StatField(m_stat->currentData().toInt())); });
    connect(m_align, &QComboBox::activated, this,
            [this] { setAlign(analysis::StepAlign(m_align->currentData().toInt())); });
    auto onTolerance = [this] {
        bool okA = false, okR = false;
        const double atol = m_atol->text().toDouble(&okA);
        const double rtol = m_rtol->text().toDouble(&okR);
        if (okA && okR && (atol != m_request.atol || rtol != m_request.rtol))
            setTolerance(atol, rtol);
    };
    connect(m_atol, &QLineEdit::editingFinished, this, onTolerance);
    connect(m_rtol, &QLineEdit::editingFinished, this, onTolerance);
    connect(m_cancel, &QToolButton::clicked, this, &CompareView::cancel);
    m_progressTimer.setInterval(50);
    connect(&m_progressTimer, &QTimer::timeout, this, &CompareView::updateProgress);
    connect(m_compareJobs, &JobTracker::runningChanged, this, [this](bool running) {
        m_progress->setVisible(running);
        m_cancel->setVisible(running);
        if (running)
            m_progressTimer.start();
        else
            m_progressTimer.stop();
    });
    applyPalette();
}

void CompareView::setRequest(const CompareRequest& request) {
    m_request = request;
    showNames();
    m_align->setCurrentIndex(m_align->findData(int(request.align)));
    m_atol->setText(QString::number(request.atol, 'g', 12));
    m_rtol->setText(QString::number(request.rtol, 'g', 12));
    startCompare();
}

void CompareView::setSideNames(const QString& a, const QString& b) {
    m_request.a.name = a;
    m_request.b.name = b;
    showNames();
}

void CompareView::showNames() {
    m_sides->setText(tr("<span style='color:%1'><b>A</b></span> %2 &nbsp; vs &nbsp; "
                        "<span style='color:%3'><b>B</b></span> %4")
                         .arg(kColorA.name(), sideText(m_request.a).toHtmlEscaped(), kColorB.name(),
                              sideText(m_request.b).toHtmlEscaped()));
    m_sides->setToolTip(QStringLiteral("A: %1\nB: %2")
                            .arg(m_request.a.run ? runIdentity(*m_request.a.run) : QString(),
                                 m_request.b.run ? runIdentity(*m_request.b.run) : QString()));
    const QString stat = QString::fromUtf8(analysis::statFieldName(m_field));
    for (auto& l : m_lines) {
        if (l.graph->objectName() == QLatin1String("A"))
            l.graph->setName(tr("A %1 (%2)").arg(stat, sideText(m_request.a)));
        else if (l.graph->objectName() == QLatin1String("B"))
            l.graph->setName(tr("B %1 (%2)").arg(stat, sideText(m_request.b)));
    }
    m_title->setText(m_key.isEmpty() ? title() : m_key + QLatin1Char('\n') + title());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CompareView::setAlign(analysis::StepAlign align) {
    if (align == m_request.align) return;
    m_request.align = align;
    m_align->setCurrentIndex(m_align->findData(int(align)));
    m_cursor.reset(); // a step of one alignment means nothing in another
    startCompare();
}

void CompareView::setTolerance(double atol, double rtol) {
    m_request.atol = atol;
    m_request.rtol = rtol;
    m_atol->setText(QString::number(atol, 'g', 12));
    m_rtol->setText(QString::number(rtol, 'g', 12));
    startCompare();
}

void CompareView::setStatistic(analysis::StatField field) {
    m_field = field;
    m_stat->setCurrentIndex(m_stat->findData(int(field)));
    rebuildPlots();
    fitSteps();
}

QString CompareView::title() const {
    return tr("%1 vs %2, aligned by %3")
        .arg(sideText(m_request.a), sideText(m_request.b),
             QString::fromUtf8(analysis::stepAlignName(m_request.align)));
}

void CompareView::startCompare() {
    m_error.clear();
    const auto* a = m_request.a.run ? m_request.a.run->reader->rank(m_request.a.rank) : nullptr;
    const auto* b = m_request.b.run ? m_request.b.run->reader->rank(m_request.b.rank) : nullptr;
    m_originA = a ? analysis::stepOrigin(*a, m_request.align) : 0;
    m_originB = b ? analysis::stepOrigin(*b, m_request.align) : 0;
    m_status->setText(tr("comparing..."));
    m_progress->setBusy();
    m_compareJobs->startJob(
        [req = m_request](JobContext& ctx) {
            CompareJobResult out;
            const auto* a = req.a.run ? req.a.run->reader->rank(req.a.rank) : nullptr;
            const auto* b = req.b.run ? req.b.run->reader->rank(req.b.rank) : nullptr;
            if (!a || !b) {
                out.error = QObject::tr("rank %1 not found in run %2")
                                .arg(!a ? req.a.rank : req.b.rank)
                                .arg(!a ? QStringLiteral("A") : QStringLiteral("B"));
                return out;
            }
            analysis::CompareOptions o;
            o.align = req.align;
            o.atol = req.atol;
            o.rtol = req.rtol;
            Diagnostics diag;
            ctx.setStage(QObject::tr("comparing"));
            auto d = analysis::compareRanks(*a, *b, o, diag, ctx.callback());
            out.diagnostics = diag.total();
            if (d.isOk())
                out.diff = std::make_shared<const analysis::RunDiff>(std::move(d.value()));
            else if (d.status().code() == ErrorCode::Cancelled)
                out.cancelled = true;
            else
                out.error = QString::fromStdString(d.status().toString());
            return out;
        },
        [this](CompareJobResult r) {
            m_error = r.error;
            if (r.cancelled) {
                m_status->setText(tr("cancelled"));
            } else if (!r.error.isEmpty()) {
                m_status->setText(tr("<span style='color:#d02020'>comparison failed: %1</span>")
                                      .arg(r.error.toHtmlEscaped()));
            } else {
                m_model->setDiff(r.diff);
                std::size_t differ = 0;
                for (const auto& row : m_model->rows())
                    differ += row.side == DivergenceRow::Side::Both && row.firstDiffExact;
                QString text = tr("%1 keys, %2 differ").arg(m_model->rowCount()).arg(differ);
                if (r.diagnostics) text += tr(", %n warning(s)", nullptr, int(r.diagnostics));
                m_status->setText(text);
            }
            onCompared();
        });
}

void CompareView::onCompared() {
    const int row = m_key.isEmpty() ? -1 : m_model->rowOfKey(m_key);
    if (row >= 0) {
        // A recomputation (tolerance, alignment): keep the key; redraw with the new result.
        const QString key = m_key;
        m_key.clear();
        const std::optional<std::int64_t> cursor = m_cursor;
        showKey(key);
        const auto jump = m_model->rows()[std::size_t(row)].jumpStep();
        if (cursor)
            setCursorStep(*cursor);
        else if (jump)
            setCursorStep(*jump);
    } else if (m_model->rowCount() > 0) {
        // The top of the ranking, its cursor at the first difference (as a click would).
        m_key.clear();
        m_table->setCurrentIndex(m_proxy->mapFromSource(m_model->index(0, 0)));
    } else {
        m_key.clear();
        m_recA.clear();
        m_recB.clear();
        rebuildPlots();
    }
    emit compared();
}

void CompareView::cancel() {
    const bool was = m_compareJobs->isRunning();
    m_compareJobs->cancel();
    m_histJobs->cancel();
    if (was) m_status->setText(tr("cancelled"));
}

void CompareView::replaceRun(const RunSnapshot& before, const RunSnapshot& after) {
    bool changed = false;
    for (CompareSide* side : {&m_request.a, &m_request.b})
        if (side->run == before) {
            side->run = after;
            changed = true;
        }
    if (!changed || m_key.isEmpty()) return;
    const bool hadCurves = !m_recA.empty() || !m_recB.empty();
    m_recA = stepRecords(m_request.a, m_originA);
    m_recB = stepRecords(m_request.b, m_originB);
    rebuildPlots();
    if (!hadCurves) fitSteps();
}

CompareView::StepRecords CompareView::stepRecords(const CompareSide& side,
                                                  std::int64_t origin) const {
    StepRecords out;
    if (!side.run) return out;
    for (const auto* s : side.run->seriesOf(m_key.toStdString()))
        if (s->rank == side.rank)
            for (const auto& r : s->records)
                out.try_emplace(analysis::alignedStep(r.gstep, r.lstep, m_request.align, origin),
                                r);
    return out;
}

void CompareView::showKey(const QString& key) {
    if (key == m_key) return;
    m_key = key;
    const int row = m_model->rowOfKey(key);
    if (row >= 0) {
        const QModelIndex p = m_proxy->mapFromSource(m_model->index(row, 0));
        if (m_table->currentIndex().row() != p.row()) {
            m_table->selectionModel()->blockSignals(true);
            m_table->setCurrentIndex(p);
            m_table->selectionModel()->blockSignals(false);
            m_table->viewport()->update();
        }
        m_table->scrollTo(p);
    }
    m_recA = stepRecords(m_request.a, m_originA);
    m_recB = stepRecords(m_request.b, m_originB);
    rebuildPlots();
    fitSteps();
    startHistograms();
}

void CompareView::addLine(const QString& name, QCPAxis* x, QCPAxis* y, XYSeries data,
                          const QPen& pen) {
    QCPGraph* g = m_plot->addGraph(x, y);
    g->setPen(pen);
    g->setAdaptiveSampling(false);
    g->setObjectName(name); // the id lineData() looks up; the legend shows name()
    m_lines.push_back({g, std::move(data)});
}

const XYSeries* CompareView::lineData(const QString& name) const {
    for (const auto& l : m_lines)
        if (l.graph->objectName() == name) return &l.data;
    return nullptr;
}

void CompareView::rebuildPlots() {
    m_plot->clearGraphs();
    m_lines.clear();
    const QString stat = QString::fromUtf8(analysis::statFieldName(m_field));
    auto series = [&](const StepRecords& recs) {
        XYSeries s;
        for (const auto& [step, r] : recs)
            if (auto v = analysis::statValue(r.stats, m_field)) {
                s.x.push_back(double(step));
                s.y.push_back(*v);
            }
        return s;
    };
    XYSeries a = series(m_recA), b = series(m_recB), delta;
    for (const auto& [step, ra] : m_recA) {
        auto it = m_recB.find(step);
        if (it == m_recB.end()) continue;
        const auto va = analysis::statValue(ra.stats, m_field);
        const auto vb = analysis::statValue(it->second.stats, m_field);
        if (!va || !vb) continue;
        delta.x.push_back(double(step));
        delta.y.push_back(*vb - *va);
    }
    XYSeries maxAbs;
    if (const auto* kd = m_model->keyDiff(m_key))
        for (const auto& s : kd->steps)
            if (!s.shapeMismatch) {
                maxAbs.x.push_back(double(s.step));
                maxAbs.y.push_back(s.maxAbs);
            }
    QCPAxis* cx = m_curves->axis(QCPAxis::atBottom);
    QCPAxis* dx = m_delta->axis(QCPAxis::atBottom);
    // A is drawn wider under B, so both stay visible where they coincide.
    addLine(QStringLiteral("A"), cx, m_curves->axis(QCPAxis::atLeft), std::move(a),
            QPen(kColorA, 3.0));
    addLine(QStringLiteral("B"), cx, m_curves->axis(QCPAxis::atLeft), std::move(b),
            QPen(kColorB, 1.4));
    addLine(QStringLiteral("B - A"), dx, m_delta->axis(QCPAxis::atLeft), std::move(delta),
            QPen(kColorDelta, 1.6));
    m_lines.back().graph->setName(tr("B - A %1").arg(stat));
    m_lines.back().graph->removeFromLegend();
    addLine(QStringLiteral("max |a-b|"), dx, m_delta->axis(QCPAxis::atRight), std::move(maxAbs),
            QPen(kColorMaxAbs, 1.2, Qt::DashLine));
    m_lines.back().graph->setName(tr("max |a-b|"));
    m_lines.back().graph->removeFromLegend();

    const QString xLabel = alignLabel(m_request.align);
    cx->setLabel(QString());
    dx->setLabel(xLabel);
    m_curves->axis(QCPAxis::atLeft)
        ->setLabel(m_key.isEmpty() ? stat : m_key + QLatin1Char(' ') + stat);
    m_delta->axis(QCPAxis::atLeft)->setLabel(tr("B - A %1").arg(stat));
    m_plot->legend->setVisible(!m_key.isEmpty());
    showNames(); // the title and the legend's A and B
    updateCursorLines();
    drawNotes();
    redecimate();
}

void CompareView::setNotes(std::vector<Note> a, std::vector<Note> b) {
    m_notesA = std::move(a);
    m_notesB = std::move(b);
    drawNotes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CompareView::drawNotes() {
    removeItems(m_plot, m_noteItems);
    if (m_key.isEmpty()) return;
    const std::pair<const CompareSide*, const std::vector<Note>*> sides[] = {
        {&m_request.a, &m_notesA}, {&m_request.b, &m_notesB}};
    for (const auto& [side, notes] : sides) {
        if (!side->run || notes->empty()) continue;
        std::vector<const analysis::KeySeries*> series;
        for (const auto* s : side->run->seriesOf(m_key.toStdString()))
            if (s->rank == side->rank) series.push_back(s);
        if (series.empty()) continue;
        const std::int64_t origin = side == &m_request.a ? m_originA : m_originB;
        // The aligned step of the side's first record at or after `gstep`.
        auto aligned = [&](std::int64_t gstep) -> std::optional<double> {
            const auto& records = series.front()->records;
            std::optional<std::size_t> at;
            records.scan(analysis::RecordSeries::Field::Gstep, [&](std::size_t i, double g) {
                return g >= double(gstep) ? (at = i, false) : true;
            });
            if (!at) return std::nullopt;
            const analysis::RecordStats r = records[*at];
            return double(analysis::alignedStep(r.gstep, r.lstep, m_request.align, origin));
        };
        for (const Note& n : *notes) {
            const auto steps = noteSteps(n, series);
            if (!steps) continue;
            const auto x0 = aligned(steps->first);
            if (!x0) continue;
            const double x1 = aligned(steps->second).value_or(*x0);
            for (QCPAxisRect* rect : {m_curves, m_delta})
                addNoteItems(m_plot, rect, *x0, x1, n, m_noteItems);
        }
    }
}

void CompareView::redecimate() {
    const std::size_t buckets = std::size_t(std::max(200, m_curves->width()));
    for (auto& l : m_lines) {
        const QCPRange range = l.graph->keyAxis()->range();
        const auto v = visibleSlice(l.data, range.lower, range.upper);
        const XYSeries d = decimateMinMax(v.x, v.y, buckets);
        l.graph->setData(QVector<double>(d.x.begin(), d.x.end()),
                         QVector<double>(d.y.begin(), d.y.end()), true);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CompareView::fitSteps() {
    bool anyX = false;
    QCPRange xr;
    std::map<QCPAxis*, QCPRange> yr;
    for (const auto& l : m_lines) {
        for (std::size_t i = 0; i < l.data.x.size(); ++i) {
            const double x = l.data.x[i], y = l.data.y[i];
            if (!std::isfinite(y)) continue;
            if (anyX)
                xr.expand(x);
            else
                xr = QCPRange(x, x);
            anyX = true;
            auto [it, fresh] = yr.try_emplace(l.graph->valueAxis(), QCPRange(y, y));
            if (!fresh) it->second.expand(y);
        }
    }
    if (!anyX) xr = QCPRange(0, 1);
    if (xr.size() == 0) xr = QCPRange(xr.lower - 0.5, xr.upper + 0.5);
    m_curves->axis(QCPAxis::atBottom)->setRange(xr); // the delta panel follows
    for (QCPAxis* a : {m_curves->axis(QCPAxis::atLeft), m_delta->axis(QCPAxis::atLeft),
                       m_delta->axis(QCPAxis::atRight)}) {
        auto it = yr.find(a);
        if (it == yr.end()) {
            a->setRange(-1, 1);
            continue;
        }
        QCPRange r = it->second;
        const double pad = r.size() > 0 ? r.size() * 0.05 : std::max(std::abs(r.lower) * 0.05, 0.5);
        a->setRange(r.lower - pad, r.upper + pad);
    }
    redecimate();
}

QCPAxis* CompareView::xAxis(Panel p) const {
    switch (p) {
    case Panel::Curves:
        return m_curves->axis(QCPAxis::atBottom);
    case Panel::Delta:
        return m_delta->axis(QCPAxis::atBottom);
    case Panel::HistA:
        return m_histA->axis(QCPAxis::atBottom);
    case Panel::HistB:
        return m_histB->axis(QCPAxis::atBottom);
    }
    return nullptr;
}

std::optional<double> CompareView::cursorX(Panel p) const {
    const QCPItemStraightLine* l = p == Panel::Curves  ? m_cursorCurves
                                   : p == Panel::Delta ? m_cursorDelta
                                                       : nullptr;
    if (!l || !l->visible()) return std::nullopt;
    return l->point1->coords().x();
}

void CompareView::setCursorStep(std::int64_t step) {
    m_cursor = step;
    updateCursorLines();
    startHistograms();
}

void CompareView::updateCursorLines() {
    for (QCPItemStraightLine* l : {m_cursorCurves, m_cursorDelta}) {
        l->setVisible(m_cursor.has_value() && !m_key.isEmpty());
        if (m_cursor) {
            l->point1->setCoords(double(*m_cursor), 0);
            l->point2->setCoords(double(*m_cursor), 1);
        }
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<std::int64_t> CompareView::nearestStep(double x) const {
    std::optional<std::int64_t> best;
    double bestD = 0;
    for (const StepRecords* recs : {&m_recA, &m_recB}) {
        if (recs->empty()) continue;
        // The first step >= x and the last one below it.
        const auto it = recs->lower_bound(std::int64_t(std::ceil(x)));
        for (auto c : {it, it == recs->begin() ? it : std::prev(it)}) {
            if (c == recs->end()) continue;
            const double d = std::abs(double(c->first) - x);
            if (!best || d < bestD) {
                best = c->first;
                bestD = d;
            }
        }
    }
    return best;
}

void CompareView::onPlotClick(QMouseEvent* e) {
    // A click (not a drag, which pans) in a step panel moves the cursor to the nearest step.
    if (e->button() != Qt::LeftButton ||
        (e->position().toPoint() - m_pressPos).manhattanLength() > 3)
        return;
    QCPAxisRect* r = m_plot->axisRectAt(e->position());
    if (r != m_curves && r != m_delta) return;
    const auto s = nearestStep(r->axis(QCPAxis::atBottom)->pixelToCoord(e->position().x()));
    if (!s) return;
    setCursorStep(*s);
    emit stepSelected(*s);
}

void CompareView::startHistograms() {
    auto recordOf = [&](const StepRecords& recs) -> const analysis::RecordStats* {
        if (!m_cursor) return nullptr;
        auto it = recs.find(*m_cursor);
        return it == recs.end() ? nullptr : &it->second;
    };
    const analysis::RecordStats* ra = recordOf(m_recA);
    const analysis::RecordStats* rb = recordOf(m_recB);
    if (!ra && !rb) {
        m_histJobs->cancel();
        m_hists.reset();
        m_histStep = m_cursor;
        showHistograms();
        return;
    }
    struct Side {
        RunSnapshot run;
        int rank;
        std::optional<std::size_t> record;
        analysis::TensorStats stats;
    };
    Side a{m_request.a.run, m_request.a.rank, ra ? std::optional(ra->record) : std::nullopt,
           ra ? ra->stats : analysis::TensorStats{}};
    Side b{m_request.b.run, m_request.b.rank, rb ? std::optional(rb->record) : std::nullopt,
           rb ? rb->stats : analysis::TensorStats{}};
    const std::int64_t step = *m_cursor;
    m_histJobs->startJob(
        [a, b, key = m_key.toStdString()](JobContext&) {
            HistJobResult out;
            // One bin layout over both sides' finite range, so the bars compare directly.
            analysis::TensorStats joint;
            for (const Side* s : {&a, &b}) {
                if (!s->record || !s->stats.hasFinite()) continue;
                joint.min = joint.finite ? std::min(joint.min, s->stats.min) : s->stats.min;
                joint.max = joint.finite ? std::max(joint.max, s->stats.max) : s->stats.max;
                joint.finite += s->stats.finite;
            }
            analysis::HistogramOptions options;
            options.bins = kHistogramBins;
            auto layout = analysis::makeBinLayout(options, joint);
            if (!layout.isOk()) {
                out.error = QString::fromStdString(layout.status().toString());
                return out;
            }
            auto hists = std::make_shared<std::pair<analysis::Histogram, analysis::Histogram>>(
                analysis::Histogram(*layout), analysis::Histogram(*layout));
            // The application's backend: chosen from the size of the open runs, so a device
            // that serves the other jobs serves these two tensors too.
            auto backend = appBackend().get();
            for (int i = 0; i < 2; ++i) {
                const Side& s = i == 0 ? a : b;
                analysis::Histogram& h = i == 0 ? hists->first : hists->second;
                if (!s.record) continue;
                const auto* rank = s.run->reader->rank(s.rank);
                if (!rank) continue;
                auto t = rank->tensor(*s.record, key);
                if (!t.isOk()) {
                    out.error = QString::fromStdString(t.status().toString());
                    return out;
                }
                const Status st = backend->histogram({&*t, 1}, *layout, {&h, 1});
                if (!st.isOk()) {
                    out.error = QString::fromStdString(st.toString());
                    return out;
                }
            }
            out.hists = std::move(hists);
            return out;
        },
        [this, step](HistJobResult r) {
            if (!r.error.isEmpty())
                m_status->setText(tr("<span style='color:#d02020'>histogram failed: %1</span>")
                                      .arg(r.error.toHtmlEscaped()));
            m_hists = std::move(r.hists);
            m_histStep = step;
            showHistograms();
            emit histogramsReady();
        });
}

const analysis::Histogram* CompareView::histogram(Panel p) const {
    if (!m_hists || !m_histStep) return nullptr;
    if (p == Panel::HistA) return m_recA.count(*m_histStep) ? &m_hists->first : nullptr;
    if (p == Panel::HistB) return m_recB.count(*m_histStep) ? &m_hists->second : nullptr;
    return nullptr;
}

void CompareView::showHistograms() {
    m_barsA->data()->clear();
    m_barsB->data()->clear();
    double top = 1;
    QCPRange xr(0, 1);
    if (m_hists) {
        const auto& layout = m_hists->first.layout;
        const double w = (layout.hi - layout.lo) / layout.bins;
        xr = QCPRange(layout.lo, layout.hi);
        for (int side = 0; side < 2; ++side) {
            const auto* h = histogram(side == 0 ? Panel::HistA : Panel::HistB);
            if (!h) continue;
            QVector<double> keys, values;
            for (int i = 0; i < layout.bins; ++i) {
                keys << layout.lo + (i + 0.5) * w;
                values << double(h->counts[std::size_t(i)]);
                top = std::max(top, values.back());
            }
            QCPBars* bars = side == 0 ? m_barsA : m_barsB;
            bars->setWidth(w);
            bars->setData(keys, values, true);
        }
    }
    auto label = [&](Panel p, const QString& side) {
        if (!m_histStep) return tr("%1: no cursor step").arg(side);
        const auto* h = histogram(p);
        if (!h) return tr("%1 @ step %2: no record").arg(side).arg(*m_histStep);
        QString text = tr("%1 @ step %2").arg(side).arg(*m_histStep);
        if (h->nan || h->posInf || h->negInf)
            text += tr("  (%1 NaN, %2 Inf not binned)").arg(h->nan).arg(h->posInf + h->negInf);
        return text;
    };
    m_histA->axis(QCPAxis::atBottom)->setLabel(label(Panel::HistA, QStringLiteral("A")));
    m_histB->axis(QCPAxis::atBottom)->setLabel(label(Panel::HistB, QStringLiteral("B")));
    m_histA->axis(QCPAxis::atBottom)->setRange(xr); // B follows
    m_histA->axis(QCPAxis::atLeft)->setRange(0, top * 1.05);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool CompareView::exportImage(const QString& path, int width, int height, QString* error,
                              bool notes) const {
    return exportPlot(m_plot, path, width, height, error, {}, notes);
}

void CompareView::updateProgress() {
    auto ctx = m_compareJobs->current();
    if (!ctx) return;
    const auto done = ctx->done.load(), total = ctx->total.load();
    m_progress->setProgress(done, total, total > 0 ? tr("keys %1/%2").arg(done).arg(total) : "");
}

void CompareView::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange)
        applyPalette();
    QWidget::changeEvent(e);
}

void CompareView::applyPalette() {
    m_title->setTextColor(palette().color(QPalette::Text));
    applyPlotPalette(m_plot, palette());
    m_plot->legend->setBorderPen(Qt::NoPen); // a row of its own under the title
}

} // namespace xt::widgets
