#include "widgets/stat_plot.h"

#include "widgets/axis_ticks.h"
#include "widgets/job_tracker.h"
#include "widgets/plot_palette.h"
#include "widgets/plot_widget.h"
#include "widgets/text_format.h"

#include <QApplication>
#include <QClipboard>
#include <QFutureWatcher>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace xt::widgets {

using view::decimateMinMax;
using view::emaDebiased;
using view::XAxisMode;
using view::xOf;
using view::XYSeries;
using Field = analysis::RecordSeries::Field;

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

QString xLabel(XAxisMode m, bool logX) {
    switch (m) {
    case XAxisMode::Gstep:
        return QObject::tr("global step");
    case XAxisMode::Lstep:
        return QObject::tr("local step");
    case XAxisMode::WallTime:
        return logX ? QObject::tr("seconds since the first record")
                    : QObject::tr("wall time (UTC)");
    }
    return {};
}

const QColor kCursorColours[2] = {cursorColour(Cursor::A), cursorColour(Cursor::B)};
const char* const kCursorNames[2] = {cursorName(Cursor::A), cursorName(Cursor::B)};

// A band's upper edge, filled down to its lower edge (its channel fill graph). Dense, with both
// edges at the same keys (decimated to buckets: view::Keep), the band is a rectangle per point,
// from the lower edge's value to this edge's and as wide as the step to the next key. Qt fills a
// polygon in time proportional to its edges times the rows each crosses, and a noisy band's edges
// go up and down across it at every point (its fill took most of a replot of a large run);
// rectangles fill row by row. Sparse, the band keeps its slopes (QCPGraph's fill).
class BandGraph : public QCPGraph {
public:
    using QCPGraph::QCPGraph;

protected:
    void drawFill(QCPPainter* painter, QVector<QPointF>* lines) const override {
        const QCPGraph* lower = channelFillGraph();
        if (!lower || keyAxis()->orientation() != Qt::Horizontal || brush().style() == Qt::NoBrush)
            return QCPGraph::drawFill(painter, lines);
        const QCPGraphDataContainer& hi = *data();
        const QCPGraphDataContainer& lo = *lower->data();
        const int n = hi.size();
        if (n < 2 || lo.size() != n) return QCPGraph::drawFill(painter, lines);
        const QCPAxis* x = keyAxis();
        const QCPAxis* y = valueAxis();
        const double pixels =
            std::abs(x->coordToPixel(hi.at(n - 1)->key) - x->coordToPixel(hi.at(0)->key));
        if (n < pixels / 4) return QCPGraph::drawFill(painter, lines);
        const QRectF area = x->axisRect()->rect(); // what the plot shows of a band
        QVector<QRectF> rects;
        rects.reserve(n);
        for (int i = 0; i < n; ++i) {
            const QCPGraphData& h = *hi.at(i);
            const QCPGraphData& l = *lo.at(i);
            if (h.key != l.key) return QCPGraph::drawFill(painter, lines);
            if (std::isnan(h.value) || std::isnan(l.value)) continue;
            const double x0 = x->coordToPixel(h.key);
            const double x1 = i + 1 < n ? x->coordToPixel(hi.at(i + 1)->key) : x0 + 1;
            const QRectF r =
                QRectF(QPointF(x0, y->coordToPixel(h.value)), QPointF(x1, y->coordToPixel(l.value)))
                    .normalized()
                    .intersected(area);
            // In strips of at most 64 rows: Qt's raster engine hands the blending of 96 rows or
            // more to its thread pool and waits for it, per rectangle: a replot of a few bands
            // waited for other threads some 500 times, for longer than the fills take.
            for (double top = r.top(); top < r.bottom(); top += 64)
                rects.append(QRectF(r.left(), top, r.width(), std::min(64.0, r.bottom() - top)));
        }
        // Without antialiasing: it changes nothing one can see on edges along the pixels, but
        // made each band's rectangles take 20-60 ms (a band of 250 to 500 buckets).
        painter->save();
        painter->setAntialiasing(false);
        painter->setPen(Qt::NoPen);
        painter->setBrush(brush());
        painter->drawRects(rects);
        painter->restore();
    }
};

// The last point of `line` with a value at or before x (NaN when there is none).
double valueAt(const view::LinePoints& line, double x) {
    for (std::size_t i = view::visibleRange(line, x, x).second; i-- > 0;)
        if (line.x(i) <= x && !std::isnan(line.y(i))) return line.y(i);
    return std::nan("");
}

} // namespace

