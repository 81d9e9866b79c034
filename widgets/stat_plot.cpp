#include "widgets/stat_plot.h"

#include "widgets/axis_ticks.h"
#include "widgets/plot_palette.h"
#include "widgets/text_format.h"

#include <QApplication>
#include <QKeyEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace xt::widgets {

using view::decimateMinMax;
using view::emaDebiased;
using view::visibleSlice;
using view::XAxisMode;
using view::xOf;
using view::XYSeries;

namespace {

QColor rankColor(int i) {
    static const QColor kColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                                     QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
                                     QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2),
                                     QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22),
                                     QColor(0x17, 0xbe, 0xcf), QColor(0xd6, 0x27, 0x28)};
    return kColors[std::size_t(i) % std::size(kColors)];
}

QColor withAlpha(QColor c, int a) {
    c.setAlpha(a);
    return c;
}

bool onRightAxis(analysis::StatField f) {
    using F = analysis::StatField;
    return !(f == F::Min || f == F::Max || f == F::Mean || f == F::Std);
}

QString xLabel(XAxisMode m) {
    switch (m) {
    case XAxisMode::Gstep:
        return QObject::tr("global step");
    case XAxisMode::Lstep:
        return QObject::tr("local step");
    case XAxisMode::WallTime:
        return QObject::tr("wall time (UTC)");
    }
    return {};
}

} // namespace

StatPlot::StatPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    adaptTicks(m_plot);
    setFocusPolicy(Qt::StrongFocus);
    m_plot->setFocusPolicy(Qt::NoFocus);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    // Legend entries are added one by one (addLine): with hundreds of ranks, adding every
    // graph and removing most again costs seconds.
    m_plot->setAutoAddPlottableToLegend(false);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->setNoAntialiasingOnDrag(true);

    auto makeLine = [this](QColor c, Qt::PenStyle style) {
        auto* l = new QCPItemStraightLine(m_plot);
        l->setPen(QPen(c, 1, style));
        l->setVisible(false);
        l->setSelectable(false);
        return l;
    };
    m_cursor = makeLine(QColor(0xff, 0x8c, 0x00), Qt::SolidLine);
    m_cursor->setPen(QPen(QColor(0xff, 0x8c, 0x00), 1.5));
    m_crossV = makeLine(QColor(128, 128, 128), Qt::DotLine);
    m_crossH = makeLine(QColor(128, 128, 128), Qt::DotLine);

    m_decimateTimer.setSingleShot(true);
    m_decimateTimer.setInterval(30);
    connect(&m_decimateTimer, &QTimer::timeout, this, &StatPlot::redecimate);
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this] { m_decimateTimer.start(); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &StatPlot::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &StatPlot::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &StatPlot::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseWheel, this, &StatPlot::userMovedView);
    applyPalette();
}

void StatPlot::setData(RunSnapshot run, const QString& key) {
    m_run = std::move(run);
    m_key = key;
    rebuild();
    resetZoom();
}

void StatPlot::setOptions(const StatPlotOptions& options) {
    const bool refit = options.xAxis != m_options.xAxis || options.logY != m_options.logY ||
                       options.aggregateRanks != m_options.aggregateRanks ||
                       options.showL2 != m_options.showL2;
    m_options = options;
    rebuild();
    if (refit)
        resetZoom();
    else
        redecimate();
}

const XYSeries* StatPlot::lineData(const QString& name) const {
    for (const auto& l : m_lines)
        if (l.graph->name() == name) return &l.data;
    return nullptr;
}

QCPGraph* StatPlot::addLine(const QString& name, XYSeries data, const QPen& pen, bool rightAxis,
                            bool inLegend) {
    QCPGraph* g = m_plot->addGraph(m_plot->xAxis, rightAxis ? m_plot->yAxis2 : m_plot->yAxis);
    g->setName(name);
    if (inLegend) g->addToLegend();
    g->setPen(pen);
    g->setAdaptiveSampling(false); // decimation is ours, spike-preserving
    m_lines.push_back({g, std::move(data)});
    return g;
}

void StatPlot::selectSeries() {
    m_series =
        m_run ? m_run->seriesOf(m_key.toStdString()) : std::vector<const analysis::KeySeries*>{};
    if (m_options.rank >= 0)
        std::erase_if(m_series, [&](const auto* s) { return s->rank != m_options.rank; });
}

void StatPlot::replaceRun(RunSnapshot run) {
    m_run = std::move(run);
    selectSeries();
}

