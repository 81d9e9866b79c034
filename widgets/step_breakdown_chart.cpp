#include "widgets/step_breakdown_chart.h"

#include "widgets/axis_ticks.h"
#include "widgets/plot_widget.h"
#include "widgets/trace_time_format.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace xt::widgets {

using timeline::kStepCategoryCount;
using timeline::StepBreakdown;
using timeline::StepCategory;

namespace {
constexpr double kBarWidth = 0.7;
constexpr int kMaxBarLabels = 40;

class NumericItem : public QTableWidgetItem {
public:
    NumericItem(const QString& text, double key) : QTableWidgetItem(text) {
        setData(Qt::UserRole, key);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& o) const override {
        return data(Qt::UserRole).toDouble() < o.data(Qt::UserRole).toDouble();
    }
};

double share(const StepBreakdown& s) {
    const auto d = s.end - s.start;
    return d > 0 ? double(s.ns[std::size_t(s.bottleneck)]) / double(d) : 0.0;
}
} // namespace

QColor StepBreakdownChart::categoryColor(StepCategory c) {
    switch (c) {
    case StepCategory::DeviceCompute:
        return QColor(0x2c, 0xa0, 0x2c);
    case StepCategory::DeviceCollectives:
        return QColor(0x94, 0x67, 0xbd);
    case StepCategory::Memcpy:
        return QColor(0xff, 0x7f, 0x0e);
    case StepCategory::KernelLaunch:
        return QColor(0xd6, 0x27, 0x28);
    case StepCategory::HostCompute:
        return QColor(0x1f, 0x77, 0xb4);
    case StepCategory::Other:
        return QColor(0x8c, 0x56, 0x4b);
    case StepCategory::Idle:
        return QColor(0xb0, 0xb0, 0xb0);
    }
    return Qt::black;
}

QString StepBreakdownChart::categoryLabel(StepCategory c) {
    switch (c) {
    case StepCategory::DeviceCompute:
        return tr("Device compute");
    case StepCategory::DeviceCollectives:
        return tr("Collectives");
    case StepCategory::Memcpy:
        return tr("Memcpy");
    case StepCategory::KernelLaunch:
        return tr("Kernel launch");
    case StepCategory::HostCompute:
        return tr("Host compute");
    case StepCategory::Other:
        return tr("Other");
    case StepCategory::Idle:
        return tr("Idle");
    }
    return {};
}

StepBreakdownChart::StepBreakdownChart(QWidget* parent)
    : QWidget(parent), m_prefix(new QLineEdit(QStringLiteral("ProfilerStep#"), this)),
      m_stack(new QStackedWidget(this)), m_plot(new PlotWidget), m_table(new QTableWidget),
      m_message(new QLabel), m_status(new QLabel(this)), m_jobs(new JobTracker(this)) {
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Step marker prefix:"), this));
    top->addWidget(m_prefix, 1);
    top->addWidget(m_status);

    m_plot->setMinimumHeight(160);
    adaptTicks(m_plot);
    m_plot->yAxis->setLabel(tr("ms"));
    m_plot->xAxis->grid()->setVisible(false);
    // The legend in one row under the axis rect, so it never hides a bar.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->axisRect()->insetLayout()->simplify();
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { m_pressPos = e->pos(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, &StepBreakdownChart::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseMove, this, &StepBreakdownChart::onMouseMove);

    m_table->setColumnCount(4);
    m_table->setHorizontalHeaderLabels({tr("Step"), tr("Duration"), tr("Bottleneck"), tr("Share")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const int i = m_table->item(row, 0)->data(Qt::UserRole).toInt();
        if (i >= 0 && i < int(m_steps.size()))
            emit stepActivated(m_steps[std::size_t(i)].start, m_steps[std::size_t(i)].end);
    });

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_plot);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_stack->addWidget(split);
    m_stack->addWidget(m_message);

    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(2, 2, 2, 2);
    lay->addLayout(top);
    lay->addWidget(m_stack, 1);

    connect(m_prefix, &QLineEdit::editingFinished, this, [this] {
        if (m_prefix->text() != m_computedPrefix) recompute();
    });
    display({});
}

