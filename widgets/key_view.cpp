#include "widgets/key_view.h"

#include "core/summary/overview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace xt::widgets {

using view::XAxisMode;

namespace {

const char* const kXModes[] = {"gstep", "lstep", "time"};

QJsonValue optionalStep(const std::optional<std::int64_t>& g) {
    return g ? QJsonValue(double(*g)) : QJsonValue();
}

std::optional<std::int64_t> stepOf(const QJsonValue& v) {
    return v.isDouble() ? std::optional<std::int64_t>(std::int64_t(v.toDouble())) : std::nullopt;
}

QJsonArray rangeJson(const QCPRange& r) {
    return {r.lower, r.upper};
}

} // namespace

KeyView::KeyView(QWidget* parent)
    : QWidget(parent), m_stats(new StatPlot(this)), m_histograms(new HistogramView(this)),
      m_rankMap(new RankStepHeatmap(this)), m_lower(new QTabWidget(this)),
      m_xAxis(new QComboBox(this)), m_ranks(new QComboBox(this)),
      m_minMax(new QCheckBox(tr("min-max"), this)), m_std(new QCheckBox(tr("\u00b1 std"), this)),
      m_l2(new QCheckBox(tr("L2 norm"), this)), m_logX(new QCheckBox(tr("log x"), this)),
      m_logY(new QCheckBox(tr("log y"), this)), m_smoothing(new QDoubleSpinBox(this)),
      m_follow(new QToolButton(this)), m_paused(new QLabel(this)), m_outliers(new QLabel(this)),
      m_reading(new QLabel(this)) {
    m_xAxis->addItems({tr("global step"), tr("local step"), tr("wall time")});
    m_ranks->addItems({tr("ranks overlaid"), tr("ranks aggregated")});
    m_ranks->setToolTip(tr("Aggregated: the median across ranks with the range from the lowest "
                           "to the highest rank, and the outlier ranks"));
    m_minMax->setChecked(true);
    m_std->setChecked(true);
    m_logX->setToolTip(tr("Logarithmic steps, or seconds since the first record on the wall-time "
                          "axis; x <= 0 is not drawn"));
    m_smoothing->setRange(0, 0.999);
    m_smoothing->setSingleStep(0.1);
    m_smoothing->setDecimals(3);
    m_smoothing->setSpecialValueText(tr("off"));
    m_smoothing->setToolTip(tr("Debiased EMA smoothing weight; the raw curve stays visible"));
    auto* reset = new QToolButton(this);
    reset->setText(tr("Fit"));
    reset->setToolTip(tr("Fit the plot to the data (Home)"));

    m_follow->setText(tr("Follow"));
    m_follow->setCheckable(true);
    m_follow->setToolTip(tr("Keep the newest steps in view while the run is being written (End)"));
    m_follow->hide();
    m_paused->setText(tr("following paused (zoomed) - Follow or End resumes"));
    m_paused->setStyleSheet(QStringLiteral("color: #b36b00"));
    m_paused->hide();

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(new QLabel(tr("x:"), this));
    bar->addWidget(m_xAxis);
    bar->addWidget(m_ranks);
    bar->addWidget(m_minMax);
    bar->addWidget(m_std);
    bar->addWidget(m_l2);
    bar->addWidget(m_logX);
    bar->addWidget(m_logY);
    bar->addWidget(new QLabel(tr("smoothing:"), this));
    bar->addWidget(m_smoothing);
    bar->addStretch(1);
    bar->addWidget(m_paused);
    bar->addWidget(m_follow);
    bar->addWidget(reset);
    m_outliers->setObjectName(QStringLiteral("outlierRanks"));
    m_outliers->setContentsMargins(6, 0, 6, 2);
    m_outliers->setWordWrap(true);
    m_outliers->setTextFormat(Qt::RichText);
    m_outliers->hide();
    // Drawn in a margin at the top of the statistic plot, not in the widgets' layout: when it
    // went, the plots below it grew, and each was resized and drawn again at the end of every
    // large open.
    m_reading->setObjectName(QStringLiteral("readingKey"));
    m_reading->setParent(m_stats->plot());
    m_reading->setContentsMargins(6, 1, 6, 2);
    m_reading->setWordWrap(true);
    m_reading->setStyleSheet(QStringLiteral("color: #b36b00; background-color: palette(window)"));
    m_reading->hide();
    m_stats->plot()->installEventFilter(this);

    m_lower->setDocumentMode(true);
    m_lower->addTab(m_histograms, tr("Histograms"));
    m_lower->addTab(m_rankMap, tr("Ranks \u00d7 steps"));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_stats);
    split->addWidget(m_lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_outliers);
    layout->addWidget(split, 1);

    for (QCheckBox* c : {m_minMax, m_std, m_l2, m_logX, m_logY})
        connect(c, &QCheckBox::toggled, this, &KeyView::updateOptions);
    connect(m_xAxis, &QComboBox::activated, this, &KeyView::updateOptions);
    connect(m_ranks, &QComboBox::activated, this, [this] {
        m_ranksChosen = true;
        updateOptions();
    });
    connect(m_lower, &QTabWidget::tabBarClicked, this, [this] { m_lowerChosen = true; });
    connect(m_smoothing, &QDoubleSpinBox::valueChanged, this, &KeyView::updateOptions);
    connect(reset, &QToolButton::clicked, m_stats, &StatPlot::resetZoom);
    connect(m_follow, &QToolButton::toggled, m_stats, &StatPlot::setFollowing);
    connect(m_stats, &StatPlot::followingChanged, this, &KeyView::updateFollowControls);
    connect(m_stats, &StatPlot::stepSelected, this, &KeyView::stepSelected);
    connect(m_stats, &StatPlot::noteRequested, this, &KeyView::noteRequested);
    connect(m_stats, &StatPlot::spreadChanged, this, &KeyView::updateOutliers);
    connect(m_histograms, &HistogramView::stepSelected, this, &KeyView::stepSelected);
    connect(m_rankMap, &RankStepHeatmap::cellActivated, this,
            [this](int rank, std::int64_t gstep) { openRank(rank, gstep); });
    connect(m_outliers, &QLabel::linkActivated, this,
            [this](const QString& link) { openRank(link.toInt()); });
}