void StatPlot::extendRun(RunSnapshot run) {
    const QCPRange x = m_plot->xAxis->range(), y = m_plot->yAxis->range(),
                   y2 = m_plot->yAxis2->range();
    m_run = std::move(run);
    rebuild();
    if (m_cursorStep) setStepCursor(*m_cursorStep);
    if (m_following) {
        resetZoom();
        return;
    }
    m_plot->xAxis->setRange(x);
    m_plot->yAxis->setRange(y);
    m_plot->yAxis2->setRange(y2);
    redecimate();
}

void StatPlot::setFollowing(bool on) {
    if (on == m_following) return;
    m_following = on;
    if (on) resetZoom();
    emit followingChanged(on);
}

void StatPlot::userMovedView() {
    setFollowing(false);
}

void StatPlot::rebuild() {
    m_plot->clearGraphs();
    m_lines.clear();
    selectSeries();
    const XAxisMode xMode = m_options.aggregateRanks ? XAxisMode::Gstep : m_options.xAxis;
    bool right = false;

    auto bandPen = QPen(Qt::NoPen);
    auto addBand = [&](const QString& base, XYSeries lo, XYSeries hi, QColor c, int alpha) {
        QCPGraph* gl =
            addLine(base + QStringLiteral(" lower"), std::move(lo), bandPen, false, false);
        QCPGraph* gh =
            addLine(base + QStringLiteral(" upper"), std::move(hi), bandPen, false, false);
        gh->setBrush(withAlpha(c, alpha));
        gh->setChannelFillGraph(gl);
    };
    // Beyond kLegendRanks ranks, the legend names the first ones and counts the rest.
    bool inLegend = true;
    auto addMeanLine = [&](const QString& base, const XYSeries& raw, QColor c) {
        if (m_options.smoothing > 0) {
            addLine(base + QStringLiteral(" mean"), raw, QPen(withAlpha(c, 70), 1), false, false);
            XYSeries s{raw.x, emaDebiased(raw.y, m_options.smoothing)};
            addLine(base + QStringLiteral(" mean (EMA %1)").arg(m_options.smoothing), std::move(s),
                    QPen(c, 2), false, inLegend);
        } else {
            addLine(base + QStringLiteral(" mean"), raw, QPen(c, 1.6), false, inLegend);
        }
    };

    if (m_options.aggregateRanks && m_series.size() > 1) {
        using analysis::StatField;
        auto agg = [&](StatField f) {
            return analysis::aggregateSteps(m_run->series, m_key.toStdString(), f);
        };
        const QColor c = rankColor(0);
        const auto means = agg(StatField::Mean);
        XYSeries mean, lo, hi;
        for (const auto& a : means) {
            if (a.ranks == 0) continue;
            mean.x.push_back(double(a.gstep));
            mean.y.push_back(a.mean);
            lo.x.push_back(double(a.gstep));
            lo.y.push_back(a.min);
            hi.x.push_back(double(a.gstep));
            hi.y.push_back(a.max);
        }
        if (m_options.minMaxBand) {
            XYSeries mn, mx;
            for (const auto& a : agg(StatField::Min))
                if (a.ranks) {
                    mn.x.push_back(double(a.gstep));
                    mn.y.push_back(a.min);
                }
            for (const auto& a : agg(StatField::Max))
                if (a.ranks) {
                    mx.x.push_back(double(a.gstep));
                    mx.y.push_back(a.max);
                }
            addBand(QStringLiteral("all ranks min-max"), std::move(mn), std::move(mx), c, 30);
        }
        if (m_options.showMean) {
            addBand(QStringLiteral("rank spread of mean"), std::move(lo), std::move(hi), c, 80);
            addMeanLine(QStringLiteral("all ranks"), mean, c);
        }
        if (m_options.showL2) {
            XYSeries l2;
            for (const auto& a : agg(StatField::L2))
                if (a.ranks) {
                    l2.x.push_back(double(a.gstep));
                    l2.y.push_back(a.mean);
                }
            addLine(QStringLiteral("all ranks l2"), std::move(l2),
                    QPen(QColor(0xd6, 0x27, 0x28), 1.4, Qt::DashLine), true);
            right = true;
        }
        for (auto f : m_options.lines) {
            XYSeries s;
            for (const auto& a : agg(f))
                if (a.ranks) {
                    s.x.push_back(double(a.gstep));
                    s.y.push_back(a.mean);
                }
            right |= onRightAxis(f);
            addLine(QStringLiteral("all ranks ") + QString::fromUtf8(analysis::statFieldName(f)),
                    std::move(s), QPen(rankColor(int(f) + 1), 1.4), onRightAxis(f));
        }
    } else {
        int colorIndex = 0;
        for (const auto* series : m_series) {
            inLegend = colorIndex < kLegendRanks;
            const QColor c = rankColor(colorIndex++);
            const QString base = QStringLiteral("rank %1").arg(series->rank);
            XYSeries mean, mn, mx, sLo, sHi, l2;
            for (const auto& r : series->records) {
                if (!r.stats.hasFinite()) continue;
                const double x = xOf(r, xMode);
                mean.x.push_back(x);
                mean.y.push_back(r.stats.mean);
                mn.y.push_back(r.stats.min);
                mx.y.push_back(r.stats.max);
                sLo.y.push_back(r.stats.mean - r.stats.std);
                sHi.y.push_back(r.stats.mean + r.stats.std);
                l2.y.push_back(r.stats.l2);
            }
            mn.x = sLo.x = sHi.x = mx.x = l2.x = mean.x;
            if (m_options.minMaxBand)
                addBand(base + QStringLiteral(" min-max"), std::move(mn), std::move(mx), c, 35);
            if (m_options.stdBand)
                addBand(base + QStringLiteral(" std"), std::move(sLo), std::move(sHi), c, 70);
            if (m_options.showMean) addMeanLine(base, mean, c);
            if (m_options.showL2) {
                addLine(base + QStringLiteral(" l2"), std::move(l2), QPen(c, 1.2, Qt::DashLine),
                        true, inLegend);
                right = true;
            }
            for (auto f : m_options.lines) {
                XYSeries s;
                for (const auto& r : series->records)
                    if (auto v = analysis::statValue(r.stats, f)) {
                        s.x.push_back(xOf(r, xMode));
                        s.y.push_back(*v);
                    }
                right |= onRightAxis(f);
                QPen pen(m_series.size() > 1 ? c : rankColor(int(f) + 1), 1.4);
                if (onRightAxis(f)) pen.setStyle(Qt::DashLine);
                addLine(base + QLatin1Char(' ') + QString::fromUtf8(analysis::statFieldName(f)),
                        std::move(s), pen, onRightAxis(f), inLegend);
            }
        }
        if (m_series.size() > std::size_t(kLegendRanks))
            addLine(tr("... and %n more rank(s)", nullptr, int(m_series.size()) - kLegendRanks), {},
                    QPen(Qt::NoPen), false);
    }
    // NaN/Inf markers: at the mean of the last finite record (or 0), per rank.
    XYSeries marks;
    for (const auto* series : m_series) {
        double lastY = 0;
        for (const auto& r : series->records) {
            if (r.stats.hasFinite()) lastY = r.stats.mean;
            if (r.stats.nan || r.stats.inf) {
                marks.x.push_back(xOf(r, xMode));
                marks.y.push_back(lastY);
            }
        }
    }
    if (!marks.x.empty()) {
        std::vector<std::size_t> order(marks.x.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return marks.x[a] < marks.x[b]; });
        XYSeries sorted;
        for (auto i : order) {
            sorted.x.push_back(marks.x[i]);
            sorted.y.push_back(marks.y[i]);
        }
        QCPGraph* g =
            addLine(tr("NaN/Inf"), std::move(sorted), QPen(QColor(0xd0, 0x20, 0x20)), false);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted,
                                           QColor(0xd0, 0x20, 0x20), QColor(0xd0, 0x20, 0x20), 9));
    }

    m_plot->xAxis->setLabel(xLabel(xMode));
    if (xMode == XAxisMode::WallTime) {
        auto t = QSharedPointer<QCPAxisTickerDateTime>::create();
        t->setDateTimeFormat(QStringLiteral("hh:mm:ss\nyyyy-MM-dd"));
        t->setDateTimeSpec(Qt::UTC);
        m_plot->xAxis->setTicker(t);
    } else {
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    for (QCPAxis* ax : {m_plot->yAxis, m_plot->yAxis2}) {
        if (m_options.logY) {
            ax->setScaleType(QCPAxis::stLogarithmic);
            ax->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        } else {
            ax->setScaleType(QCPAxis::stLinear);
            ax->setTicker(QSharedPointer<QCPAxisTicker>::create());
        }
    }
    m_plot->yAxis->setLabel(m_key);
    m_plot->yAxis2->setVisible(right);
    m_plot->yAxis2->setLabel(right ? tr("right axis: dashed") : QString());
    m_plot->legend->setVisible(m_plot->legend->itemCount() > 0);
    if (m_cursorStep) setStepCursor(*m_cursorStep);
    redecimate();
}