void StepBreakdownChart::setStore(std::shared_ptr<const timeline::TraceStore> store) {
    m_store = std::move(store);
    recompute();
}

void StepBreakdownChart::setMarkerPrefix(const QString& prefix) {
    m_prefix->setText(prefix);
    recompute();
}

QString StepBreakdownChart::markerPrefix() const {
    return m_prefix->text();
}

QString StepBreakdownChart::message() const {
    return m_stack->currentWidget() == m_message ? m_message->text() : QString();
}

QString StepBreakdownChart::barLabel(int index) const {
    return index >= 0 && index < int(m_barLabels.size()) ? m_barLabels[std::size_t(index)]
                                                         : QString();
}

void StepBreakdownChart::recompute() {
    if (!m_store) {
        m_jobs->cancel();
        display({});
        return;
    }
    timeline::StepOptions o;
    o.markerPrefix = m_prefix->text().toStdString();
    auto store = m_store;
    m_computedPrefix = m_prefix->text();
    if (store->sliceCount() <= m_backgroundSlices) {
        m_jobs->cancel();
        display(timeline::stepBreakdown(*store, o));
        return;
    }
    m_status->setText(tr("computing..."));
    m_jobs->startJob(
        [store, o](JobContext& ctx) {
            ctx.setStage(QStringLiteral("step breakdown"));
            return timeline::stepBreakdown(*store, o);
        },
        [this](std::vector<StepBreakdown> steps) { display(std::move(steps)); });
}

void StepBreakdownChart::display(std::vector<StepBreakdown> steps) {
    m_steps = std::move(steps);
    m_barLabels.assign(m_steps.size(), QString());
    m_status->clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_table->setSortingEnabled(false);
    m_table->setRowCount(0);
    if (m_steps.empty()) {
        m_message->setText(
            !m_store ? tr("No trace.")
                     : tr("No step markers: no slice name starts with \"%1\". Profile with "
                          "torch.profiler's schedule (ProfilerStep#N) or enter another prefix.")
                           .arg(m_prefix->text()));
        m_stack->setCurrentWidget(m_message);
        emit stepsReady();
        return;
    }
    m_stack->setCurrentWidget(m_stack->widget(0));

    const int n = int(m_steps.size());
    QVector<double> keys(n);
    for (int i = 0; i < n; ++i)
        keys[i] = i;
    QCPBars* below = nullptr;
    for (std::size_t c = 0; c < kStepCategoryCount; ++c) {
        const auto cat = static_cast<StepCategory>(c);
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(categoryLabel(cat));
        bars->setBrush(categoryColor(cat));
        bars->setPen(QPen(categoryColor(cat).darker(130)));
        bars->setWidth(kBarWidth);
        bars->setStackingGap(0);
        QVector<double> values(n);
        for (int i = 0; i < n; ++i)
            values[i] = double(m_steps[std::size_t(i)].ns[c]) / 1e6;
        bars->setData(keys, values, true);
        if (below) bars->moveAbove(below);
        below = bars;
    }

    // Step names as tick labels; every k-th one when there are many.
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int every = std::max(1, n / 24);
    for (int i = 0; i < n; i += every)
        ticker->addTick(i, QString::fromStdString(m_steps[std::size_t(i)].name));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setTickLabelRotation(n > 8 ? 45 : 0);
    m_plot->xAxis->setRange(-0.6, n - 0.4);
    double maxMs = 0;
    for (const auto& s : m_steps)
        maxMs = std::max(maxMs, double(s.end - s.start) / 1e6);
    m_plot->yAxis->setRange(0, maxMs > 0 ? maxMs * 1.18 : 1);

    for (int i = 0; i < n; ++i) {
        const StepBreakdown& s = m_steps[std::size_t(i)];
        m_barLabels[std::size_t(i)] = QStringLiteral("%1 %2%")
                                          .arg(categoryLabel(s.bottleneck))
                                          .arg(share(s) * 100, 0, 'f', 0);
        if (n > kMaxBarLabels) continue;
        auto* t = new QCPItemText(m_plot);
        t->position->setType(QCPItemPosition::ptPlotCoords);
        t->position->setCoords(i, double(s.end - s.start) / 1e6);
        t->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
        t->setText(m_barLabels[std::size_t(i)]);
        t->setColor(categoryColor(s.bottleneck).darker(150));
        t->setClipToAxisRect(true);
    }
    m_plot->replot();

    m_table->setRowCount(n);
    for (int i = 0; i < n; ++i) {
        const StepBreakdown& s = m_steps[std::size_t(i)];
        auto* name = new NumericItem(QString::fromStdString(s.name), i);
        name->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        m_table->setItem(i, 0, name);
        m_table->setItem(
            i, 1,
            new NumericItem(formatTraceDuration(double(s.end - s.start)), double(s.end - s.start)));
        auto* b = new QTableWidgetItem(categoryLabel(s.bottleneck));
        b->setForeground(categoryColor(s.bottleneck).darker(130));
        m_table->setItem(i, 2, b);
        m_table->setItem(
            i, 3, new NumericItem(QStringLiteral("%1%").arg(share(s) * 100, 0, 'f', 1), share(s)));
    }
    m_table->setSortingEnabled(true);
    emit stepsReady();
}