StatPlot::StatPlot(QWidget* parent)
    : QWidget(parent), m_plot(new PlotWidget(this)), m_readout(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_readout);
    m_readout->setObjectName(QStringLiteral("cursorReadout"));
    m_readout->setContentsMargins(6, 1, 6, 1);
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_readout->setWordWrap(true); // never wider than the plot
    m_readout->hide();
    adaptTicks(m_plot);
    setFocusPolicy(Qt::StrongFocus);
    m_plot->setFocusPolicy(Qt::NoFocus);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    m_plot->legend->setVisible(true);
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.9);
    m_plot->legend->setFont(legendFont);
    // Legend entries are added one by one (addLine): with hundreds of ranks, adding every
    // graph and removing most again costs seconds.
    m_plot->setAutoAddPlottableToLegend(false);
    // The legend in a column of its own right of the axes (top aligned), never over the data.
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    auto* side = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(0, 1, side);
    side->addElement(0, 0, m_plot->legend);
    side->addElement(1, 0, new QCPLayoutElement(m_plot));
    side->setRowStretchFactor(0, 0.001);
    side->setMargins(QMargins(0, 6, 6, 6));
    m_plot->plotLayout()->setColumnStretchFactor(1, 0.001);
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
    for (int i = 0; i < 2; ++i) {
        m_cursorLines[std::size_t(i)] = makeLine(kCursorColours[i], Qt::DashLine);
        m_cursorLines[std::size_t(i)]->setPen(QPen(kCursorColours[i], 1.5, Qt::DashLine));
        auto* label = new QCPItemText(m_plot);
        label->setText(QString::fromLatin1(kCursorNames[i]));
        label->setColor(Qt::white);
        label->setBrush(kCursorColours[i]);
        label->setPadding(QMargins(4, 1, 4, 1));
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
        label->setClipToAxisRect(true);
        label->setSelectable(false);
        label->setVisible(false);
        m_cursorLabels[std::size_t(i)] = label;
    }

    m_decimateTimer.setSingleShot(true);
    m_decimateTimer.setInterval(30);
    connect(&m_decimateTimer, &QTimer::timeout, this, &StatPlot::redecimate);
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this] { m_decimateTimer.start(); });
    // A plot made wider than its lines' buckets is decimated again for its width.
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        if (m_decimated && std::size_t(m_plot->axisRect()->width()) > m_decimated->buckets)
            m_decimateTimer.start();
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &StatPlot::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &StatPlot::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &StatPlot::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseWheel, this, &StatPlot::userMovedView);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &StatPlot::showContextMenu);
    applyPalette();
}

void StatPlot::setData(RunSnapshot run, const QString& key) {
    const bool otherKey = key != m_key;
    m_run = std::move(run);
    m_key = key;
    rebuild([this] { resetZoom(); }, true, otherKey);
}

void StatPlot::setOptions(const StatPlotOptions& options) {
    const bool refit = options.xAxis != m_options.xAxis || options.logY != m_options.logY ||
                       options.logX != m_options.logX ||
                       options.aggregateRanks != m_options.aggregateRanks ||
                       options.showL2 != m_options.showL2;
    m_options = options;
    rebuild([this, refit] { refit ? resetZoom() : redecimate(); }, refit);
}

std::optional<XYSeries> StatPlot::lineData(const QString& name) const {
    for (const auto& l : m_lines)
        if (l.graph->name() == name) return l.data.copy();
    return std::nullopt;
}

XAxisMode StatPlot::xMode() const {
    return m_options.aggregateRanks && m_series.size() > 1 ? XAxisMode::Gstep : m_options.xAxis;
}

double StatPlot::xOfRecord(const analysis::RecordStats& r) const {
    const XAxisMode mode = xMode();
    const double x = xOf(r, mode);
    return mode == XAxisMode::WallTime && m_options.logX ? x - m_timeOrigin : x;
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
    m_run = std::move(run);
    // The lines do not move the axes: only a followed plot is fitted again.
    auto then = [this] {
        if (m_cursorStep) setStepCursor(*m_cursorStep);
        if (m_following)
            resetZoom();
        else
            redecimate();
    };
    if (m_building) {
        // A followed run grows faster than large lines are built: the build in flight is shown,
        // then the newest records are built, instead of each update superseding the last.
        selectSeries();
        m_extendAfterBuild = then;
        return;
    }
    rebuild(then, m_following);
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

void StatPlot::rebuild(std::function<void()> then, bool fits, bool clearNow) {
    selectSeries();
    std::size_t records = 0;
    for (const auto* s : m_series)
        records += s->records.size();
    // Log x on wall time counts seconds from the first record (a pass over every record: only
    // then).
    m_timeOrigin = 0;
    bool anyRecord = false;
    if (m_options.logX && xMode() == XAxisMode::WallTime)
        for (const auto* s : m_series)
            s->records.scan(Field::Timestamp, [&](std::size_t, double ms) {
                const double t = ms / 1000.0; // as xOf
                if (!anyRecord || t < m_timeOrigin) m_timeOrigin = t;
                anyRecord = true;
                return true;
            });
    const quint64 generation = ++m_buildGeneration; // a build in flight is superseded
    m_extendAfterBuild = nullptr;
    // Aggregated ranks cost a sort across the ranks at each step (1024 ranks x 30 steps: 7 ms).
    const bool aggregated = m_options.aggregateRanks && m_series.size() > 1;
    const std::size_t work = aggregated ? records * std::bit_width(m_series.size()) : records;
    if (work < kBackgroundBuildRecords) {
        m_building = false;
        BuiltLines built = buildLines(m_series, m_options, xMode(), m_timeOrigin);
        built.run = m_run;
        applyLines(std::move(built));
        if (then) then();
        return;
    }
    // Lines of millions of points are built off the GUI thread; the lines of another key are
    // not left on screen meanwhile.
    if (clearNow) {
        m_plot->clearGraphs();
        m_lines.clear();
        m_linesRun.reset();
        m_decimated.reset();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    m_building = true;
    auto* watcher = new QFutureWatcher<BuiltLines>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, then] {
        watcher->deleteLater();
        if (generation != m_buildGeneration) return;
        m_building = false;
        applyLines(watcher->future().takeResult());
        if (then) then();
        if (m_extendAfterBuild) rebuild(std::exchange(m_extendAfterBuild, nullptr), m_following);
    });
    watcher->setFuture(QtConcurrent::run(
        drawPool(), [run = m_run, series = m_series, options = m_options, mode = xMode(),
                     origin = m_timeOrigin, buckets = fits ? bucketsNow() : 0] {
            BuiltLines built = buildLines(series, options, mode, origin);
            built.run = run;
            // `then` fits the axes: their lines are decimated for that here too, so that the
            // GUI thread only hands the points to the graphs (unless the plot's width changed).
            if (buckets) built.fitted = decimateForFit(built.lines, buckets, options);
            return built;
        }));
}

