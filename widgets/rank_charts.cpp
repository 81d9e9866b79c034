#include "widgets/rank_charts.h"

#include "widgets/logic/timeline_geometry.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace xt::widgets {

namespace {

constexpr int kMargin = 6;
constexpr int kBarLabelWidth = 70;

QString duration(double ns) {
    return QString::fromStdString(
        view::formatDuration(static_cast<std::int64_t>(std::llround(ns))));
}

double sum(const std::vector<double>& v) {
    double s = 0;
    for (double x : v)
        s += std::max(0.0, x);
    return s;
}

} // namespace

// ---- RankBarsChart ----

RankBarsChart::RankBarsChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
}

void RankBarsChart::setData(const QString& title, std::vector<Series> series,
                            std::vector<Bar> bars) {
    m_title = title;
    m_series = std::move(series);
    m_bars = std::move(bars);
    updateGeometry();
    update();
}

int RankBarsChart::legendLines() const {
    const QFontMetrics fm = fontMetrics();
    int lines = 1, x = kBarLabelWidth;
    for (const Series& s : m_series) {
        const int w = fm.height() + fm.horizontalAdvance(s.name) + 14;
        if (x + w > width() - kMargin && x > kBarLabelWidth) {
            ++lines;
            x = kBarLabelWidth;
        }
        x += w;
    }
    return lines;
}

QSize RankBarsChart::sizeHint() const {
    const int line = fontMetrics().height();
    return {480, (1 + legendLines()) * line + 3 * kMargin + int(m_bars.size()) * (line + 6)};
}

QSize RankBarsChart::minimumSizeHint() const {
    return {240, 3 * fontMetrics().height() + 3 * kMargin};
}

QRectF RankBarsChart::barArea(int bar) const {
    const int line = fontMetrics().height();
    const int top = (1 + legendLines()) * line + 3 * kMargin;
    const double h = std::clamp((height() - top - kMargin) / std::max<double>(1, m_bars.size()),
                                6.0, double(line + 8));
    return QRectF(kBarLabelWidth, top + bar * h + 1, width() - kBarLabelWidth - kMargin, h - 2);
}

QRectF RankBarsChart::segmentRect(int bar, int series) const {
    if (bar < 0 || bar >= int(m_bars.size()) || series < 0 || series >= int(m_series.size()))
        return {};
    const auto& v = m_bars[std::size_t(bar)].values;
    const double total = sum(v);
    if (total <= 0) return {};
    const QRectF area = barArea(bar);
    double x = area.left();
    for (int s = 0; s < series && s < int(v.size()); ++s)
        x += area.width() * std::max(0.0, v[std::size_t(s)]) / total;
    const double w =
        series < int(v.size()) ? area.width() * std::max(0.0, v[std::size_t(series)]) / total : 0.0;
    return QRectF(x, area.top(), w, area.height());
}

void RankBarsChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height();
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().text().color());
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, line), Qt::AlignLeft, m_title);
    p.setFont(font());
    // Legend, wrapped like legendLines().
    int x = kBarLabelWidth;
    int ly = 2 * kMargin + line;
    for (const Series& s : m_series) {
        const int w = line + fm.horizontalAdvance(s.name) + 14;
        if (x + w > width() - kMargin && x > kBarLabelWidth) {
            x = kBarLabelWidth;
            ly += line;
        }
        p.fillRect(QRect(x, ly + 2, line - 4, line - 4), s.colour);
        p.drawText(QPoint(x + line, ly + fm.ascent()), s.name);
        x += w;
    }
    if (m_bars.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("no ranks"));
        return;
    }
    // Labels of every k-th bar when the bars are thinner than a line of text.
    const int labelEvery = std::max(1, int(std::ceil(line / (barArea(0).height() + 2))));
    for (int b = 0; b < int(m_bars.size()); ++b) {
        const QRectF area = barArea(b);
        p.setPen(palette().text().color());
        if (b % labelEvery == 0)
            p.drawText(
                QRectF(kMargin, area.center().y() - line / 2.0, kBarLabelWidth - 2 * kMargin, line),
                Qt::AlignVCenter | Qt::AlignRight, m_bars[std::size_t(b)].label);
        const double total = sum(m_bars[std::size_t(b)].values);
        if (total <= 0) {
            p.setPen(Qt::gray);
            p.drawText(area, Qt::AlignVCenter | Qt::AlignLeft, tr("  no GPU time"));
            continue;
        }
        for (int s = 0; s < int(m_series.size()); ++s) {
            const QRectF r = segmentRect(b, s);
            if (r.width() <= 0) continue;
            p.fillRect(r, m_series[std::size_t(s)].colour);
            const double share = 100.0 * m_bars[std::size_t(b)].values[std::size_t(s)] / total;
            const QString label = QStringLiteral("%1%").arg(share, 0, 'f', 1);
            if (fm.horizontalAdvance(label) + 4 < r.width() && r.height() >= line - 2) {
                p.setPen(m_series[std::size_t(s)].colour.lightness() < 140 ? Qt::white : Qt::black);
                p.drawText(r, Qt::AlignCenter, label);
            }
        }
    }
}