void KeyView::setData(RunSnapshot run, const QString& key) {
    m_run = std::move(run);
    m_key = key;
    // Many ranks are drawn aggregated, over the ranks x steps heatmap, unless the user chose.
    const std::size_t ranks = m_run ? m_run->reader->ranks().size() : 0;
    const bool many = ranks > std::size_t(StatPlot::kLegendRanks);
    if (!m_ranksChosen && m_run && (m_ranks->currentIndex() == 1) != many) {
        m_ranks->setCurrentIndex(many ? 1 : 0);
        StatPlotOptions o = m_stats->options();
        o.aggregateRanks = many;
        m_stats->setOptionsQuietly(o);
    }
    if (!m_lowerChosen && m_run) m_lower->setCurrentIndex(many ? 1 : 0);
    m_lower->setTabVisible(1, ranks > 1);
    m_stats->setData(m_run, key);
    m_histograms->setData(m_run, key);
    m_rankMap->setData(m_run, key);
    // On by default for a live run, and for a key whose statistics are still being read.
    m_stats->setFollowing(m_run && (m_run->live || m_run->partialKey == key.toStdString()));
    updateFollowControls();
}

void KeyView::extendRun(RunSnapshot run) {
    m_run = std::move(run);
    m_stats->extendRun(m_run);
    m_histograms->extendRun(m_run);
    m_rankMap->setData(m_run, m_key);
    updateFollowControls();
}

bool KeyView::isFollowing() const {
    return m_stats->isFollowing();
}

void KeyView::updateFollowControls() {
    const bool live = m_run && m_run->live;
    m_follow->setVisible(live);
    const QSignalBlocker block(m_follow);
    m_follow->setChecked(m_stats->isFollowing());
    m_paused->setVisible(live && !m_stats->isFollowing());
    const bool reading = m_run && m_run->partialKey == m_key.toStdString();
    if (reading)
        m_reading->setText(tr("Statistics of %1% of the records so far: the curves grow as the "
                              "rest of %2 is read.")
                               .arg(int(100 * m_run->partialFraction()))
                               .arg(m_key));
    else if (m_run && m_run->overview)
        m_reading->setText(tr("Approximate: the range of each statistic over blocks of %1 "
                              "records, from the summaries' overviews. The exact curves follow "
                              "once the summaries are checked.")
                               .arg(summary::kOverviewBlock));
    else if (m_run && m_run->preview)
        m_reading->setText(tr("The first %1 records of the run, shown while the rest is indexed.")
                               .arg(m_run->recordCount()));
    m_reading->setVisible(reading || (m_run && (m_run->overview || m_run->preview)));
    placeReading();
}

void KeyView::placeReading() {
    if (m_reading->isHidden()) {
        m_stats->reserveTop(0);
        return;
    }
    const int width = m_stats->plot()->width();
    const int height = m_reading->heightForWidth(width);
    m_reading->setGeometry(0, 0, width, height);
    m_stats->reserveTop(height);
}

