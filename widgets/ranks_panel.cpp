#include "widgets/ranks_panel.h"

#include "core/export/op_summary_csv.h"
#include "widgets/rank_charts.h"
#include "widgets/report_table_view.h"
#include "widgets/timeline_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <map>

namespace xt::widgets {

using namespace timeline;

namespace {

QString qstr(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// "ProfilerStep#12" -> "#12" for heatmap columns.
QString shortStep(const std::string& name) {
    const auto hash = name.rfind('#');
    return hash == std::string::npos ? qstr(name) : qstr(std::string_view(name).substr(hash));
}

constexpr std::size_t kOpenRanks = 4; // more ranks open collapsed but the first

const QColor kIdle(0xc8, 0xc8, 0xc8), kCompute(0x2c, 0xa0, 0x2c), kNonCompute(0xff, 0x7f, 0x0e);

} // namespace

RanksPanel::RanksPanel(TimelineView* view, QWidget* parent)
    : QWidget(parent), m_view(view), m_jobs(new JobTracker(this)), m_status(new QLabel(this)),
      m_alignMode(new QComboBox(this)), m_anchor(new QComboBox(this)),
      m_occurrence(new QSpinBox(this)), m_tabs(new QTabWidget(this)),
      m_timeBars(new RankBarsChart(this)), m_kernelBars(new RankBarsChart(this)),
      m_heatmap(new RankHeatmap(this)), m_heatmapMode(new QComboBox(this)),
      m_offsets(new QTableWidget(this)) {
    setObjectName(QStringLiteral("RanksPanel"));
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(4, 2, 4, 2);

    // Alignment row.
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Align ranks:"), this));
    m_alignMode->addItem(tr("as recorded"));
    m_alignMode->addItem(tr("at step"));
    m_alignMode->addItem(tr("at collective"));
    m_anchor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_anchor->setMinimumContentsLength(32);
    connect(m_anchor, &QComboBox::currentTextChanged, m_anchor, &QComboBox::setToolTip);
    m_occurrence->setRange(1, 1 << 30);
    m_occurrence->setPrefix(tr("run "));
    m_occurrence->setToolTip(tr("Which run of the collective on each rank (1: the first)"));
    auto* apply = new QPushButton(tr("Align"), this);
    row->addWidget(m_alignMode);
    row->addWidget(m_anchor);
    row->addWidget(m_occurrence);
    row->addWidget(apply);
    row->addSpacing(16);
    row->addWidget(m_status, 1);
    v->addLayout(row);
    connect(m_alignMode, &QComboBox::currentIndexChanged, this, [this] { fillAnchors(); });
    connect(apply, &QPushButton::clicked, this, [this] {
        AlignSpec spec;
        spec.mode = static_cast<AlignMode>(m_alignMode->currentIndex());
        (spec.mode == AlignMode::Step ? spec.step : spec.kernel) =
            m_anchor->currentText().toStdString();
        spec.occurrence = std::uint32_t(m_occurrence->value());
        applyAlignment(spec);
    });

    auto addTable = [this](const QString& name, const QString& caption) {
        auto* t = new ReportTableView(caption, this);
        m_tables.emplace_back(name, t);
        return t;
    };

    // Per rank: the table and the stacked bars.
    auto* perRank = new QSplitter(Qt::Horizontal, this);
    perRank->addWidget(addTable(QStringLiteral("ranks"),
                                tr("Per rank: GPU time (HTA temporal breakdown), overlap, kernel "
                                   "types, launches, collective wait")));
    auto* charts = new QWidget(perRank);
    auto* cv = new QVBoxLayout(charts);
    cv->setContentsMargins(0, 0, 0, 0);
    cv->addWidget(m_timeBars, 1);
    cv->addWidget(m_kernelBars, 1);
    perRank->addWidget(charts);
    perRank->setStretchFactor(0, 3);
    perRank->setStretchFactor(1, 2);
    m_tabs->addTab(perRank, tr("Per rank"));

    // Steps: heatmap and stragglers.
    auto* steps = new QSplitter(Qt::Vertical, this);
    auto* mapBox = new QWidget(steps);
    auto* mv = new QVBoxLayout(mapBox);
    mv->setContentsMargins(0, 0, 0, 0);
    auto* mapRow = new QHBoxLayout;
    mapRow->addWidget(new QLabel(tr("Rank x step:"), mapBox));
    m_heatmapMode->addItem(tr("step time (outlined: slowest rank)"));
    m_heatmapMode->addItem(tr("collective wait (outlined: the rank the others wait for)"));
    m_heatmapMode->addItem(tr("GPU idle time (outlined: most idle)"));
    mapRow->addWidget(m_heatmapMode);
    mapRow->addWidget(new QLabel(tr("click a cell to show that rank's step"), mapBox));
    mapRow->addStretch(1);
    mv->addLayout(mapRow);
    m_heatmapScroll = new QScrollArea(mapBox);
    m_heatmapScroll->setWidgetResizable(true);
    m_heatmapScroll->setWidget(m_heatmap);
    mv->addWidget(m_heatmapScroll, 1);
    steps->addWidget(mapBox);
    auto* stragglers = addTable(QStringLiteral("stragglers"),
                                tr("Stragglers: step time per rank, slowest rank and skew"));
    steps->addWidget(stragglers);
    steps->setStretchFactor(0, 3);
    steps->setStretchFactor(1, 2);
    m_tabs->addTab(steps, tr("Steps"));
    connect(m_heatmapMode, &QComboBox::currentIndexChanged, this,
            [this](int i) { setHeatmapMode(static_cast<HeatmapMode>(i)); });
    connect(m_heatmap, &RankHeatmap::cellActivated, this, [this](int r, int c) {
        if (m_analysis && c < int(m_analysis->steps.size()))
            showStep(r, qstr(m_analysis->steps[std::size_t(c)].name));
    });

    m_tabs->addTab(addTable(QStringLiteral("idle_by_stream"),
                            tr("GPU idle time by stream and cause (HTA idle time breakdown)")),
                   tr("Idle by stream"));
    m_tabs->addTab(addTable(QStringLiteral("steps"),
                            tr("Steps per rank (double click: show in the timeline)")),
                   tr("Steps per rank"));
    m_tabs->addTab(addTable(QStringLiteral("top_kernels"),
                            tr("Top kernels per type, per rank (spread: lowest and highest mean "
                               "over ranks)")),
                   tr("Top kernels"));

    // Offsets: editable.
    auto* offsetsBox = new QWidget(this);
    auto* ov = new QVBoxLayout(offsetsBox);
    ov->setContentsMargins(0, 0, 0, 0);
    auto* orow = new QHBoxLayout;
    orow->addWidget(new QLabel(tr("Offset of each rank's clock on the timeline (edit to shift a "
                                  "rank)"),
                               offsetsBox),
                    1);
    auto* exportOffsets = new QPushButton(tr("Export CSV..."), offsetsBox);
    orow->addWidget(exportOffsets);
    ov->addLayout(orow);
    m_offsets->setColumnCount(4);
    m_offsets->setHorizontalHeaderLabels(
        {tr("rank"), tr("file"), tr("offset (us)"), tr("anchor found")});
    m_offsets->verticalHeader()->hide();
    m_offsets->horizontalHeader()->setStretchLastSection(true);
    ov->addWidget(m_offsets, 1);
    m_tabs->addTab(offsetsBox, tr("Offsets"));
    connect(m_offsets, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (m_filling || item->column() != 2) return;
        bool ok = false;
        const double offUs = item->text().toDouble(&ok);
        if (ok) setRankOffset(item->row(), static_cast<qint64>(std::llround(offUs * 1000.0)));
    });
    connect(exportOffsets, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export offsets"), QStringLiteral("offsets.csv"), tr("CSV files (*.csv)"));
        if (path.isEmpty()) return;
        const Status st = exportOffsetsCsv(path);
        if (!st)
            QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(st.toString()));
    });

    for (const auto& [name, t] : m_tables)
        if (name == QLatin1String("steps") || name == QLatin1String("stragglers"))
            connect(t, &ReportTableView::rowActivated, this, [this, name = name, t = t](int row) {
                const ReportTable& tab = t->model()->table();
                if (row < 0 || row >= int(tab.rows.size()) || !m_session) return;
                const auto& cells = tab.rows[std::size_t(row)];
                // steps: rank, step; stragglers: step, slowest rank.
                const bool steps = name == QLatin1String("steps");
                const int rank = int(cells[steps ? 0 : 1].value);
                const QString step = QString::fromStdString(cells[steps ? 1 : 0].text);
                for (std::size_t i = 0; i < m_session->ranks.size(); ++i)
                    if (m_session->ranks[i].rank == rank) showStep(int(i), step);
            });

    v->addWidget(m_tabs, 1);
    m_status->setText(tr("Loading ranks..."));
    // Room for the heatmap and a few table rows under the timeline.
    setMinimumHeight(20 * fontMetrics().height());
}