bool RankBarsChart::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        const QPoint pos = static_cast<QHelpEvent*>(e)->pos();
        for (int b = 0; b < int(m_bars.size()); ++b)
            for (int s = 0; s < int(m_series.size()); ++s)
                if (segmentRect(b, s).contains(pos)) {
                    const Bar& bar = m_bars[std::size_t(b)];
                    const double v = bar.values[std::size_t(s)];
                    QToolTip::showText(
                        static_cast<QHelpEvent*>(e)->globalPos(),
                        QStringLiteral("%1: %2 %3 (%4%)")
                            .arg(bar.label, m_series[std::size_t(s)].name, duration(v))
                            .arg(100.0 * v / sum(bar.values), 0, 'f', 2),
                        this);
                    return true;
                }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

// ---- RankHeatmap ----

RankHeatmap::RankHeatmap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setCursor(Qt::PointingHandCursor);
}

void RankHeatmap::setData(const QString& title, QStringList rows, QStringList columns,
                          std::vector<std::vector<double>> values, bool relative) {
    m_title = title;
    m_rows = std::move(rows);
    m_columns = std::move(columns);
    m_values = std::move(values);
    m_relative = relative;
    m_marked.assign(std::size_t(m_columns.size()), -1);
    m_columnMin.assign(std::size_t(m_columns.size()), 0.0);
    for (std::size_t c = 0; c < m_columnMin.size(); ++c) {
        double lo = std::nan("");
        for (const auto& row : m_values)
            if (c < row.size() && !std::isnan(row[c]))
                lo = std::isnan(lo) ? row[c] : std::min(lo, row[c]);
        m_columnMin[c] = std::isnan(lo) ? 0.0 : lo;
    }
    bool any = false;
    for (const auto& row : m_values)
        for (std::size_t c = 0; c < row.size(); ++c)
            if (!std::isnan(row[c])) {
                const double v = m_relative ? row[c] - m_columnMin[c] : row[c];
                m_min = any ? std::min(m_min, v) : v;
                m_max = any ? std::max(m_max, v) : v;
                any = true;
            }
    if (!any) m_min = m_max = 0;
    if (m_relative) m_min = 0;
    updateGeometry();
    update();
}

void RankHeatmap::setMarked(std::vector<int> rowPerColumn) {
    m_marked = std::move(rowPerColumn);
    m_marked.resize(std::size_t(m_columns.size()), -1);
    update();
}

double RankHeatmap::value(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 ||
        std::size_t(column) >= m_values[std::size_t(row)].size())
        return std::nan("");
    return m_values[std::size_t(row)][std::size_t(column)];
}

int RankHeatmap::labelWidth() const {
    int w = 40;
    for (const QString& r : m_rows)
        w = std::max(w, fontMetrics().horizontalAdvance(r) + 2 * kMargin);
    return w;
}
int RankHeatmap::headerHeight() const {
    return 2 * fontMetrics().height() + 2 * kMargin;
}
int RankHeatmap::cellHeight() const {
    return fontMetrics().height() + 8;
}
double RankHeatmap::cellWidth() const {
    if (m_columns.isEmpty()) return 0;
    return std::max(4.0, double(width() - labelWidth() - kMargin) / double(m_columns.size()));
}

QSize RankHeatmap::sizeHint() const {
    return {std::max(400, labelWidth() + int(m_columns.size()) * 48),
            headerHeight() + int(m_rows.size()) * cellHeight() + kMargin};
}

QSize RankHeatmap::minimumSizeHint() const {
    return {labelWidth() + int(m_columns.size()) * 4 + kMargin,
            headerHeight() + int(m_rows.size()) * cellHeight() + kMargin};
}

QRect RankHeatmap::cellRect(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return {};
    const double w = cellWidth();
    const int x0 = labelWidth() + int(std::floor(column * w));
    const int x1 = labelWidth() + int(std::floor((column + 1) * w));
    return QRect(x0, headerHeight() + row * cellHeight(), x1 - x0, cellHeight());
}

