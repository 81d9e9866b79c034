#include "widgets/key_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

namespace xt::widgets {

using view::XAxisMode;

KeyView::KeyView(QWidget* parent)
    : QWidget(parent), m_stats(new StatPlot(this)), m_histograms(new HistogramView(this)),
      m_xAxis(new QComboBox(this)), m_ranks(new QComboBox(this)),
      m_minMax(new QCheckBox(tr("min-max"), this)), m_std(new QCheckBox(tr("\u00b1 std"), this)),
      m_l2(new QCheckBox(tr("L2 norm"), this)), m_logY(new QCheckBox(tr("log y"), this)),
      m_smoothing(new QDoubleSpinBox(this)), m_follow(new QToolButton(this)),
      m_paused(new QLabel(this)) {
    m_xAxis->addItems({tr("global step"), tr("local step"), tr("wall time")});
    m_ranks->addItems({tr("ranks overlaid"), tr("ranks aggregated")});
    m_minMax->setChecked(true);
    m_std->setChecked(true);
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
    bar->addWidget(m_logY);
    bar->addWidget(new QLabel(tr("smoothing:"), this));
    bar->addWidget(m_smoothing);
    bar->addStretch(1);
    bar->addWidget(m_paused);
    bar->addWidget(m_follow);
    bar->addWidget(reset);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_stats);
    split->addWidget(m_histograms);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    for (QCheckBox* c : {m_minMax, m_std, m_l2, m_logY})
        connect(c, &QCheckBox::toggled, this, &KeyView::updateOptions);
    connect(m_xAxis, &QComboBox::activated, this, &KeyView::updateOptions);
    connect(m_ranks, &QComboBox::activated, this, [this] {
        m_ranksChosen = true;
        updateOptions();
    });
    connect(m_smoothing, &QDoubleSpinBox::valueChanged, this, &KeyView::updateOptions);
    connect(reset, &QToolButton::clicked, m_stats, &StatPlot::resetZoom);
    connect(m_follow, &QToolButton::toggled, m_stats, &StatPlot::setFollowing);
    connect(m_stats, &StatPlot::followingChanged, this, &KeyView::updateFollowControls);
    connect(m_stats, &StatPlot::stepSelected, this, &KeyView::stepSelected);
    connect(m_histograms, &HistogramView::stepSelected, this, &KeyView::stepSelected);
}

void KeyView::setData(RunSnapshot run, const QString& key) {
    m_run = std::move(run);
    m_key = key;
    // Many ranks are drawn aggregated unless the user chose otherwise.
    if (!m_ranksChosen && m_run) {
        const bool many = m_run->reader->ranks().size() > std::size_t(StatPlot::kLegendRanks);
        if ((m_ranks->currentIndex() == 1) != many) {
            m_ranks->setCurrentIndex(many ? 1 : 0);
            StatPlotOptions o = m_stats->options();
            o.aggregateRanks = many;
            m_stats->setOptionsQuietly(o);
        }
    }
    m_stats->setData(m_run, key);
    m_histograms->setData(m_run, key);
    m_stats->setFollowing(m_run && m_run->live); // on by default for a live run
    updateFollowControls();
}

void KeyView::extendRun(RunSnapshot run) {
    m_run = std::move(run);
    m_stats->extendRun(m_run);
    m_histograms->extendRun(m_run);
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
}

void KeyView::replaceRun(RunSnapshot run) {
    m_run = std::move(run);
    m_stats->replaceRun(m_run);
    m_histograms->replaceRun(m_run);
}

void KeyView::setStepCursor(std::int64_t gstep) {
    m_stats->setStepCursor(gstep);
    m_histograms->setStepCursor(gstep);
}

void KeyView::updateOptions() {
    StatPlotOptions o = m_stats->options();
    o.xAxis = XAxisMode(m_xAxis->currentIndex());
    o.aggregateRanks = m_ranks->currentIndex() == 1;
    o.minMaxBand = m_minMax->isChecked();
    o.stdBand = m_std->isChecked();
    o.showL2 = m_l2->isChecked();
    o.logY = m_logY->isChecked();
    o.smoothing = m_smoothing->value();
    m_stats->setOptions(o);
}

} // namespace xt::widgets