ReportTableView* RanksPanel::table(const QString& name) const {
    for (const auto& [n, t] : m_tables)
        if (n == name) return t;
    return nullptr;
}

void RanksPanel::setSession(std::shared_ptr<const RankSession> session, int firstLayer) {
    m_session = std::move(session);
    m_first = firstLayer;
    m_analysis.reset();
    applyAlignment({});
    // Many ranks: the first one open, the others as one header row each.
    if (m_session->ranks.size() > kOpenRanks)
        for (std::size_t i = 1; i < m_session->ranks.size(); ++i)
            m_view->setLayerCollapsed(m_first + int(i), true);
    m_status->setText(tr("Analysing %n rank(s)...", nullptr, int(m_session->ranks.size())));
    auto s = m_session;
    m_jobs->startJob(
        [s](JobContext&) { return std::make_shared<const SessionAnalysis>(analyzeRanks(*s)); },
        [this](std::shared_ptr<const SessionAnalysis> a) {
            m_analysis = std::move(a);
            display();
            emit analysisReady();
        });
}

void RanksPanel::display() {
    if (!m_session || !m_analysis) return;
    const auto tables = ranksReportTables(*m_session, *m_analysis);
    for (const ReportTable& t : tables)
        if (ReportTableView* view = table(QString::fromStdString(t.name))) view->setTable(t);

    std::vector<RankBarsChart::Bar> time, kernels;
    for (std::size_t i = 0; i < m_analysis->perRank.size(); ++i) {
        const RankAnalysis& a = m_analysis->perRank[i];
        const QString label = tr("rank %1").arg(m_session->ranks[i].rank);
        const TemporalBreakdown& t = a.temporal;
        time.push_back({label, {double(t.idleNs), double(t.computeNs), double(t.nonComputeNs)}});
        std::vector<double> k;
        for (unsigned m = 1; m < 8; ++m)
            k.push_back(double(a.kernelTypes[m]));
        kernels.push_back({label, std::move(k)});
    }
    m_timeBars->setData(tr("GPU time (share of the window from the first to the last kernel)"),
                        {{tr("idle"), kIdle},
                         {tr("compute"), kCompute},
                         {tr("non-compute (communication, memory)"), kNonCompute}},
                        std::move(time));
    // Kernel types: the combinations that took time on some rank.
    std::vector<RankBarsChart::Series> types;
    const QColor colours[8] = {{},
                               QColor(0x2c, 0xa0, 0x2c),
                               QColor(0x1f, 0x77, 0xb4),
                               QColor(0x17, 0xbe, 0xcf),
                               QColor(0xff, 0x7f, 0x0e),
                               QColor(0xbc, 0xbd, 0x22),
                               QColor(0x94, 0x67, 0xbd),
                               QColor(0x8c, 0x56, 0x4b)};
    std::vector<unsigned> used;
    for (unsigned m = 1; m < 8; ++m)
        for (const RankAnalysis& a : m_analysis->perRank)
            if (a.kernelTypes[m] > 0) {
                used.push_back(m);
                break;
            }
    for (unsigned m : used) {
        QString name = QString::fromStdString(kernelTypeMaskLabel(m));
        name.replace(QStringLiteral(" overlapping "), QStringLiteral(" + "));
        types.push_back({name.toLower(), colours[m]});
    }
    for (auto& bar : kernels) {
        std::vector<double> v;
        for (unsigned m : used)
            v.push_back(bar.values[m - 1]);
        bar.values = std::move(v);
    }
    m_kernelBars->setData(tr("Kernel time by type (HTA kernel breakdown, overlaps apart)"),
                          std::move(types), std::move(kernels));
    updateHeatmap();
    fillAnchors();

    // Status: the slowest rank overall and missing ranks.
    QString status = tr("%n rank(s)", nullptr, int(m_session->ranks.size()));
    const auto missing = m_session->missingRanks();
    if (!missing.empty()) {
        QStringList m;
        for (int r : missing)
            m << QString::number(r);
        status += tr("; missing: %1").arg(m.join(QStringLiteral(", ")));
    }
    std::map<int, int> slowestCount;
    for (const StepStraggler& s : m_analysis->steps)
        if (s.skewNs > 0) ++slowestCount[s.slowestRank];
    if (!slowestCount.empty()) {
        auto most = slowestCount.begin();
        for (auto it = slowestCount.begin(); it != slowestCount.end(); ++it)
            if (it->second > most->second) most = it;
        status += tr("; slowest most often: rank %1 (%2 of %3 steps)")
                      .arg(most->first)
                      .arg(most->second)
                      .arg(m_analysis->steps.size());
    }
    if (!m_session->diagnostics.empty())
        status += tr("; %n problem(s) loading", nullptr, int(m_session->diagnostics.total()));
    m_status->setText(status);
}