bool KeyView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_stats->plot() && event->type() == QEvent::Resize) placeReading();
    return QWidget::eventFilter(watched, event);
}

void KeyView::replaceRun(RunSnapshot run) {
    // The next stage of a key read in stages: its curves grow, and the view follows them unless
    // the user moved it.
    const bool grew = m_run && m_run->partialKey == m_key.toStdString();
    m_run = std::move(run);
    if (grew) {
        m_stats->extendRun(m_run);
        if (m_run->partialKey != m_key.toStdString() && !m_run->live) m_stats->setFollowing(false);
    } else {
        m_stats->replaceRun(m_run);
    }
    m_histograms->replaceRun(m_run);
    m_rankMap->setData(m_run, m_key);
    updateFollowControls();
}

void KeyView::setStepCursor(std::int64_t gstep) {
    m_stats->setStepCursor(gstep);
    m_histograms->setStepCursor(gstep);
    m_rankMap->setStepCursor(gstep);
}

void KeyView::openRank(int rank, std::optional<std::int64_t> gstep) {
    m_histograms->setRank(rank);
    StatPlotOptions o = m_stats->options();
    if (o.highlightRank != rank) {
        o.highlightRank = rank;
        m_stats->setOptions(o);
    }
    emit rankSelected(rank);
    if (gstep) {
        setStepCursor(*gstep);
        emit stepSelected(*gstep);
    }
}

void KeyView::setNotes(const std::vector<Note>& notes) {
    m_stats->setNotes(notes);
    m_histograms->setNotes(notes);
    m_rankMap->setNotes(notes);
}

void KeyView::showControls(const StatPlotOptions& o) {
    const QSignalBlocker blocks[] = {QSignalBlocker(m_xAxis),  QSignalBlocker(m_ranks),
                                     QSignalBlocker(m_minMax), QSignalBlocker(m_std),
                                     QSignalBlocker(m_l2),     QSignalBlocker(m_logX),
                                     QSignalBlocker(m_logY),   QSignalBlocker(m_smoothing)};
    m_xAxis->setCurrentIndex(int(o.xAxis));
    m_ranks->setCurrentIndex(o.aggregateRanks ? 1 : 0);
    m_minMax->setChecked(o.minMaxBand);
    m_std->setChecked(o.stdBand);
    m_l2->setChecked(o.showL2);
    m_logX->setChecked(o.logX);
    m_logY->setChecked(o.logY);
    m_smoothing->setValue(o.smoothing);
}

void KeyView::setOptions(const StatPlotOptions& options) {
    showControls(options);
    m_stats->setOptions(options);
}

void KeyView::updateOptions() {
    StatPlotOptions o = m_stats->options();
    o.xAxis = XAxisMode(m_xAxis->currentIndex());
    o.aggregateRanks = m_ranks->currentIndex() == 1;
    o.minMaxBand = m_minMax->isChecked();
    o.stdBand = m_std->isChecked();
    o.showL2 = m_l2->isChecked();
    o.logX = m_logX->isChecked();
    o.logY = m_logY->isChecked();
    o.smoothing = m_smoothing->value();
    m_stats->setOptions(o);
}

void KeyView::updateOutliers() {
    const auto& spread = m_stats->spread();
    if (spread.steps.empty()) {
        m_outliers->hide();
        return;
    }
    QStringList ranks;
    for (const auto& o : spread.outliers)
        ranks << tr("<a href='%1'>rank %1</a> (%2% of steps, from gstep %3)")
                     .arg(o.rank)
                     .arg(qRound(o.share() * 100))
                     .arg(o.firstOutlierStep);
    m_outliers->setText(
        spread.outliers.empty()
            ? tr("No outlier ranks (%1).")
                  .arg(QString::fromStdString(analysis::describeOutlierRule({})).toHtmlEscaped())
            : tr("<b>%n outlier rank(s)</b> of the mean: %1", nullptr, int(spread.outliers.size()))
                  .arg(ranks.join(QStringLiteral(", "))));
    m_outliers->setToolTip(QString::fromStdString(analysis::describeOutlierRule({})) +
                           tr("\nA click opens the rank."));
    m_outliers->show();
}