void StatPlot::applyLines(BuiltLines built) {
    m_plot->clearGraphs();
    m_lines.clear();
    m_linesRun = std::move(built.run);
    m_decimated.reset();
    m_fitted = std::move(built.fitted);
    m_spread = std::move(built.spread);
    for (LineSpec& l : built.lines) {
        QCPAxis* valueAxis = l.rightAxis ? m_plot->yAxis2 : m_plot->yAxis;
        QCPGraph* g = l.fill.isValid() ? new BandGraph(m_plot->xAxis, valueAxis)
                                       : m_plot->addGraph(m_plot->xAxis, valueAxis);
        g->setName(l.name);
        if (l.inLegend) g->addToLegend();
        g->setPen(l.pen);
        g->setAdaptiveSampling(false); // decimation is ours, spike-preserving
        if (l.fill.isValid()) {        // a band: filled down to its lower edge, the line before
            g->setBrush(l.fill);
            g->setChannelFillGraph(m_lines.back().graph);
        }
        if (l.markers) {
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, l.pen.color(),
                                               l.pen.color(), 9));
        }
        m_lines.push_back({g, std::move(l.data), std::move(l.blocks), l.value, l.pen, l.keep});
    }
    const XAxisMode mode = xMode();
    const bool right = built.rightAxis;
    m_plot->xAxis->setLabel(xLabel(mode, m_options.logX));
    if (m_options.logX) {
        m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    } else if (mode == XAxisMode::WallTime) {
        m_plot->xAxis->setScaleType(QCPAxis::stLinear);
        auto t = QSharedPointer<QCPAxisTickerDateTime>::create();
        t->setDateTimeFormat(QStringLiteral("hh:mm:ss\nyyyy-MM-dd"));
        t->setDateTimeSpec(Qt::UTC);
        m_plot->xAxis->setTicker(t);
    } else {
        m_plot->xAxis->setScaleType(QCPAxis::stLinear);
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
    updateCursorItems();
    drawNotes();
    // No decimation here: every caller fits or keeps the axes next and decimates for them.
    emit spreadChanged();
}