void RanksPanel::setHeatmapMode(HeatmapMode mode) {
    m_mode = mode;
    if (m_heatmapMode->currentIndex() != int(mode)) m_heatmapMode->setCurrentIndex(int(mode));
    updateHeatmap();
}

void RanksPanel::updateHeatmap() {
    if (!m_session || !m_analysis) return;
    const auto& steps = m_analysis->steps;
    QStringList rows, columns;
    std::vector<std::vector<double>> values;
    for (const StepStraggler& s : steps)
        columns << shortStep(s.name);
    for (std::size_t i = 0; i < m_analysis->perRank.size(); ++i) {
        rows << tr("rank %1").arg(m_session->ranks[i].rank);
        std::map<std::string, const RankStep*> byName;
        for (const RankStep& st : m_analysis->perRank[i].steps)
            byName.emplace(st.name, &st);
        std::vector<double> row;
        for (const StepStraggler& s : steps) {
            const auto it = byName.find(s.name);
            if (it == byName.end()) {
                row.push_back(std::nan(""));
                continue;
            }
            const RankStep& st = *it->second;
            row.push_back(m_mode == HeatmapMode::StepTime         ? double(st.durNs())
                          : m_mode == HeatmapMode::CollectiveWait ? double(st.collectiveWaitNs)
                                                                  : double(st.idleNs));
        }
        values.push_back(std::move(row));
    }
    // Outline per column, where the ranks differ: the slowest rank, the rank that waits least
    // (the one the others wait for), the most idle one.
    std::vector<int> marked(std::size_t(columns.size()), -1);
    for (int c = 0; c < int(columns.size()); ++c) {
        int best = -1;
        double lo = 0, hi = 0;
        for (int r = 0; r < int(values.size()); ++r) {
            const double v = values[std::size_t(r)][std::size_t(c)];
            if (std::isnan(v)) continue;
            const double b = best < 0 ? v : values[std::size_t(best)][std::size_t(c)];
            const bool better = best < 0 || (m_mode == HeatmapMode::CollectiveWait ? v < b : v > b);
            lo = best < 0 ? v : std::min(lo, v);
            hi = best < 0 ? v : std::max(hi, v);
            if (better) best = r;
        }
        if (hi > lo) marked[std::size_t(c)] = best;
    }
    const QString titles[] = {tr("Step time"), tr("Collective wait per step"),
                              tr("GPU idle time per step")};
    m_heatmap->setData(titles[int(m_mode)], rows, columns, std::move(values),
                       m_mode == HeatmapMode::StepTime);
    m_heatmapScroll->setMinimumHeight(
        std::min(m_heatmap->minimumSizeHint().height() + 4, 14 * fontMetrics().height()));
    m_heatmap->setMarked(std::move(marked));
}