QJsonObject KeyView::saveState() const {
    const StatPlotOptions& o = m_stats->options();
    QCustomPlot* p = m_stats->plot();
    return {
        {QStringLiteral("x"), QLatin1String(kXModes[int(o.xAxis)])},
        {QStringLiteral("aggregate"), o.aggregateRanks},
        {QStringLiteral("minMax"), o.minMaxBand},
        {QStringLiteral("std"), o.stdBand},
        {QStringLiteral("l2"), o.showL2},
        {QStringLiteral("logX"), o.logX},
        {QStringLiteral("logY"), o.logY},
        {QStringLiteral("smoothing"), o.smoothing},
        {QStringLiteral("highlightRank"), o.highlightRank},
        {QStringLiteral("xRange"), rangeJson(p->xAxis->range())},
        {QStringLiteral("yRange"), rangeJson(p->yAxis->range())},
        {QStringLiteral("y2Range"), rangeJson(p->yAxis2->range())},
        {QStringLiteral("stepCursor"), optionalStep(m_stats->stepCursor())},
        {QStringLiteral("cursorA"), optionalStep(m_stats->cursorAt(Cursor::A))},
        {QStringLiteral("cursorB"), optionalStep(m_stats->cursorAt(Cursor::B))},
        {QStringLiteral("histogramRank"), m_histograms->rank()},
        {QStringLiteral("lowerTab"),
         m_lower->currentIndex() == 1 ? QStringLiteral("ranks") : QStringLiteral("histograms")},
        {QStringLiteral("heatmapField"),
         QLatin1String(analysis::statFieldName(m_rankMap->field()))},
        {QStringLiteral("heatmapDeviation"), m_rankMap->deviation()},
    };
}

void KeyView::restoreState(const QJsonObject& s) {
    StatPlotOptions o = m_stats->options();
    for (int i = 0; i < 3; ++i)
        if (s.value(QStringLiteral("x")).toString() == QLatin1String(kXModes[i]))
            o.xAxis = XAxisMode(i);
    if (s.contains(QStringLiteral("aggregate"))) {
        o.aggregateRanks = s.value(QStringLiteral("aggregate")).toBool();
        m_ranksChosen = true;
    }
    o.minMaxBand = s.value(QStringLiteral("minMax")).toBool(o.minMaxBand);
    o.stdBand = s.value(QStringLiteral("std")).toBool(o.stdBand);
    o.showL2 = s.value(QStringLiteral("l2")).toBool(o.showL2);
    o.logX = s.value(QStringLiteral("logX")).toBool(o.logX);
    o.logY = s.value(QStringLiteral("logY")).toBool(o.logY);
    o.smoothing =
        std::clamp(s.value(QStringLiteral("smoothing")).toDouble(o.smoothing), 0.0, 0.999);
    o.highlightRank = s.value(QStringLiteral("highlightRank")).toInt(-1);
    setOptions(o);
    if (const int rank = s.value(QStringLiteral("histogramRank")).toInt(-1); rank >= 0)
        m_histograms->setRank(rank);
    if (const auto f = analysis::parseStatField(
            s.value(QStringLiteral("heatmapField")).toString().toStdString()))
        m_rankMap->setField(*f);
    if (s.value(QStringLiteral("heatmapDeviation")).toBool()) m_rankMap->setDeviation(true);
    if (s.contains(QStringLiteral("lowerTab"))) {
        m_lower->setCurrentIndex(
            s.value(QStringLiteral("lowerTab")).toString() == QLatin1String("ranks") ? 1 : 0);
        m_lowerChosen = true;
    }
    if (const auto g = stepOf(s.value(QStringLiteral("stepCursor")))) setStepCursor(*g);
    m_stats->setCursorAt(Cursor::A, stepOf(s.value(QStringLiteral("cursorA"))));
    m_stats->setCursorAt(Cursor::B, stepOf(s.value(QStringLiteral("cursorB"))));
    // The zoom last: the options above refit.
    QCustomPlot* p = m_stats->plot();
    const std::pair<QString, QCPAxis*> axes[] = {{QStringLiteral("xRange"), p->xAxis},
                                                 {QStringLiteral("yRange"), p->yAxis},
                                                 {QStringLiteral("y2Range"), p->yAxis2}};
    for (const auto& [name, axis] : axes) {
        const QJsonArray r = s.value(name).toArray();
        if (r.size() == 2 && r[0].isDouble() && r[1].isDouble() &&
            r[1].toDouble() > r[0].toDouble())
            axis->setRange(r[0].toDouble(), r[1].toDouble());
    }
    p->replot(QCustomPlot::rpQueuedReplot);
}

bool KeyView::isBusy() const {
    return m_histograms->isBusy() || m_stats->isBuilding() || m_rankMap->isBuilding();
}

} // namespace xt::widgets