QPoint StepBreakdownChart::barCenter(int index) const {
    if (index < 0 || index >= int(m_steps.size())) return {};
    const auto& s = m_steps[std::size_t(index)];
    return QPoint(int(m_plot->xAxis->coordToPixel(index)),
                  int(m_plot->yAxis->coordToPixel(double(s.end - s.start) / 2e6)));
}

int StepBreakdownChart::stepAt(const QPoint& pos) const {
    if (m_steps.empty() || !m_plot->axisRect()->rect().contains(pos)) return -1;
    const double x = m_plot->xAxis->pixelToCoord(pos.x());
    const double y = m_plot->yAxis->pixelToCoord(pos.y());
    const long i = std::lround(x);
    if (i < 0 || i >= long(m_steps.size()) || std::abs(x - double(i)) > kBarWidth / 2) return -1;
    const auto& s = m_steps[std::size_t(i)];
    return y >= 0 && y <= double(s.end - s.start) / 1e6 ? int(i) : -1;
}

void StepBreakdownChart::onMouseMove(QMouseEvent* e) {
    const int i = stepAt(e->pos());
    if (i < 0) {
        QToolTip::hideText();
        return;
    }
    const StepBreakdown& s = m_steps[std::size_t(i)];
    const double d = double(s.end - s.start);
    QString tip = QStringLiteral("<b>%1</b> %2<br>bottleneck: %3<table>")
                      .arg(QString::fromStdString(s.name).toHtmlEscaped(), formatTraceDuration(d),
                           m_barLabels[std::size_t(i)]);
    for (std::size_t c = 0; c < kStepCategoryCount; ++c) {
        if (s.ns[c] == 0) continue;
        tip += QStringLiteral("<tr><td><font color='%1'>&#9632;</font> %2</td><td align=right>%3"
                              "</td><td align=right>%4%</td></tr>")
                   .arg(categoryColor(StepCategory(c)).name(), categoryLabel(StepCategory(c)),
                        formatTraceDuration(double(s.ns[c])))
                   .arg(d > 0 ? double(s.ns[c]) / d * 100 : 0.0, 0, 'f', 1);
    }
    tip += QStringLiteral("</table>");
    QToolTip::showText(e->globalPosition().toPoint(), tip, m_plot);
}

void StepBreakdownChart::onMouseRelease(QMouseEvent* e) {
    if ((e->pos() - m_pressPos).manhattanLength() > 4) return;
    const int i = stepAt(e->pos());
    if (i >= 0) emit stepActivated(m_steps[std::size_t(i)].start, m_steps[std::size_t(i)].end);
}

} // namespace xt::widgets