void RanksPanel::fillAnchors() {
    const QString keep = m_anchor->currentText();
    m_anchor->clear();
    const auto mode = static_cast<AlignMode>(m_alignMode->currentIndex());
    m_anchor->setEnabled(mode != AlignMode::Recorded);
    m_occurrence->setVisible(mode == AlignMode::Collective);
    if (!m_analysis || mode == AlignMode::Recorded) return;
    QStringList items;
    if (mode == AlignMode::Step) {
        for (const StepStraggler& s : m_analysis->steps)
            items << qstr(s.name);
    } else {
        std::map<std::string, int> seen;
        for (const RankAnalysis& a : m_analysis->perRank)
            for (const std::string& n : a.collectiveNames)
                if (seen.emplace(n, 0).second) items << qstr(n);
    }
    m_anchor->addItems(items);
    if (items.contains(keep)) m_anchor->setCurrentText(keep);
}

void RanksPanel::applyAlignment(const AlignSpec& spec) {
    if (!m_session) return;
    m_alignment = alignRanks(*m_session, spec);
    for (std::size_t i = 0; i < m_alignment.offsetNs.size(); ++i)
        m_view->setLayerOffset(m_first + int(i), m_alignment.offsetNs[i]);
    fillOffsets();
}

void RanksPanel::setRankOffset(int rankIndex, qint64 offsetNs) {
    if (rankIndex < 0 || std::size_t(rankIndex) >= m_alignment.offsetNs.size()) return;
    m_alignment.offsetNs[std::size_t(rankIndex)] = offsetNs;
    m_view->setLayerOffset(m_first + rankIndex, offsetNs);
    fillOffsets();
}