QColor RankHeatmap::cellColour(int row, int column) const {
    double v = value(row, column);
    if (std::isnan(v)) return QColor(0xee, 0xee, 0xee);
    if (m_relative) v -= m_columnMin[std::size_t(column)];
    const double t = m_max > m_min ? (v - m_min) / (m_max - m_min) : 0.0;
    // Light yellow to orange to dark red.
    const QColor a(0xff, 0xf7, 0xd9), b(0xfd, 0x8d, 0x3c), c(0xa5, 0x00, 0x26);
    auto mix = [](const QColor& x, const QColor& y, double f) {
        return QColor::fromRgbF(float(x.redF() + (y.redF() - x.redF()) * f),
                                float(x.greenF() + (y.greenF() - x.greenF()) * f),
                                float(x.blueF() + (y.blueF() - x.blueF()) * f));
    };
    return t < 0.5 ? mix(a, b, t * 2) : mix(b, c, (t - 0.5) * 2);
}

std::pair<int, int> RankHeatmap::cellAt(QPoint p) const {
    if (p.x() < labelWidth() || p.y() < headerHeight() || m_columns.isEmpty()) return {-1, -1};
    const int row = (p.y() - headerHeight()) / cellHeight();
    const int column = int((p.x() - labelWidth()) / cellWidth());
    if (row >= rowCount() || column >= columnCount()) return {-1, -1};
    return {row, column};
}

void RankHeatmap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm = fontMetrics();
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().text().color());
    QString range;
    if (m_relative && m_max > 0)
        range = tr("   (colour: time over the step's fastest rank, 0 to %1)").arg(duration(m_max));
    else if (m_max > 0)
        range = tr("   (%1 to %2)").arg(duration(m_min), duration(m_max));
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, fm.height()), Qt::AlignLeft,
               m_title + range);
    p.setFont(font());
    if (m_rows.isEmpty() || m_columns.isEmpty()) {
        p.drawText(rect().adjusted(0, headerHeight(), 0, 0), Qt::AlignHCenter | Qt::AlignTop,
                   tr("no steps (no ProfilerStep markers)"));
        return;
    }
    // Column labels where they fit, every k-th otherwise.
    const double w = cellWidth();
    int every = 1;
    int widest = 0;
    for (const QString& c : m_columns)
        widest = std::max(widest, fm.horizontalAdvance(c));
    while (every * w < widest + 6 && every < columnCount())
        every *= 2;
    const int labelsTop = kMargin + fm.height() + kMargin / 2;
    for (int c = 0; c < columnCount(); c += every) {
        const QRect cell = cellRect(0, c);
        p.drawText(QRect(cell.left(), labelsTop, int(w * every), fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, m_columns[c]);
    }
    for (int r = 0; r < rowCount(); ++r) {
        const QRect first = cellRect(r, 0);
        p.setPen(palette().text().color());
        p.drawText(QRect(kMargin, first.top(), labelWidth() - 2 * kMargin, first.height()),
                   Qt::AlignRight | Qt::AlignVCenter, m_rows[r]);
        for (int c = 0; c < columnCount(); ++c) {
            const QRect cell = cellRect(r, c);
            const QColor colour = cellColour(r, c);
            p.fillRect(cell.adjusted(0, 0, w >= 6 ? -1 : 0, -1), colour);
            const double v = value(r, c);
            if (std::isnan(v)) continue;
            const QString text = duration(v);
            if (fm.horizontalAdvance(text) + 4 < cell.width()) {
                p.setPen(colour.lightness() < 130 ? Qt::white : Qt::black);
                p.drawText(cell, Qt::AlignCenter, text);
            }
        }
    }
    // Outline the marked cell of each column.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
    for (int c = 0; c < columnCount() && c < int(m_marked.size()); ++c)
        if (m_marked[std::size_t(c)] >= 0)
            p.drawRect(cellRect(m_marked[std::size_t(c)], c).adjusted(1, 1, -2, -2));
}

void RankHeatmap::mouseReleaseEvent(QMouseEvent* e) {
    const auto [row, column] = cellAt(e->pos());
    if (e->button() == Qt::LeftButton && row >= 0) emit cellActivated(row, column);
}

bool RankHeatmap::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const auto [row, column] = cellAt(he->pos());
        if (row < 0) {
            QToolTip::hideText();
            return true;
        }
        const double v = value(row, column);
        QToolTip::showText(
            he->globalPos(),
            QStringLiteral("%1, %2: %3%4")
                .arg(m_rows[row], m_columns[column],
                     std::isnan(v) ? tr("no such step") : duration(v),
                     m_marked.size() > std::size_t(column) && m_marked[std::size_t(column)] == row
                         ? tr(" (slowest)")
                         : QString()),
            this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace xt::widgets