void StatPlot::redecimate() {
    const QCPRange range = m_plot->xAxis->range();
    const std::size_t buckets = std::size_t(std::max(200, m_plot->axisRect()->width()));
    for (auto& l : m_lines) {
        auto [sx, sy] = visibleSlice(l.data, range.lower, range.upper);
        if (m_options.logY)
            for (auto& v : sy)
                if (!(v > 0)) v = std::nan("");
        XYSeries d = l.graph->lineStyle() == QCPGraph::lsNone ? XYSeries{sx, sy}
                                                              : decimateMinMax(sx, sy, buckets);
        l.graph->setData(QVector<double>(d.x.begin(), d.x.end()),
                         QVector<double>(d.y.begin(), d.y.end()), true);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void StatPlot::resetZoom() {
    // Fit to the full data, not to the decimated slice currently drawn.
    bool any = false;
    QCPRange xr, yl, yr;
    bool anyL = false, anyR = false;
    for (const auto& l : m_lines) {
        for (std::size_t i = 0; i < l.data.x.size(); ++i) {
            const double x = l.data.x[i], y = l.data.y[i];
            if (!std::isfinite(y) || (m_options.logY && y <= 0)) continue;
            if (!any) xr = QCPRange(x, x);
            xr.expand(x);
            any = true;
            const bool right = l.graph->valueAxis() == m_plot->yAxis2;
            QCPRange& r = right ? yr : yl;
            bool& has = right ? anyR : anyL;
            if (!has) r = QCPRange(y, y);
            r.expand(y);
            has = true;
        }
    }
    if (!any) {
        m_plot->xAxis->setRange(0, 1);
        m_plot->yAxis->setRange(0, 1);
        redecimate();
        return;
    }
    auto pad = [this](QCPRange r) {
        if (m_options.logY) return QCPRange(r.lower / 1.5, r.upper * 1.5);
        double d = r.size() > 0 ? r.size() * 0.05 : std::max(std::abs(r.lower) * 0.05, 0.5);
        return QCPRange(r.lower - d, r.upper + d);
    };
    if (xr.size() == 0) xr = QCPRange(xr.lower - 0.5, xr.upper + 0.5);
    m_plot->xAxis->setRange(xr);
    if (anyL) m_plot->yAxis->setRange(pad(yl));
    if (anyR) m_plot->yAxis2->setRange(pad(yr));
    redecimate();
}

double StatPlot::xOfGstep(std::int64_t gstep) const {
    const XAxisMode mode = m_options.aggregateRanks ? XAxisMode::Gstep : m_options.xAxis;
    if (mode == XAxisMode::Gstep) return double(gstep);
    for (const auto* s : m_series)
        for (const auto& r : s->records)
            if (r.gstep == gstep) return xOf(r, mode);
    return std::nan("");
}

std::optional<std::int64_t> StatPlot::nearestGstep(double x) const {
    const XAxisMode mode = m_options.aggregateRanks ? XAxisMode::Gstep : m_options.xAxis;
    std::optional<std::int64_t> best;
    double bestD = 0;
    for (const auto* s : m_series) {
        const auto& recs = s->records;
        auto it = std::lower_bound(recs.begin(), recs.end(), x,
                                   [&](const auto& r, double v) { return xOf(r, mode) < v; });
        for (auto c : {it, it == recs.begin() ? it : it - 1}) {
            if (c == recs.end()) continue;
            const double d = std::abs(xOf(*c, mode) - x);
            if (!best || d < bestD) {
                best = c->gstep;
                bestD = d;
            }
        }
    }
    return best;
}

void StatPlot::setStepCursor(std::int64_t gstep) {
    m_cursorStep = gstep;
    const double x = xOfGstep(gstep);
    m_cursor->setVisible(std::isfinite(x));
    if (std::isfinite(x)) {
        m_cursor->point1->setCoords(x, 0);
        m_cursor->point2->setCoords(x, 1);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void StatPlot::onMouseMove(QMouseEvent* e) {
    const double x = m_plot->xAxis->pixelToCoord(e->position().x());
    const double y = m_plot->yAxis->pixelToCoord(e->position().y());
    m_crossV->point1->setCoords(x, 0);
    m_crossV->point2->setCoords(x, 1);
    m_crossH->point1->setCoords(0, y);
    m_crossH->point2->setCoords(1, y);
    const bool inside = m_plot->axisRect()->rect().contains(e->position().toPoint());
    m_crossV->setVisible(inside);
    m_crossH->setVisible(inside);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    if (!inside || m_series.empty()) {
        QToolTip::hideText();
        return;
    }
    const auto g = nearestGstep(x);
    if (!g) return;
    QString text = tr("<b>%1</b> &nbsp; gstep %2").arg(m_key.toHtmlEscaped()).arg(*g);
    for (const auto* s : m_series) {
        for (const auto& r : s->records) {
            if (r.gstep != *g) continue;
            const auto& st = r.stats;
            text += tr("<br><b>rank %1</b> lstep %2, %3")
                        .arg(s->rank)
                        .arg(r.lstep)
                        .arg(formatTimestampMs(r.timestamp));
            if (st.hasFinite())
                text += tr("<br>&nbsp; mean %1 &nbsp; std %2<br>&nbsp; min %3 &nbsp; max %4 &nbsp; "
                           "l2 %5")
                            .arg(formatValue(st.mean), formatValue(st.std), formatValue(st.min),
                                 formatValue(st.max), formatValue(st.l2));
            text += tr("<br>&nbsp; count %1, zeros %2").arg(st.count).arg(st.zeros);
            if (st.nan || st.inf)
                text += tr(" <span style='color:#d02020'>NaN %1, Inf %2</span>")
                            .arg(st.nan)
                            .arg(st.inf);
            break;
        }
    }
    QToolTip::showText(e->globalPosition().toPoint(), text, m_plot);
}

void StatPlot::onMousePress(QMouseEvent* e) {
    m_pressPos = e->position().toPoint();
}

void StatPlot::onMouseRelease(QMouseEvent* e) {
    // A click (not a drag, which pans) moves the step cursor to the nearest record.
    if ((e->position().toPoint() - m_pressPos).manhattanLength() > 3) {
        userMovedView(); // a drag pans
        return;
    }
    if (e->button() != Qt::LeftButton) return;
    const auto g = nearestGstep(m_plot->xAxis->pixelToCoord(e->position().x()));
    if (g) {
        setStepCursor(*g);
        emit stepSelected(*g);
    }
}

void StatPlot::keyPressEvent(QKeyEvent* e) {
    QCPAxis* x = m_plot->xAxis;
    QCPAxis* y = m_plot->yAxis;
    switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        x->scaleRange(0.8);
        break;
    case Qt::Key_Minus:
        x->scaleRange(1.25);
        break;
    case Qt::Key_Left:
        x->moveRange(-x->range().size() * 0.1);
        break;
    case Qt::Key_Right:
        x->moveRange(x->range().size() * 0.1);
        break;
    case Qt::Key_Up:
        y->moveRange(y->range().size() * 0.1);
        break;
    case Qt::Key_Down:
        y->moveRange(-y->range().size() * 0.1);
        break;
    case Qt::Key_Home:
    case Qt::Key_0:
        resetZoom();
        return;
    case Qt::Key_End: // back to the newest steps, following again
        setFollowing(true);
        resetZoom();
        return;
    case Qt::Key_BracketLeft:
    case Qt::Key_BracketRight:
        if (m_cursorStep && !m_series.empty()) {
            // Step the cursor to the previous / next recorded gstep.
            std::vector<std::int64_t> steps;
            for (const auto& r : m_series.front()->records)
                steps.push_back(r.gstep);
            auto it = std::lower_bound(steps.begin(), steps.end(), *m_cursorStep);
            if (e->key() == Qt::Key_BracketRight && it != steps.end() && *it == *m_cursorStep)
                ++it;
            else if (e->key() == Qt::Key_BracketLeft)
                it = it == steps.begin() ? it : it - 1;
            if (it != steps.end()) {
                setStepCursor(*it);
                emit stepSelected(*it);
            }
        }
        return;
    default:
        QWidget::keyPressEvent(e);
        return;
    }
    userMovedView(); // the keys that zoom or pan
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void StatPlot::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange)
        applyPalette();
    QWidget::changeEvent(e);
}

void StatPlot::applyPalette() {
    applyPlotPalette(m_plot, palette());
}

} // namespace xt::widgets