void RanksPanel::fillOffsets() {
    m_filling = true;
    const std::size_t n = m_session ? m_session->ranks.size() : 0;
    m_offsets->setRowCount(int(n));
    for (std::size_t i = 0; i < n; ++i) {
        const RankTrace& r = m_session->ranks[i];
        auto fixed = [](const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setFlags(item->flags() & ~Qt::ItemIsEditable);
            return item;
        };
        m_offsets->setItem(int(i), 0, fixed(QString::number(r.rank)));
        m_offsets->setItem(int(i), 1, fixed(QString::fromStdString(r.file)));
        m_offsets->setItem(int(i), 2,
                           new QTableWidgetItem(
                               QString::number(double(m_alignment.offsetNs[i]) / 1000.0, 'f', 3)));
        m_offsets->setItem(int(i), 3, fixed(m_alignment.anchored[i] ? tr("yes") : tr("no")));
    }
    m_offsets->resizeColumnsToContents();
    m_filling = false;
}

ReportTable RanksPanel::offsetsReport() const {
    ReportTable t{"offsets", {"rank", "file", "offset_us", "anchored"}, {}};
    if (!m_session) return t;
    for (std::size_t i = 0; i < m_session->ranks.size(); ++i) {
        ReportCell off;
        appendMicros(off.text, m_alignment.offsetNs[i]);
        off.value = double(m_alignment.offsetNs[i]) / 1000.0;
        t.rows.push_back(
            {{std::to_string(m_session->ranks[i].rank), double(m_session->ranks[i].rank)},
             {m_session->ranks[i].file},
             off,
             {m_alignment.anchored[i] ? "yes" : "no"}});
    }
    return t;
}

Status RanksPanel::exportOffsetsCsv(const QString& path) const {
    return writeReportTableCsv(path.toStdString(), offsetsReport());
}

bool RanksPanel::showStep(int rankIndex, const QString& step) {
    if (!m_session || rankIndex < 0 || std::size_t(rankIndex) >= m_session->ranks.size())
        return false;
    const int layer = m_first + rankIndex;
    if (layer >= int(m_view->layers().size())) return false;
    const TimelineLayer& l = m_view->layers()[std::size_t(layer)];
    const TraceStore& s = *l.store;
    const std::string wanted = step.toStdString();
    for (std::uint32_t m : l.stepMarkers) {
        if (s.str(s.sliceName()[m]) != wanted || isDeviceCategory(s.str(s.sliceCategory()[m])))
            continue;
        m_view->setLayerCollapsed(layer, false);
        m_view->selectSlice(layer, m, true);
        // Fit the step with a small margin, on the shared axis (layer 0's time base).
        const qint64 shift = l.offsetNs - m_view->layers().front().offsetNs;
        const qint64 t0 = s.sliceStart()[m] + shift, t1 = s.sliceEnd(m) + shift;
        const qint64 margin = std::max<qint64>((t1 - t0) / 50, 1000);
        m_view->setViewWindow(t0 - margin, t1 + margin);
        return true;
    }
    return false;
}

} // namespace xt::widgets