StatPlot::BuiltLines StatPlot::buildLines(const std::vector<const analysis::KeySeries*>& shown,
                                          const StatPlotOptions& options, XAxisMode mode,
                                          double timeOrigin) {
    BuiltLines out;
    using view::LinePoints;
    using Value = LinePoints::Value;
    const double xShift = mode == XAxisMode::WallTime && options.logX ? timeOrigin : 0;
    auto xOfRecord = [&](const analysis::RecordStats& r) { return xOf(r, mode) - xShift; };
    // One value of each record of a series, read from the records in place.
    auto ofRecords = [&](const analysis::KeySeries& series, Value v,
                         analysis::StatField f = analysis::StatField::Mean) {
        return LinePoints(series.records, mode, xShift, v, f);
    };
    auto addLine = [&](const QString& name, LinePoints data, const QPen& pen, bool rightAxis,
                       bool inLegend = true) -> LineSpec& {
        const bool value = pen.style() != Qt::NoPen && !data.empty();
        LineSpec l;
        l.name = name;
        l.data = std::move(data);
        l.pen = pen;
        l.rightAxis = rightAxis;
        l.inLegend = inLegend;
        l.value = value;
        out.lines.push_back(std::move(l));
        return out.lines.back();
    };
    auto addLegendText = [&](const QString& text) {
        addLine(text, LinePoints(), QPen(Qt::NoPen), false);
    };
    auto named = [&](const QString& name) {
        return std::any_of(out.lines.begin(), out.lines.end(),
                           [&](const LineSpec& l) { return l.name == name; });
    };
    auto bandPen = QPen(Qt::NoPen);
    // A filled band; the upper edge carries `legend` into the legend when it is not empty.
    auto addBand = [&](const QString& base, LinePoints lo, LinePoints hi, QColor c, int alpha,
                       const QString& legend = {}) {
        addLine(base + QStringLiteral(" lower"), std::move(lo), bandPen, false, false);
        LineSpec& upper = addLine(legend.isEmpty() ? base + QStringLiteral(" upper") : legend,
                                  std::move(hi), bandPen, false, !legend.isEmpty());
        upper.fill = withAlpha(c, alpha);
    };
    // Beyond kLegendRanks ranks, the legend names the first ones and counts the rest.
    bool inLegend = true;
    auto addMeanLine = [&](const QString& name, LinePoints raw, QColor c, double width) {
        if (options.smoothing > 0) {
            std::vector<double> y(raw.size());
            raw.readY(0, y.size(), y.data());
            LinePoints s = raw.withY(emaDebiased(y, options.smoothing));
            addLine(name, std::move(raw), QPen(withAlpha(c, 70), 1), false, false);
            addLine(name + QStringLiteral(" (EMA %1)").arg(options.smoothing), std::move(s),
                    QPen(c, width + 0.4), false, inLegend);
        } else {
            addLine(name, std::move(raw), QPen(c, width), false, inLegend);
        }
    };
    auto rankMeans = [&](const analysis::KeySeries& series) {
        return ofRecords(series, Value::Stat, analysis::StatField::Mean);
    };

    if (options.aggregateRanks && shown.size() > 1) {
        using analysis::StatField;
        const int ranks = int(shown.size());
        const QColor c = rankColor(0);
        auto medians = [&](StatField f) {
            XYSeries s;
            for (const auto& st : analysis::rankSpread(shown, f).steps) {
                s.x.push_back(double(st.gstep));
                s.y.push_back(st.median);
            }
            return LinePoints(std::move(s));
        };
        out.spread = analysis::rankSpread(shown, StatField::Mean);
        if (options.minMaxBand) {
            XYSeries mn, mx;
            for (const auto& st : analysis::rankSpread(shown, StatField::Min).steps) {
                mn.x.push_back(double(st.gstep));
                mn.y.push_back(st.min);
            }
            for (const auto& st : analysis::rankSpread(shown, StatField::Max).steps) {
                mx.x.push_back(double(st.gstep));
                mx.y.push_back(st.max);
            }
            addBand(QStringLiteral("all ranks min-max"), LinePoints(std::move(mn)),
                    LinePoints(std::move(mx)), c, 25);
        }
        if (options.showMean) {
            XYSeries median, lo, hi;
            for (const auto& st : out.spread.steps) {
                median.x.push_back(double(st.gstep));
                median.y.push_back(st.median);
            }
            lo.x = hi.x = median.x;
            for (const auto& st : out.spread.steps) {
                lo.y.push_back(st.min);
                hi.y.push_back(st.max);
            }
            addMeanLine(QStringLiteral("median of ranks"), LinePoints(std::move(median)), c, 1.8);
            addBand(QStringLiteral("ranks min..max"), LinePoints(std::move(lo)),
                    LinePoints(std::move(hi)), c, 60, tr("min..max of %1 ranks").arg(ranks));
            // The outlier ranks, most outlying first, under the rule that found them.
            // Two lines, so that the legend stays narrow.
            addLegendText(QString::fromStdString(analysis::describeOutlierRule({}))
                              .replace(QStringLiteral(" at >= "), QStringLiteral("\nat >= ")) +
                          (out.spread.outliers.empty() ? tr(": none") : QStringLiteral(":")));
            int drawn = 0;
            for (const auto& o : out.spread.outliers) {
                if (drawn == kLegendRanks) break;
                for (const auto* s : shown)
                    if (s->rank == o.rank)
                        addMeanLine(QStringLiteral("rank %1 mean").arg(o.rank), rankMeans(*s),
                                    rankColor(1 + drawn), 1.4);
                ++drawn;
            }
            if (int(out.spread.outliers.size()) > drawn)
                addLegendText(tr("... and %n more outlier rank(s)", nullptr,
                                 int(out.spread.outliers.size()) - drawn));
            const QString highlighted = QStringLiteral("rank %1 mean").arg(options.highlightRank);
            if (options.highlightRank >= 0 && !named(highlighted))
                for (const auto* s : shown)
                    if (s->rank == options.highlightRank)
                        addMeanLine(highlighted, rankMeans(*s), QColor(0x30, 0x30, 0x30), 2);
        }
        if (options.showL2) {
            addLine(QStringLiteral("median of ranks l2"), medians(StatField::L2),
                    QPen(QColor(0xd6, 0x27, 0x28), 1.4, Qt::DashLine), true);
            out.rightAxis = true;
        }
        for (auto f : options.lines) {
            out.rightAxis |= onRightAxis(f);
            addLine(QStringLiteral("median of ranks ") +
                        QString::fromUtf8(analysis::statFieldName(f)),
                    medians(f), QPen(rankColor(int(f) + 1), 1.4), onRightAxis(f));
        }
    } else {
        int colorIndex = 0;
        for (const auto* series : shown) {
            inLegend = colorIndex < kLegendRanks;
            const QColor c = rankColor(colorIndex++);
            const QString base = QStringLiteral("rank %1").arg(series->rank);
            // The lines read the records in place: a copy of a line of a million records would
            // cost 16 MB.
            using F = analysis::StatField;
            if (options.minMaxBand)
                addBand(base + QStringLiteral(" min-max"), ofRecords(*series, Value::Stat, F::Min),
                        ofRecords(*series, Value::Stat, F::Max), c, 35);
            if (options.stdBand)
                addBand(base + QStringLiteral(" std"), ofRecords(*series, Value::MeanMinusStd),
                        ofRecords(*series, Value::MeanPlusStd), c, 70);
            if (options.showMean)
                addMeanLine(base + QStringLiteral(" mean"), rankMeans(*series), c, 1.6);
            if (options.showL2) {
                addLine(base + QStringLiteral(" l2"), ofRecords(*series, Value::Stat, F::L2),
                        QPen(c, 1.2, Qt::DashLine), true, inLegend);
                out.rightAxis = true;
            }
            for (auto f : options.lines) {
                out.rightAxis |= onRightAxis(f);
                QPen pen(shown.size() > 1 ? c : rankColor(int(f) + 1), 1.4);
                if (onRightAxis(f)) pen.setStyle(Qt::DashLine);
                addLine(base + QLatin1Char(' ') + QString::fromUtf8(analysis::statFieldName(f)),
                        ofRecords(*series, Value::Stat, f), pen, onRightAxis(f), inLegend);
            }
        }
        inLegend = true;
        if (shown.size() > std::size_t(kLegendRanks))
            addLegendText(tr("... and %n more rank(s)", nullptr, int(shown.size()) - kLegendRanks));
    }
    // NaN/Inf markers: at the mean of the last finite record (or 0), per rank.
    XYSeries marks;
    for (const auto* series : shown) {
        if (series->records.nonFiniteRecords() == 0) continue;
        double lastY = 0;
        for (const auto& r : series->records) {
            if (r.stats.hasFinite()) lastY = r.stats.mean;
            if (r.stats.nan || r.stats.inf) {
                marks.x.push_back(xOfRecord(r));
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
        addLine(tr("NaN/Inf"), LinePoints(std::move(sorted)), QPen(QColor(0xd0, 0x20, 0x20)), false)
            .markers = true;
        out.lines.back().value = false;
    }
    // What decimation reads of each line, built here too.
    std::vector<const LinePoints*> decimated;
    for (const LineSpec& l : out.lines)
        if (!l.markers) decimated.push_back(&l.data);
    auto blocks = view::blockExtrema(decimated);
    std::size_t next = 0;
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        LineSpec& l = out.lines[i];
        if (!l.markers) l.blocks = std::move(blocks[next++]);
        // A band's edges keep one side of each bucket: its upper edge fills down to the line
        // before it.
        if (l.fill.isValid()) {
            l.keep = view::Keep::Highest;
            if (i > 0) out.lines[i - 1].keep = view::Keep::Lowest;
        }
    }
    return out;
}

std::optional<StatPlot::Fitted> StatPlot::decimateForFit(const std::vector<LineSpec>& lines,
                                                         std::size_t buckets,
                                                         const StatPlotOptions& options) {
    std::vector<const view::LinePoints*> data;
    std::vector<view::LineToDecimate> inputs;
    for (const LineSpec& l : lines) {
        data.push_back(&l.data);
        inputs.push_back({&l.data, l.blocks.get(), l.value, l.markers, l.keep});
    }
    const auto xr = view::fitXRange(data, options.logX, options.logY);
    if (!xr) return std::nullopt;
    const view::DecimatedView view{xr->first, xr->second, buckets, options.logX, options.logY};
    return Fitted{view, view::decimateLines(inputs, view)};
}

void StatPlot::redecimate() {
    const QCPRange range = m_plot->xAxis->range();
    // A pass over every visible point of every line: not again for the same lines and view
    // (a fit decimates at once, and its range change would do it again 30 ms later).
    const view::DecimatedView view{range.lower, range.upper, bucketsNow(), m_options.logX,
                                   m_options.logY};
    // A decimation of 1 to 2 buckets a pixel draws the same: the axis rect's width changes with
    // its tick labels' after a fit, and the build decimated for the width when it started.
    const auto enough = [&](const view::DecimatedView& d) {
        return d.lower == view.lower && d.upper == view.upper && d.logX == view.logX &&
               d.logY == view.logY && d.buckets >= view.buckets && d.buckets <= 2 * view.buckets;
    };
    if (m_decimated && enough(*m_decimated)) return;
    m_decimated = view;
    std::vector<XYSeries> points;
    if (m_fitted && enough(m_fitted->view)) {
        m_decimated = m_fitted->view;
        points = std::move(m_fitted->points); // decimated by the build, off this thread
    } else {
        std::vector<view::LineToDecimate> inputs;
        for (const Line& l : m_lines)
            inputs.push_back({&l.data, l.blocks.get(), l.value,
                              l.graph->lineStyle() == QCPGraph::lsNone, l.keep});
        points = view::decimateLines(inputs, view);
    }
    m_fitted.reset();
    std::size_t densest = 0;
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        const XYSeries& d = points[i];
        densest = std::max(densest, d.x.size());
        m_lines[i].graph->setData(QVector<double>(d.x.begin(), d.x.end()),
                                  QVector<double>(d.y.begin(), d.y.end()), true);
    }
    // With a point or more per pixel, antialiasing changes nothing one can see but doubles the
    // paint time of the lines and bands (the GUI thread's longest stall on opening a big run).
    // So do pens wider than a pixel: Qt strokes them as outlines to fill, which took half of
    // such a replot (4 ranks' mean lines of 1.4 px); a pixel-wide line is drawn directly.
    // A run shown from its overviews draws envelopes (a least and a greatest value per block of
    // records) whose segments are long: the same holds for them.
    const bool dense = densest >= std::size_t(std::max(1, m_plot->axisRect()->width())) ||
                       (m_run && m_run->overview);
    m_plot->setNotAntialiasedElements(dense ? QCP::aeFills | QCP::aePlottables : QCP::aeNone);
    for (const Line& l : m_lines) {
        QPen pen = l.pen;
        if (dense && pen.widthF() > 1) pen.setWidthF(1);
        if (l.graph->pen() != pen) l.graph->setPen(pen);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

std::size_t StatPlot::bucketsNow() {
    return std::size_t(std::max(200, m_plot->axisWidth()));
}

void StatPlot::resetZoom() {
    // Fit to the full data, not to the decimated slice currently drawn: x from each line's first
    // and last point that can be drawn (x ascending); y from the lines decimated over that x
    // range, which keep every bucket's minimum and maximum, so a pass over every point of every
    // line is not needed.
    std::vector<const view::LinePoints*> lines;
    for (const auto& l : m_lines)
        lines.push_back(&l.data);
    const auto xr = view::fitXRange(lines, m_options.logX, m_options.logY);
    if (!xr) {
        m_plot->xAxis->setRange(m_options.logX ? QCPRange(1, 10) : QCPRange(0, 1));
        m_plot->yAxis->setRange(m_options.logY ? QCPRange(1, 10) : QCPRange(0, 1));
        redecimate();
        return;
    }
    m_plot->xAxis->setRange(xr->first, xr->second);
    redecimate();
    QCPRange yl, yr;
    bool anyL = false, anyR = false;
    for (const auto& l : m_lines) {
        const bool right = l.graph->valueAxis() == m_plot->yAxis2;
        QCPRange& r = right ? yr : yl;
        bool& has = right ? anyR : anyL;
        for (const QCPGraphData& p : *l.graph->data()) {
            if (!view::drawablePoint(p.key, p.value, m_options.logX, m_options.logY)) continue;
            if (!has) r = QCPRange(p.value, p.value);
            r.expand(p.value);
            has = true;
        }
    }
    auto pad = [this](QCPRange r) {
        if (m_options.logY) return QCPRange(r.lower / 1.5, r.upper * 1.5);
        double d = r.size() > 0 ? r.size() * 0.05 : std::max(std::abs(r.lower) * 0.05, 0.5);
        return QCPRange(r.lower - d, r.upper + d);
    };
    if (anyL) m_plot->yAxis->setRange(pad(yl));
    if (anyR) m_plot->yAxis2->setRange(pad(yr));
}

void StatPlot::reserveTop(int pixels) {
    QCPLayoutGrid* layout = m_plot->plotLayout();
    QMargins margins = layout->margins();
    if (margins.top() == pixels) return;
    margins.setTop(pixels);
    layout->setMargins(margins);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

double StatPlot::xOfGstep(std::int64_t gstep) const {
    if (xMode() == XAxisMode::Gstep) return double(gstep);
    for (const auto* s : m_series)
        if (auto i = s->records.find(Field::Gstep, double(gstep)); i < s->records.size())
            return xOfRecord(s->records[i]);
    return std::nan("");
}

std::optional<analysis::RecordStats> StatPlot::recordAtOrAfter(std::int64_t gstep) const {
    std::optional<analysis::RecordStats> best;
    for (const auto* s : m_series) {
        const auto& recs = s->records;
        auto it = std::lower_bound(recs.begin(), recs.end(), gstep,
                                   [](const auto& r, std::int64_t g) { return r.gstep < g; });
        if (it != recs.end() && (!best || it->gstep < best->gstep)) best = *it;
    }
    return best;
}

std::optional<std::int64_t> StatPlot::nearestGstep(double x) const {
    std::optional<std::int64_t> best;
    double bestD = 0;
    for (const auto* s : m_series) {
        const auto& recs = s->records;
        auto it = std::lower_bound(recs.begin(), recs.end(), x,
                                   [&](const auto& r, double v) { return xOfRecord(r) < v; });
        for (auto c : {it, it == recs.begin() ? it : it - 1}) {
            if (c == recs.end()) continue;
            const double d = std::abs(xOfRecord(*c) - x);
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

// ---- cursors A and B ----

void StatPlot::setCursorAt(Cursor c, std::optional<std::int64_t> gstep) {
    m_cursors[int(c)] = gstep;
    updateCursorItems();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit cursorsChanged();
}

void StatPlot::clearCursors() {
    m_cursors = {};
    updateCursorItems();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit cursorsChanged();
}

void StatPlot::placeCursor(Cursor c) {
    const QPoint mouse = m_plot->mapFromGlobal(QCursor::pos());
    std::optional<std::int64_t> g;
    if (m_plot->underMouse() && m_plot->axisRect()->rect().contains(mouse))
        g = nearestGstep(m_plot->xAxis->pixelToCoord(mouse.x()));
    else if (m_cursorStep)
        g = m_cursorStep;
    else
        g = nearestGstep(m_plot->xAxis->range().center());
    if (g) setCursorAt(c, g);
}

void StatPlot::updateCursorItems() {
    QStringList parts;
    std::array<double, 2> xs{};
    for (int i = 0; i < 2; ++i) {
        const auto& g = m_cursors[std::size_t(i)];
        const double x = g ? xOfGstep(*g) : std::nan("");
        xs[std::size_t(i)] = x;
        const bool shown = std::isfinite(x);
        m_cursorLines[std::size_t(i)]->setVisible(shown);
        m_cursorLabels[std::size_t(i)]->setVisible(shown);
        if (!shown) continue;
        m_cursorLines[std::size_t(i)]->point1->setCoords(x, 0);
        m_cursorLines[std::size_t(i)]->point2->setCoords(x, 1);
        m_cursorLabels[std::size_t(i)]->position->setCoords(x, 0);
    }
    if (!m_cursors[0] && !m_cursors[1]) {
        m_readout->hide();
        return;
    }
    // A one-line summary: the steps, their distance in steps and time, and the legend's lines.
    auto timeOf = [&](std::int64_t g) -> std::optional<std::int64_t> {
        const auto r = recordAtOrAfter(g);
        if (r && r->gstep == g) return r->timestamp;
        return std::nullopt;
    };
    QString text;
    for (int i = 0; i < 2; ++i)
        if (m_cursors[std::size_t(i)])
            text += QStringLiteral("<b style='color:%1'>%2</b> gstep %3 &nbsp; ")
                        .arg(kCursorColours[i].name(), QLatin1String(kCursorNames[i]))
                        .arg(*m_cursors[std::size_t(i)]);
    if (m_cursors[0] && m_cursors[1]) {
        text += tr("<b>\u0394</b> %n step(s)", nullptr, int(*m_cursors[1] - *m_cursors[0]));
        const auto ta = timeOf(*m_cursors[0]), tb = timeOf(*m_cursors[1]);
        if (ta && tb) text += QStringLiteral(", %1").arg(formatDurationMs(*tb - *ta));
    }
    int shown = 0;
    for (const auto& l : m_lines) {
        if (!l.value || !m_plot->legend->hasItemWithPlottable(l.graph)) continue;
        if (++shown > 4) break;
        const double a = m_cursors[0] ? valueAt(l.data, xs[0]) : std::nan("");
        const double b = m_cursors[1] ? valueAt(l.data, xs[1]) : std::nan("");
        text += QStringLiteral(" &nbsp;|&nbsp; %1: ").arg(l.graph->name().toHtmlEscaped());
        if (m_cursors[0]) text += formatValue(a);
        if (m_cursors[0] && m_cursors[1]) text += QStringLiteral(" \u2192 ");
        if (m_cursors[1]) text += formatValue(b);
        if (m_cursors[0] && m_cursors[1])
            text += QStringLiteral(" (\u0394 %1)").arg(formatValue(b - a));
    }
    m_readout->setText(text);
    m_readout->setToolTip(tr("Ctrl+Shift+C (or Ctrl+C in the plot) copies every value"));
    m_readout->show();
}

QString StatPlot::cursorText() const {
    if (!m_cursors[0] && !m_cursors[1]) return {};
    const bool both = m_cursors[0] && m_cursors[1];
    QStringList rows;
    QStringList header{QStringLiteral("key: ") + m_key};
    for (int i = 0; i < 2; ++i)
        if (m_cursors[std::size_t(i)]) header << QString::fromLatin1(kCursorNames[i]);
    if (both) header << QStringLiteral("B - A");
    rows << header.join(QLatin1Char('\t'));
    auto row = [&](const QString& name, auto cell, auto delta) {
        QStringList r{name};
        for (int i = 0; i < 2; ++i)
            if (m_cursors[std::size_t(i)]) r << cell(i);
        if (both) r << delta();
        rows << r.join(QLatin1Char('\t'));
    };
    std::optional<analysis::RecordStats> recs[2];
    for (int i = 0; i < 2; ++i)
        if (m_cursors[std::size_t(i)]) {
            auto r = recordAtOrAfter(*m_cursors[std::size_t(i)]);
            if (r && r->gstep == *m_cursors[std::size_t(i)]) recs[i] = r;
        }
    row(
        QStringLiteral("gstep"), [&](int i) { return QString::number(*m_cursors[std::size_t(i)]); },
        [&] { return QString::number(*m_cursors[1] - *m_cursors[0]); });
    row(
        QStringLiteral("lstep"),
        [&](int i) { return recs[i] ? QString::number(recs[i]->lstep) : QString(); },
        [&] {
            return recs[0] && recs[1] ? QString::number(recs[1]->lstep - recs[0]->lstep)
                                      : QString();
        });
    row(
        QStringLiteral("time (UTC)"),
        [&](int i) { return recs[i] ? formatTimestampMs(recs[i]->timestamp) : QString(); },
        [&] {
            return recs[0] && recs[1]
                       ? QStringLiteral("%1 s").arg(
                             double(recs[1]->timestamp - recs[0]->timestamp) / 1000.0, 0, 'f', 3)
                       : QString();
        });
    for (const auto& l : m_lines) {
        if (!l.value) continue;
        double v[2] = {std::nan(""), std::nan("")};
        for (int i = 0; i < 2; ++i)
            if (m_cursors[std::size_t(i)])
                v[i] = valueAt(l.data, xOfGstep(*m_cursors[std::size_t(i)]));
        row(
            l.graph->name(), [&](int i) { return formatValue(v[i]); },
            [&] { return formatValue(v[1] - v[0]); });
    }
    return rows.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void StatPlot::copyCursors() const {
    const QString text = cursorText();
    if (!text.isEmpty()) QApplication::clipboard()->setText(text);
}

// ---- notes ----

void StatPlot::setNotes(std::vector<Note> notes) {
    m_notes = std::move(notes);
    drawNotes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void StatPlot::drawNotes() {
    removeItems(m_plot, m_noteItems);
    if (m_series.empty()) return;
    for (const Note& n : m_notes) {
        double x0 = 0, x1 = 0;
        if (n.kind == Note::Kind::TimeRange && xMode() == XAxisMode::WallTime) {
            const double shift = m_options.logX ? m_timeOrigin : 0;
            x0 = double(n.begin) / 1000.0 - shift;
            x1 = double(n.end) / 1000.0 - shift;
        } else {
            const auto steps = noteSteps(n, m_series);
            if (!steps) continue;
            const auto a = recordAtOrAfter(steps->first);
            const auto b = recordAtOrAfter(steps->second);
            if (!a) continue;
            x0 = xMode() == XAxisMode::Gstep ? double(steps->first) : xOfRecord(*a);
            x1 = xMode() == XAxisMode::Gstep ? double(steps->second) : b ? xOfRecord(*b) : x0;
        }
        addNoteItems(m_plot, m_plot->axisRect(), x0, x1, n, m_noteItems);
    }
}

// ---- mouse ----

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
    if (!m_spread.steps.empty()) {
        const auto it = std::lower_bound(
            m_spread.steps.begin(), m_spread.steps.end(), *g,
            [](const analysis::RankSpreadStep& s, std::int64_t v) { return s.gstep < v; });
        if (it != m_spread.steps.end() && it->gstep == *g)
            text += tr("<br>mean over %1 ranks: median %2, min %3, max %4")
                        .arg(it->ranks)
                        .arg(formatValue(it->median), formatValue(it->min), formatValue(it->max));
    }
    int listed = 0, more = 0;
    for (const auto* s : m_series) {
        const std::size_t at = s->records.find(Field::Gstep, double(*g));
        if (at == s->records.size()) continue;
        if (listed == kLegendRanks) {
            ++more;
            continue;
        }
        ++listed;
        const analysis::RecordStats r = s->records[at];
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
            text +=
                tr(" <span style='color:#d02020'>NaN %1, Inf %2</span>").arg(st.nan).arg(st.inf);
    }
    if (more) text += tr("<br>... and %n more rank(s)", nullptr, more);
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

void StatPlot::showContextMenu(QPoint pos) {
    const auto g = nearestGstep(m_plot->xAxis->pixelToCoord(pos.x()));
    QMenu menu(this);
    if (g) {
        menu.addAction(tr("Set Cursor &A Here (Ctrl+1)"), this,
                       [this, g] { setCursorAt(Cursor::A, g); });
        menu.addAction(tr("Set Cursor &B Here (Ctrl+2)"), this,
                       [this, g] { setCursorAt(Cursor::B, g); });
    }
    QAction* clear = menu.addAction(tr("&Clear Cursors (Ctrl+0)"), this, &StatPlot::clearCursors);
    QAction* copy =
        menu.addAction(tr("C&opy Cursor Values (Ctrl+Shift+C)"), this, &StatPlot::copyCursors);
    clear->setEnabled(m_cursors[0] || m_cursors[1]);
    copy->setEnabled(m_cursors[0] || m_cursors[1]);
    if (g) {
        menu.addSeparator();
        menu.addAction(tr("Add &Note at gstep %1...").arg(*g), this, [this, g] {
            setStepCursor(*g);
            emit stepSelected(*g);
            emit noteRequested(*g);
        });
    }
    menu.exec(m_plot->mapToGlobal(pos));
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
    case Qt::Key_C:
        if (e->matches(QKeySequence::Copy) && (m_cursors[0] || m_cursors[1])) {
            copyCursors();
            return;
        }
        QWidget::keyPressEvent(e);
        return;
    case Qt::Key_BracketLeft:
    case Qt::Key_BracketRight:
        if (m_cursorStep && !m_series.empty()) {
            // Step the cursor to the previous / next recorded gstep.
            const auto& records = m_series.front()->records;
            std::vector<double> steps(records.size());
            records.read(Field::Gstep, 0, steps.size(), steps.data());
            auto it = std::lower_bound(steps.begin(), steps.end(), *m_cursorStep);
            if (e->key() == Qt::Key_BracketRight && it != steps.end() && *it == *m_cursorStep)
                ++it;
            else if (e->key() == Qt::Key_BracketLeft)
                it = it == steps.begin() ? it : it - 1;
            if (it != steps.end()) {
                const auto step = std::int64_t(*it);
                setStepCursor(step);
                emit stepSelected(step);
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
