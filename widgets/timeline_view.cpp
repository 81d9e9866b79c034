#include "widgets/timeline_view.h"

#include "widgets/logic/slice_search.h"
#include "widgets/trace_time_format.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <functional>

namespace xt::widgets {

using timeline::kNoIndex;
using timeline::LodItem;
using timeline::StringId;
using timeline::TraceStore;
using view::formatDuration;
using view::LayoutInput;
using view::LayoutRow;
using view::RowKind;
using view::RulerTick;

namespace {

constexpr int kMaxFlows = 200;

// Light, distinct colours (Chrome trace viewer's general palette, slightly adjusted).
constexpr QRgb kPalette[] = {
    0xff8dd3c7, 0xffffd92f, 0xffbebada, 0xfffb8072, 0xff80b1d3, 0xfffdb462, 0xffb3de69,
    0xfffccde5, 0xffbc80bd, 0xffccebc5, 0xffffed6f, 0xff66c2a5, 0xfffc8d62, 0xff8da0cb,
    0xffe78ac3, 0xffa6d854, 0xffe5c494, 0xff9ecae1, 0xfffdae6b, 0xffc7e9c0,
};
constexpr int kPaletteSize = int(sizeof kPalette / sizeof kPalette[0]);

QColor dimmed(QRgb c) {
    const auto mix = [](int v) { return (v + 3 * 235) / 4; };
    return QColor(mix(qRed(c)), mix(qGreen(c)), mix(qBlue(c)));
}

std::uint32_t fnv1a(std::string_view s) {
    std::uint32_t h = 2166136261u;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 16777619u;
    }
    return h;
}

QString fromView(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString formatNs(std::int64_t ns) {
    return QString::fromStdString(formatDuration(ns));
}

} // namespace

// Names as QStrings, their widths and colour slots, filled in while painting.
struct TimelineView::LayerText {
    std::vector<QString> names;
    std::vector<char> nameKnown;
    std::vector<int> widths;
    std::vector<std::uint8_t> colours; // 255: not computed

    explicit LayerText(const TraceStore& s)
        : names(s.strings().size()), nameKnown(s.strings().size(), 0),
          widths(s.strings().size(), -1), colours(s.strings().size(), 255) {}
};

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), m_vscroll(new QScrollBar(this)), m_cacheJobs(new JobTracker(this)),
      m_searchJobs(new JobTracker(this)) {
    setObjectName(QStringLiteral("TimelineView"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    QFont f = font();
    f.setPointSizeF(std::max(7.0, f.pointSizeF() * 0.9));
    setFont(f);
    m_vscroll->setOrientation(Qt::Vertical);
    connect(m_vscroll, &QScrollBar::valueChanged, this, [this] { update(); });
}

TimelineView::~TimelineView() = default;

// ---- layers and layout ----

void TimelineView::setLayers(std::vector<TimelineLayer> layers) {
    m_layers.clear();
    m_caches.clear();
    m_text.clear();
    m_collapsed.clear();
    m_pinned.clear();
    m_selLayer = -1;
    m_selSlice = kNoIndex;
    m_selFlows.clear();
    m_range.reset();
    m_hlLayer = -1;
    m_hits.clear();
    m_hitIndex = -1;
    cancelSearch();
    for (auto& l : layers)
        if (l.store && l.lod) {
            m_caches.emplace_back();
            m_text.push_back(std::make_unique<LayerText>(*l.store));
            m_layers.push_back(std::move(l));
        }
    m_collapsed.resize(m_layers.size());
    m_pinned.resize(m_layers.size());
    m_layerCollapsed.assign(m_layers.size(), 0);
    startCacheJob();
    rebuildLayout();
    rebuildSpan(true);
    emit layersChanged();
}

void TimelineView::addLayer(TimelineLayer layer) {
    if (!layer.store || !layer.lod) return;
    const bool first = m_layers.empty();
    m_caches.emplace_back();
    m_text.push_back(std::make_unique<LayerText>(*layer.store));
    m_layers.push_back(std::move(layer));
    m_collapsed.emplace_back();
    m_pinned.emplace_back();
    m_layerCollapsed.push_back(0);
    startCacheJob();
    rebuildLayout();
    rebuildSpan(first);
    emit layersChanged();
}

void TimelineView::startCacheJob() {
    std::vector<std::shared_ptr<const TraceStore>> todo;
    for (std::size_t i = 0; i < m_layers.size(); ++i)
        if (!m_caches[i]) todo.push_back(m_layers[i].store);
    const bool was = m_cacheJobs->isRunning();
    if (todo.empty()) {
        m_cacheJobs->cancel();
        if (was) emit indexingChanged(false);
        return;
    }
    using Built = std::vector<
        std::pair<std::shared_ptr<const TraceStore>, std::shared_ptr<const view::LayerCache>>>;
    // The stores travel with the job, so a layer removed meanwhile stays valid until it ends.
    m_cacheJobs->startJob(
        [todo](JobContext& ctx) {
            Built built;
            const ProgressCallback cb = ctx.callback();
            for (std::size_t i = 0; i < todo.size(); ++i) {
                auto cache = view::buildLayerCache(*todo[i], [&](const ProgressReport& r) {
                    const double f = r.total ? double(r.done) / double(r.total) : 0;
                    return cb({std::uint64_t((double(i) + f) * 1000), 1000 * todo.size(), r.stage});
                });
                if (!cache) return Built{};
                built.emplace_back(todo[i],
                                   std::make_shared<view::LayerCache>(std::move(cache.value())));
            }
            return built;
        },
        [this](const Built& built) {
            for (std::size_t i = 0; i < m_layers.size(); ++i)
                for (const auto& [store, cache] : built)
                    if (!m_caches[i] && store == m_layers[i].store) m_caches[i] = cache;
            // A window fitted before the data's extent was known fits it now, unless moved.
            if (m_fitWindow == std::pair<std::int64_t, std::int64_t>{m_axis.t0(), m_axis.t1()})
                fitAll();
            update();
            emit indexingChanged(false);
        });
    if (!was) emit indexingChanged(true);
}

void TimelineView::setLayerOffset(int layer, qint64 offsetNs) {
    if (layer < 0 || layer >= int(m_layers.size())) return;
    m_layers[std::size_t(layer)].offsetNs = offsetNs;
    rebuildSpan(false);
    update();
}

void TimelineView::alignLayer(int layer, quint32 slice, int refLayer, quint32 refSlice) {
    if (layer < 0 || layer >= int(m_layers.size()) || refLayer < 0 ||
        refLayer >= int(m_layers.size()) || layer == refLayer)
        return;
    const TraceStore& s = *m_layers[std::size_t(layer)].store;
    const TraceStore& r = *m_layers[std::size_t(refLayer)].store;
    if (slice >= s.sliceCount() || refSlice >= r.sliceCount()) return;
    setLayerOffset(layer, r.sliceStart()[refSlice] + offset(refLayer) - s.sliceStart()[slice]);
}

std::int64_t TimelineView::offset(int layer) const {
    return layer >= 0 && layer < int(m_layers.size()) ? m_layers[std::size_t(layer)].offsetNs : 0;
}

void TimelineView::rebuildLayout() {
    std::vector<LayoutInput> in(m_layers.size());
    for (std::size_t i = 0; i < m_layers.size(); ++i)
        in[i] = {m_layers[i].store.get(), m_collapsed[i], m_pinned[i], m_layerCollapsed[i] != 0};
    m_layout = buildLayout(in, m_metrics, m_layers.size() > 1);
    m_trackRows.assign(m_layers.size(), {});
    for (std::size_t i = 0; i < m_layers.size(); ++i)
        m_trackRows[i].assign(m_layers[i].store->tracks().size(), RowRef{});
    for (int pass = 0; pass < 2; ++pass) {
        const auto& rows = pass ? m_layout.scrolled : m_layout.pinned;
        for (int r = 0; r < int(rows.size()); ++r)
            if (rows[std::size_t(r)].kind == RowKind::Track)
                m_trackRows[std::size_t(rows[std::size_t(r)].layer)][rows[std::size_t(r)].index] =
                    RowRef{pass == 0, r};
    }
    updateScrollBar();
    update();
}

void TimelineView::rebuildSpan(bool fit) {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    for (const auto& l : m_layers)
        if (l.store->beginTime() != timeline::kNoTime) {
            lo = std::min(lo, l.store->beginTime() + l.offsetNs);
            hi = std::max(hi, l.store->endTime() + l.offsetNs);
        }
    if (lo > hi) lo = hi = 0;
    const std::int64_t o0 = m_axis.t0(), o1 = m_axis.t1();
    m_axis.setSpan(lo, hi);
    m_axis.setWidth(timeWidth());
    if (fit)
        fitAll();
    else if (o0 != m_axis.t0() || o1 != m_axis.t1())
        windowChanged();
}

std::pair<qint64, qint64> TimelineView::dataExtent() const {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < m_layers.size(); ++i) {
        // Until its cache is built, a layer's extent is its store's span (markers included).
        const TraceStore& s = *m_layers[i].store;
        const std::int64_t b = m_caches[i] ? m_caches[i]->dataBegin : s.beginTime();
        const std::int64_t e = m_caches[i] ? m_caches[i]->dataEnd : s.endTime();
        if (b != timeline::kNoTime) {
            lo = std::min(lo, b + m_layers[i].offsetNs);
            hi = std::max(hi, e + m_layers[i].offsetNs);
        }
    }
    if (lo > hi) return {0, 0};
    return {lo - offset(0), hi - offset(0)};
}

qint64 TimelineView::traceBegin() const {
    return m_axis.spanBegin() - offset(0);
}

void TimelineView::updateScrollBar() {
    const int area = std::max(0, height() - scrolledTop());
    m_vscroll->setGeometry(width() - m_vscroll->sizeHint().width(), scrolledTop(),
                           m_vscroll->sizeHint().width(), area);
    m_vscroll->setRange(0, std::max(0, m_layout.scrolledHeight - area));
    m_vscroll->setPageStep(std::max(1, area));
    m_vscroll->setSingleStep(m_metrics.sliceRow * 2);
}

int TimelineView::scrollOffset() const {
    return m_vscroll->value();
}

int TimelineView::pinnedAreaHeight() const {
    // Pinned tracks take at most half of the track area; the rest scrolls.
    return std::min(m_layout.pinnedHeight, std::max(0, (height() - pinnedTop()) / 2));
}

double TimelineView::timeWidth() const {
    return std::max(10.0, double(width() - kLabelWidth - m_vscroll->sizeHint().width()));
}

QRect TimelineView::timeArea() const {
    return QRect(kLabelWidth, pinnedTop(), int(timeWidth()), std::max(0, height() - pinnedTop()));
}

int TimelineView::rowTop(const LayoutRow& row) const {
    return row.pinned ? pinnedTop() + row.y : scrolledTop() + row.y - m_vscroll->value();
}

TimelineView::RowRef TimelineView::trackRow(int layer, std::uint32_t track) const {
    if (layer < 0 || layer >= int(m_trackRows.size())) return {};
    const auto& v = m_trackRows[std::size_t(layer)];
    return track < v.size() ? v[track] : RowRef{};
}

const LayoutRow* TimelineView::rowAt(QPoint pos) const {
    const int y = pos.y();
    const std::vector<LayoutRow>* rows = nullptr;
    int local = 0;
    if (y >= pinnedTop() && y < scrolledTop()) {
        rows = &m_layout.pinned;
        local = y - pinnedTop();
    } else if (y >= scrolledTop()) {
        rows = &m_layout.scrolled;
        local = y - scrolledTop() + m_vscroll->value();
    } else {
        return nullptr;
    }
    auto it = std::upper_bound(rows->begin(), rows->end(), local,
                               [](int v, const LayoutRow& r) { return v < r.y; });
    if (it == rows->begin()) return nullptr;
    --it;
    return local < it->y + it->height ? &*it : nullptr;
}

timeline::LodQuery TimelineView::queryFor(int layer) const {
    const std::int64_t off = offset(layer);
    return {m_axis.t0() - off, m_axis.t1() - off, m_axis.width(), kMinPx};
}

std::vector<LodItem> TimelineView::visibleItems(int layer, std::uint32_t track) const {
    std::vector<LodItem> out;
    if (layer < 0 || layer >= int(m_layers.size())) return out;
    const auto& l = m_layers[std::size_t(layer)];
    l.lod->query(*l.store, track, queryFor(layer), out);
    return out;
}

// ---- window ----

void TimelineView::windowChanged() {
    const std::int64_t o = offset(0);
    emit viewWindowChanged(m_axis.t0() - o, m_axis.t1() - o);
    update();
}

void TimelineView::setViewWindow(qint64 t0, qint64 t1) {
    const std::int64_t o = offset(0);
    m_axis.setWindow(t0 + o, t1 + o);
    windowChanged();
}

qint64 TimelineView::viewStart() const {
    return m_axis.t0() - offset(0);
}
qint64 TimelineView::viewEnd() const {
    return m_axis.t1() - offset(0);
}

void TimelineView::fitAll() {
    if (m_layers.empty()) {
        m_axis.fitAll();
    } else {
        const auto [lo, hi] = dataExtent();
        const std::int64_t margin = std::max<std::int64_t>((hi - lo) / 100, 1000);
        m_axis.setWindow(lo + offset(0) - margin, hi + offset(0) + margin);
    }
    m_fitWindow = {m_axis.t0(), m_axis.t1()};
    windowChanged();
}

void TimelineView::zoomBy(double factor, double anchorPx) {
    m_axis.zoomAt(anchorPx < 0 ? m_axis.width() / 2 : anchorPx, factor);
    windowChanged();
}

void TimelineView::panBy(double fraction) {
    m_axis.panPx(-fraction * m_axis.width());
    windowChanged();
}

double TimelineView::anchorForKeys() const {
    if (m_mouseInside) {
        const double x = mapFromGlobal(QCursor::pos()).x() - timeX();
        if (x >= 0 && x <= m_axis.width()) return x;
    }
    return -1;
}

// ---- selection, highlight, search ----

void TimelineView::selectSlice(int layer, quint32 slice, bool center) {
    if (layer < 0 || layer >= int(m_layers.size())) return;
    const TraceStore& s = *m_layers[std::size_t(layer)].store;
    if (slice >= s.sliceCount()) return;
    m_selLayer = layer;
    m_selSlice = slice;
    m_selFlows.clear();
    const auto flows = s.flows();
    for (std::uint32_t f = 0; f < flows.size(); ++f)
        if (flows[f].fromSlice == slice || flows[f].toSlice == slice) m_selFlows.push_back(f);
    const std::uint32_t track = s.sliceTrack()[slice];
    const std::uint32_t proc = s.tracks()[track].process;
    if (isProcessCollapsed(layer, proc) && !isTrackPinned(layer, track))
        setProcessCollapsed(layer, proc, false);
    if (isLayerCollapsed(layer) && !isTrackPinned(layer, track)) setLayerCollapsed(layer, false);
    if (center) {
        const std::int64_t off = offset(layer);
        const std::int64_t a = s.sliceStart()[slice] + off, d = s.sliceDuration()[slice];
        if (d > m_axis.duration() * 8 / 10 || d * 1000 < m_axis.duration())
            m_axis.setWindow(a - std::max<std::int64_t>(d, 1000) / 4,
                             a + d + std::max<std::int64_t>(d, 1000) / 4);
        else if (a < m_axis.t0() || a + d > m_axis.t1())
            m_axis.centerOn(a + d / 2);
        const RowRef r = trackRow(layer, track);
        if (r.index >= 0 && !r.pinned) ensureRowVisible(m_layout.scrolled[std::size_t(r.index)]);
        windowChanged();
    }
    update();
    emit sliceSelected(layer, slice);
}

void TimelineView::ensureRowVisible(const LayoutRow& row) {
    const int area = height() - scrolledTop();
    const int v = m_vscroll->value();
    if (row.y < v)
        m_vscroll->setValue(row.y);
    else if (row.y + row.height > v + area)
        m_vscroll->setValue(row.y + std::min(row.height, area) - area);
}

void TimelineView::clearSelection() {
    const bool had = m_selSlice != kNoIndex;
    m_selLayer = -1;
    m_selSlice = kNoIndex;
    m_selFlows.clear();
    update();
    if (had) emit selectionCleared();
}

void TimelineView::clearSelections() {
    m_range.reset();
    clearHighlight();
    clearSelection();
}

std::optional<std::pair<qint64, qint64>> TimelineView::selectedRange() const {
    if (!m_range) return std::nullopt;
    const std::int64_t o = offset(0);
    return std::make_pair(m_range->first - o, m_range->second - o);
}

void TimelineView::fitSelection() {
    if (m_selSlice != kNoIndex) {
        const TraceStore& s = *m_layers[std::size_t(m_selLayer)].store;
        const std::int64_t a = s.sliceStart()[m_selSlice] + offset(m_selLayer);
        const std::int64_t d = s.sliceDuration()[m_selSlice];
        const std::int64_t pad = std::max<std::int64_t>(d / 10, 100);
        m_axis.setWindow(a - pad, a + d + pad);
    } else if (m_range) {
        m_axis.setWindow(m_range->first, m_range->second);
    } else {
        return;
    }
    windowChanged();
}

// ---- cursors and notes ----

void TimelineView::setCursorAt(Cursor c, std::optional<qint64> t) {
    m_cursors[int(c)] = t ? std::optional<std::int64_t>(*t + offset(0)) : std::nullopt;
    update();
    emit cursorsChanged();
}

std::optional<qint64> TimelineView::cursorAt(Cursor c) const {
    const auto& t = m_cursors[int(c)];
    return t ? std::optional<qint64>(*t - offset(0)) : std::nullopt;
}

void TimelineView::placeCursor(Cursor c) {
    const double x = anchorForKeys();
    const std::int64_t t = x >= 0 ? m_axis.toTime(x) : m_axis.t0() + m_axis.duration() / 2;
    setCursorAt(c, t - offset(0));
}

void TimelineView::clearCursors() {
    m_cursors[0].reset();
    m_cursors[1].reset();
    update();
    emit cursorsChanged();
}

std::optional<quint32> TimelineView::stepAt(int layer, qint64 t) const {
    if (layer < 0 || layer >= int(m_layers.size())) return std::nullopt;
    const auto& l = m_layers[std::size_t(layer)];
    const TraceStore& s = *l.store;
    const std::int64_t local = t + offset(0) - l.offsetNs;
    const auto& markers = l.stepMarkers;
    auto it =
        std::upper_bound(markers.begin(), markers.end(), local,
                         [&](std::int64_t v, std::uint32_t m) { return v < s.sliceStart()[m]; });
    if (it == markers.begin()) return std::nullopt;
    --it;
    return local < s.sliceEnd(*it) ? std::optional<quint32>(*it) : std::nullopt;
}

QString TimelineView::cursorText() const {
    const auto a = cursorAt(Cursor::A), b = cursorAt(Cursor::B);
    if (!a && !b) return {};
    const std::optional<qint64> at[2] = {a, b};
    const bool both = a && b;
    const qint64 origin = traceBegin();
    QStringList rows;
    auto row = [&](const QString& name, const std::function<QString(int)>& cell,
                   const std::function<QString()>& delta) {
        QStringList r{name};
        for (int i = 0; i < 2; ++i)
            if (at[i]) r << cell(i);
        if (both) r << delta();
        rows << r.join(QLatin1Char('\t'));
    };
    QStringList header{m_layers.empty() ? QString()
                                        : QStringLiteral("timeline: ") + m_layers.front().title};
    for (int i = 0; i < 2; ++i)
        if (at[i]) header << QString::fromLatin1(cursorName(Cursor(i)));
    if (both) header << QStringLiteral("B - A");
    rows << header.join(QLatin1Char('\t'));
    row(
        tr("time from start"), [&](int i) { return formatTraceDuration(double(*at[i] - origin)); },
        [&] { return formatTraceDuration(double(*b - *a)); });
    for (int li = 0; li < int(m_layers.size()); ++li) {
        const auto& l = m_layers[std::size_t(li)];
        if (l.stepMarkers.empty()) continue;
        const TraceStore& s = *l.store;
        std::optional<quint32> step[2];
        for (int i = 0; i < 2; ++i)
            if (at[i]) step[i] = stepAt(li, *at[i]);
        auto index = [&](quint32 m) {
            return std::lower_bound(l.stepMarkers.begin(), l.stepMarkers.end(), m,
                                    [&](std::uint32_t x, quint32 v) {
                                        return s.sliceStart()[x] < s.sliceStart()[v];
                                    }) -
                   l.stepMarkers.begin();
        };
        row(
            tr("step (%1)").arg(l.title),
            [&](int i) { return step[i] ? fromView(s.str(s.sliceName()[*step[i]])) : QString(); },
            [&] {
                return step[0] && step[1]
                           ? tr("%n step(s)", nullptr, int(index(*step[1]) - index(*step[0])))
                           : QString();
            });
    }
    for (int li = 0; li < int(m_layers.size()); ++li) {
        const TraceStore& s = *m_layers[std::size_t(li)].store;
        const std::int64_t shift = offset(0) - offset(li);
        for (const auto& c : s.counters()) {
            auto valueAt = [&](qint64 t) {
                const auto it = std::upper_bound(c.ts.begin(), c.ts.end(), t + shift);
                return it == c.ts.begin() ? std::nan("")
                                          : c.values[std::size_t(it - c.ts.begin()) - 1];
            };
            QString name = fromView(s.str(c.name));
            if (c.key) name += QLatin1Char(' ') + fromView(s.str(c.key));
            name += QStringLiteral(" (%1)").arg(QString::fromStdString(s.processLabel(c.process)));
            const double va = a ? valueAt(*a) : std::nan(""), vb = b ? valueAt(*b) : std::nan("");
            row(
                name, [&](int i) { return QString::number(i == 0 ? va : vb, 'g', 12); },
                [&] { return QString::number(vb - va, 'g', 12); });
        }
    }
    return rows.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString TimelineView::cursorSummary() const {
    const auto a = cursorAt(Cursor::A), b = cursorAt(Cursor::B);
    const qint64 origin = traceBegin();
    QStringList parts;
    if (a) parts << QStringLiteral("A %1").arg(formatTraceDuration(double(*a - origin)));
    if (b) parts << QStringLiteral("B %1").arg(formatTraceDuration(double(*b - origin)));
    if (a && b) {
        QString d = QStringLiteral("\u0394 %1").arg(formatTraceDuration(double(*b - *a)));
        if (!m_layers.empty() && !m_layers.front().stepMarkers.empty()) {
            const auto sa = stepAt(0, *a), sb = stepAt(0, *b);
            const TraceStore& s = *m_layers.front().store;
            if (sa && sb)
                d += tr(", %1 \u2192 %2")
                         .arg(fromView(s.str(s.sliceName()[*sa])),
                              fromView(s.str(s.sliceName()[*sb])));
        }
        parts << d;
    }
    return parts.join(QStringLiteral("  \u00b7  "));
}

void TimelineView::copyCursors() const {
    const QString text = cursorText();
    if (!text.isEmpty()) QApplication::clipboard()->setText(text);
}

void TimelineView::setNotes(std::vector<Note> notes) {
    m_notes = std::move(notes);
    update();
}

void TimelineView::highlightName(int layer, StringId name) {
    m_hlLayer = layer;
    m_hlName = name;
    update();
}

void TimelineView::clearHighlight() {
    m_hlLayer = -1;
    update();
}

void TimelineView::find(const QString& text) {
    m_hits.clear();
    m_hitIndex = -1;
    const std::string needle = text.toStdString();
    std::vector<std::shared_ptr<const TraceStore>> stores;
    for (const auto& l : m_layers)
        stores.push_back(l.store);
    if (needle.empty() || stores.empty()) {
        cancelSearch();
        m_searchComplete = true;
        update();
        return;
    }
    m_searchComplete = false;
    m_searchJobs->startJob(
        [stores, needle](JobContext& ctx) {
            std::vector<const TraceStore*> layers;
            for (const auto& s : stores)
                layers.push_back(s.get());
            QVector<SearchHit> out;
            auto hits = view::findSlices(layers, needle, ctx.callback());
            if (!hits) return out; // cancelled: this result is dropped
            out.reserve(qsizetype(hits->size()));
            for (const view::SliceHit& h : *hits)
                out.push_back({int(h.layer), h.slice});
            return out;
        },
        [this](const QVector<SearchHit>& hits) {
            m_hits = hits;
            m_searchComplete = true;
            update();
            emit searchStateChanged();
        });
    update();
    emit searchStateChanged();
}

void TimelineView::cancelSearch() {
    if (!m_searchJobs->isRunning()) return;
    m_searchJobs->cancel();
    m_searchComplete = false;
    emit searchStateChanged();
}

bool TimelineView::isSearching() const {
    return m_searchJobs->isRunning();
}

std::shared_ptr<JobContext> TimelineView::searchJob() const {
    return m_searchJobs->current();
}

bool TimelineView::isIndexing() const {
    return m_cacheJobs->isRunning();
}

std::shared_ptr<JobContext> TimelineView::indexingJob() const {
    return m_cacheJobs->current();
}

bool TimelineView::selectNextHit() {
    if (m_hits.isEmpty()) return false;
    m_hitIndex = (m_hitIndex + 1) % int(m_hits.size());
    selectSlice(m_hits[m_hitIndex].layer, m_hits[m_hitIndex].slice, true);
    return true;
}

bool TimelineView::selectPreviousHit() {
    if (m_hits.isEmpty()) return false;
    m_hitIndex = m_hitIndex <= 0 ? int(m_hits.size()) - 1 : m_hitIndex - 1;
    selectSlice(m_hits[m_hitIndex].layer, m_hits[m_hitIndex].slice, true);
    return true;
}

void TimelineView::setProcessCollapsed(int layer, std::uint32_t process, bool collapsed) {
    if (layer < 0 || layer >= int(m_layers.size())) return;
    auto& set = m_collapsed[std::size_t(layer)];
    if (collapsed ? !set.insert(process).second : set.erase(process) == 0) return;
    rebuildLayout();
}

void TimelineView::setLayerCollapsed(int layer, bool collapsed) {
    if (layer < 0 || layer >= int(m_layers.size()) ||
        (m_layerCollapsed[std::size_t(layer)] != 0) == collapsed)
        return;
    m_layerCollapsed[std::size_t(layer)] = collapsed;
    rebuildLayout();
}

bool TimelineView::isLayerCollapsed(int layer) const {
    return layer >= 0 && layer < int(m_layerCollapsed.size()) &&
           m_layerCollapsed[std::size_t(layer)] != 0;
}

bool TimelineView::isProcessCollapsed(int layer, std::uint32_t process) const {
    return layer >= 0 && layer < int(m_collapsed.size()) &&
           m_collapsed[std::size_t(layer)].count(process) > 0;
}

void TimelineView::setTrackPinned(int layer, std::uint32_t track, bool pinned) {
    if (layer < 0 || layer >= int(m_layers.size())) return;
    auto& set = m_pinned[std::size_t(layer)];
    if (pinned ? !set.insert(track).second : set.erase(track) == 0) return;
    rebuildLayout();
}

bool TimelineView::isTrackPinned(int layer, std::uint32_t track) const {
    return layer >= 0 && layer < int(m_pinned.size()) &&
           m_pinned[std::size_t(layer)].count(track) > 0;
}

// ---- geometry queries ----

std::optional<QPointF> TimelineView::slicePosition(int layer, quint32 slice) const {
    if (layer < 0 || layer >= int(m_layers.size())) return std::nullopt;
    const TraceStore& s = *m_layers[std::size_t(layer)].store;
    if (slice >= s.sliceCount()) return std::nullopt;
    const RowRef r = trackRow(layer, s.sliceTrack()[slice]);
    if (r.index < 0) return std::nullopt;
    const LayoutRow& row = (r.pinned ? m_layout.pinned : m_layout.scrolled)[std::size_t(r.index)];
    const int top = rowTop(row);
    const double y = top + s.sliceDepth()[slice] * m_metrics.sliceRow + m_metrics.sliceRow / 2.0;
    const int areaTop = r.pinned ? pinnedTop() : scrolledTop();
    const int areaBottom = r.pinned ? scrolledTop() : height();
    if (y < areaTop || y >= areaBottom) return std::nullopt;
    const std::int64_t off = offset(layer);
    const double x0 = std::max(0.0, m_axis.toPx(s.sliceStart()[slice] + off));
    const double x1 = std::min(m_axis.width(), m_axis.toPx(s.sliceEnd(slice) + off));
    if (x1 < 0 || x0 > m_axis.width()) return std::nullopt;
    return QPointF(timeX() + (x0 + x1) / 2, y);
}

TimelineView::Hit TimelineView::hitTest(QPoint pos) const {
    Hit hit;
    const double x = pos.x() - timeX();
    if (x < 0 || x > m_axis.width()) return hit;
    const LayoutRow* row = rowAt(pos);
    if (!row || row->kind != RowKind::Track) return hit;
    const int depth = (pos.y() - rowTop(*row)) / m_metrics.sliceRow;
    const auto items = visibleItems(row->layer, row->index);
    const int i = hitTestItems(items, std::uint16_t(depth), m_axis, offset(row->layer), x, 3.0);
    if (i < 0) return hit;
    hit.layer = row->layer;
    hit.item = items[std::size_t(i)];
    hit.slice = hit.item.slice;
    return hit;
}

QString TimelineView::tooltipAt(QPoint pos) const {
    const Hit h = hitTest(pos);
    if (!h.valid()) return {};
    const TraceStore& s = *m_layers[std::size_t(h.layer)].store;
    if (h.item.folded())
        return tr("%n slices folded (%1)", nullptr, int(h.item.count))
            .arg(formatNs(h.item.end - h.item.start));
    QString cat = fromView(s.str(s.sliceCategory()[h.slice]));
    return QStringLiteral("<b>%1</b><br>%2%3")
        .arg(fromView(s.str(s.sliceName()[h.slice])).toHtmlEscaped(),
             formatNs(s.sliceDuration()[h.slice]),
             cat.isEmpty() ? QString() : QStringLiteral("<br>") + cat.toHtmlEscaped());
}

// ---- painting ----

const QString& TimelineView::nameOf(int layer, StringId id) {
    LayerText& c = *m_text[std::size_t(layer)];
    if (!c.nameKnown[id]) {
        c.names[id] = fromView(m_layers[std::size_t(layer)].store->str(id));
        c.nameKnown[id] = 1;
    }
    return c.names[id];
}

int TimelineView::nameWidth(int layer, StringId id, const QFontMetrics& fm) {
    LayerText& c = *m_text[std::size_t(layer)];
    if (c.widths[id] < 0) c.widths[id] = fm.horizontalAdvance(nameOf(layer, id));
    return c.widths[id];
}

int TimelineView::colourOf(int layer, StringId id) {
    LayerText& c = *m_text[std::size_t(layer)];
    if (c.colours[id] == 255)
        c.colours[id] =
            std::uint8_t(fnv1a(m_layers[std::size_t(layer)].store->str(id)) % kPaletteSize);
    return c.colours[id];
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(0xfa, 0xfa, 0xfa));
    if (m_layers.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No timeline loaded"));
        return;
    }
    m_axis.setWidth(timeWidth());
    paintOverview(p);
    paintRuler(p);
    paintRows(p, m_layout.scrolled, scrolledTop(), height(), m_vscroll->value());
    paintRows(p, m_layout.pinned, pinnedTop(), scrolledTop(), 0);
    if (pinnedAreaHeight() > 0) {
        p.setPen(QColor(0x90, 0x90, 0x90));
        p.drawLine(0, scrolledTop() - 1, width(), scrolledTop() - 1);
    }
    paintFlows(p);
    paintOverlays(p);
    paintNotesAndCursors(p);
}

void TimelineView::paintNotesAndCursors(QPainter& p) {
    const QRect area = timeArea();
    const QFontMetrics fm = p.fontMetrics();
    p.save();
    p.setClipRect(area.adjusted(0, -kRulerHeight, 0, 0));
    const std::int64_t o = offset(0);
    int labelRow = 0;
    for (const Note& n : m_notes) {
        if (n.kind != Note::Kind::TimeRange) continue;
        const double x0 = timeX() + m_axis.toPx(n.begin + o);
        const double x1 = timeX() + m_axis.toPx(n.end + o);
        if (x1 < area.left() - 1 || x0 > area.right() + 1) continue;
        QColor fill = n.colour;
        fill.setAlpha(40);
        if (x1 - x0 >= 1) {
            p.fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), fill);
            p.setPen(QPen(n.colour, 1, Qt::DashLine));
            p.drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
            p.drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
        } else {
            p.setPen(QPen(n.colour, 2));
            p.drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
        }
        if (n.text.isEmpty()) continue;
        const QString text = fm.elidedText(n.text, Qt::ElideRight, 400);
        const QRectF box(std::max(x0, double(area.left())) + 2,
                         area.top() + 2 + (labelRow++ % 3) * (fm.height() + 4),
                         fm.horizontalAdvance(text) + 8, fm.height() + 2);
        p.fillRect(box, QColor(255, 255, 255, 220));
        p.setPen(n.colour.darker(140));
        p.drawRect(box);
        p.drawText(box, Qt::AlignCenter, text);
    }
    std::optional<double> xs[2];
    for (int i = 0; i < 2; ++i) {
        if (!m_cursors[i]) continue;
        const double x = timeX() + m_axis.toPx(*m_cursors[i]);
        if (x < area.left() - 1 || x > area.right() + 1) continue;
        xs[i] = x;
        const QColor c = cursorColour(Cursor(i));
        p.setPen(QPen(c, 1.5, Qt::DashLine));
        p.drawLine(QPointF(x, area.top() - kRulerHeight), QPointF(x, area.bottom()));
        const QRectF box(x - 8, area.top() - kRulerHeight + 1, 16, fm.height() + 2);
        p.fillRect(box, c);
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, QString::fromLatin1(cursorName(Cursor(i))));
    }
    if (m_cursors[0] && m_cursors[1]) {
        const double a = timeX() + m_axis.toPx(*m_cursors[0]);
        const double b = timeX() + m_axis.toPx(*m_cursors[1]);
        const QString text =
            QStringLiteral("Δ %1").arg(formatTraceDuration(double(*m_cursors[1] - *m_cursors[0])));
        const int tw = fm.horizontalAdvance(text) + 10;
        const double mid = std::clamp((a + b) / 2, double(area.left()) + tw / 2.0,
                                      double(area.right()) - tw / 2.0);
        // At the foot of the tracks, clear of the ruler's labels and of the notes' texts.
        const QRectF box(mid - tw / 2.0, area.bottom() - fm.height() - 6, tw, fm.height() + 2);
        p.fillRect(box, QColor(0x40, 0x40, 0x40));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.restore();
}

void TimelineView::paintOverview(QPainter& p) {
    const QRect r(int(timeX()), 0, int(m_axis.width()), kOverviewHeight - 2);
    p.fillRect(QRect(0, 0, width(), kOverviewHeight), QColor(0xee, 0xee, 0xf2));
    p.setPen(QColor(0x50, 0x50, 0x60));
    p.drawText(QRect(6, 0, kLabelWidth - 8, kOverviewHeight), Qt::AlignVCenter,
               isIndexing() ? tr("Overview (indexing...)") : tr("Overview"));
    const double lo = double(m_axis.limitBegin()), span = double(m_axis.limitEnd() - lo);
    auto ox = [&](double t) { return r.left() + (t - lo) / span * r.width(); };
    // Density per layer: slice starts per bucket, log-scaled.
    for (std::size_t li = 0; li < m_layers.size(); ++li) {
        const TraceStore& s = *m_layers[li].store;
        if (s.beginTime() == timeline::kNoTime || !m_caches[li]) continue;
        const auto& ov = m_caches[li]->overview;
        const std::uint32_t peak = *std::max_element(ov.begin(), ov.end());
        if (peak == 0) continue;
        const int buckets = int(ov.size());
        const double b0 = double(s.beginTime() + m_layers[li].offsetNs);
        const double bw = double(s.endTime() - s.beginTime() + 1) / buckets;
        const QColor c = QColor::fromRgb(kPalette[(li * 4 + 4) % kPaletteSize]).darker(130);
        for (int b = 0; b < buckets; ++b) {
            if (!ov[std::size_t(b)]) continue;
            const double h = std::log1p(ov[std::size_t(b)]) / std::log1p(peak) * (r.height() - 4);
            const double x0 = ox(b0 + b * bw), x1 = std::max(x0 + 1, ox(b0 + (b + 1) * bw));
            p.fillRect(QRectF(x0, r.bottom() - h, x1 - x0, h), c);
        }
    }
    const double wx0 = ox(double(m_axis.t0())), wx1 = std::max(wx0 + 2, ox(double(m_axis.t1())));
    p.setPen(QPen(QColor(0x20, 0x60, 0xc0), 1));
    p.setBrush(QColor(0x20, 0x60, 0xc0, 50));
    p.drawRect(QRectF(wx0, 1, wx1 - wx0, r.height() - 1));
    p.setBrush(Qt::NoBrush);
}

void TimelineView::paintRuler(QPainter& p) {
    const int top = kOverviewHeight;
    p.fillRect(QRect(0, top, width(), kRulerHeight), QColor(0xf0, 0xf0, 0xf0));
    p.setPen(QColor(0xb0, 0xb0, 0xb0));
    p.drawLine(0, top + kRulerHeight - 1, width(), top + kRulerHeight - 1);
    const std::int64_t origin = m_axis.spanBegin();
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(
        QRect(6, top, kLabelWidth - 8, kRulerHeight), Qt::AlignVCenter,
        QStringLiteral("%1 / %2").arg(formatNs(m_axis.t0() - origin), formatNs(m_axis.duration())));
    p.save();
    p.setClipRect(QRect(int(timeX()), top, int(m_axis.width()), kRulerHeight));
    for (const RulerTick& t : rulerTicks(m_axis, origin)) {
        const int x = int(timeX() + t.x);
        p.setPen(QColor(0x80, 0x80, 0x80));
        p.drawLine(x, top + (t.major ? 8 : 16), x, top + kRulerHeight - 1);
        if (t.major) {
            p.setPen(QColor(0x20, 0x20, 0x20));
            p.drawText(x + 3, top + 12, QString::fromStdString(t.label));
        }
    }
    p.restore();
    // Grid lines of the major ticks over the tracks.
    p.setPen(QColor(0xe4, 0xe4, 0xe4));
    for (const RulerTick& t : rulerTicks(m_axis, origin))
        if (t.major) p.drawLine(int(timeX() + t.x), pinnedTop(), int(timeX() + t.x), height());
}

void TimelineView::paintRows(QPainter& p, const std::vector<LayoutRow>& rows, int areaTop,
                             int areaBottom, int scroll) {
    if (areaBottom <= areaTop || rows.empty()) return;
    p.save();
    p.setClipRect(QRect(0, areaTop, width(), areaBottom - areaTop));
    auto it = std::upper_bound(rows.begin(), rows.end(), scroll,
                               [](int v, const LayoutRow& r) { return v < r.y; });
    if (it != rows.begin()) --it;
    for (; it != rows.end(); ++it) {
        const int top = areaTop + it->y - scroll;
        if (top >= areaBottom) break;
        if (top + it->height <= areaTop) continue;
        switch (it->kind) {
        case RowKind::Track:
            paintTrack(p, *it, top);
            break;
        case RowKind::Counter:
            paintCounter(p, *it, top);
            break;
        case RowKind::ProcessInstants:
            paintInstants(p, *it, top);
            break;
        default:
            break;
        }
        paintRowLabel(p, *it, top);
    }
    p.restore();
}

namespace {
// The expand / collapse triangle of a header row, centred at `c`.
void drawDisclosure(QPainter& p, QPointF c, bool collapsed, const QColor& colour) {
    QPolygonF tri;
    if (collapsed)
        tri << c + QPointF(-3, -5) << c + QPointF(-3, 5) << c + QPointF(4, 0);
    else
        tri << c + QPointF(-5, -3) << c + QPointF(5, -3) << c + QPointF(0, 4);
    p.save();
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawPolygon(tri);
    p.restore();
}
} // namespace

void TimelineView::paintRowLabel(QPainter& p, const LayoutRow& row, int top) {
    const TraceStore& s = *m_layers[std::size_t(row.layer)].store;
    const QRect label(0, top, kLabelWidth, row.height);
    QString text;
    switch (row.kind) {
    case RowKind::Layer: {
        p.fillRect(QRect(0, top, width(), row.height), QColor(0x40, 0x48, 0x58));
        drawDisclosure(p, QPointF(10, top + row.height / 2.0), isLayerCollapsed(row.layer),
                       Qt::white);
        QFont f = p.font();
        f.setBold(true);
        p.save();
        p.setFont(f);
        p.setPen(Qt::white);
        QString title = m_layers[std::size_t(row.layer)].title;
        if (const std::int64_t off = offset(row.layer))
            title += QStringLiteral("   (offset %1%2)")
                         .arg(off > 0 ? QStringLiteral("+") : QString())
                         .arg(QString::fromStdString(formatDuration(off)));
        p.drawText(QRect(20, top, width() - 24, row.height), Qt::AlignVCenter, title);
        p.restore();
        return;
    }
    case RowKind::Process: {
        p.fillRect(QRect(0, top, width(), row.height), QColor(0xe2, 0xe6, 0xee));
        drawDisclosure(p, QPointF(10, top + row.height / 2.0),
                       isProcessCollapsed(row.layer, row.process), QColor(0x40, 0x40, 0x40));
        const auto& proc = s.processes()[row.process];
        text = QString::fromStdString(s.processLabel(row.process));
        if (proc.name != 0) text += QStringLiteral("  (pid %1)").arg(fromView(s.str(proc.pid)));
        p.setPen(QColor(0x10, 0x10, 0x10));
        p.drawText(QRect(20, top, width() - 24, row.height), Qt::AlignVCenter, text);
        return;
    }
    case RowKind::Track: {
        const auto& t = s.tracks()[row.index];
        text = t.kind == timeline::TrackKind::Thread
                   ? QString::fromStdString(s.threadLabel(t.thread))
                   : fromView(s.str(t.name));
        if (isTrackPinned(row.layer, row.index)) text = QStringLiteral("\u2691 ") + text;
        break;
    }
    case RowKind::Counter: {
        const auto& c = s.counters()[row.index];
        text = fromView(s.str(c.name));
        break;
    }
    case RowKind::ProcessInstants:
        text = tr("process instants");
        break;
    }
    p.fillRect(label, QColor(0xf4, 0xf4, 0xf4));
    p.setPen(QColor(0xd8, 0xd8, 0xd8));
    p.drawLine(0, top + row.height - 1, width(), top + row.height - 1);
    p.drawLine(kLabelWidth - 1, top, kLabelWidth - 1, top + row.height);
    p.setPen(QColor(0x30, 0x30, 0x30));
    const QFontMetrics fm = p.fontMetrics();
    p.drawText(QRect(row.indent, top, kLabelWidth - row.indent - 4,
                     std::min(row.height, m_metrics.sliceRow)),
               Qt::AlignVCenter,
               fm.elidedText(text, Qt::ElideMiddle, kLabelWidth - row.indent - 4));
}

void TimelineView::paintTrack(QPainter& p, const LayoutRow& row, int top) {
    const int li = row.layer;
    const TimelineLayer& layer = m_layers[std::size_t(li)];
    const TraceStore& s = *layer.store;
    const std::int64_t off = layer.offsetNs;
    m_items.clear();
    layer.lod->query(s, row.index, queryFor(li), m_items);
    const auto names = s.sliceName();
    const int rh = m_metrics.sliceRow;
    const double x0Area = timeX(), w = m_axis.width();
    const QFontMetrics fm = p.fontMetrics();
    const int baseline = (rh + fm.ascent() - fm.descent()) / 2;
    const bool hl = m_hlLayer == li;
    static const QColor folded(0xa8, 0xa8, 0xa8), foldedDim(0xd8, 0xd8, 0xd8);
    const QColor& foldColour = hl ? foldedDim : folded;
    const double nsPx = m_axis.width() / double(m_axis.duration());
    const double t0 = double(m_axis.t0() - off);
    // Folded blocks that touch are merged into one rectangle per run.
    int runX0 = -1, runX1 = -1, runY = 0;
    auto flushRun = [&] {
        if (runX0 >= 0) p.fillRect(QRect(runX0, runY, runX1 - runX0, rh - 1), foldColour);
        runX0 = -1;
    };
    p.setPen(QColor(0x10, 0x10, 0x10));
    for (const LodItem& it : m_items) {
        double a = (double(it.start) - t0) * nsPx, b = (double(it.end) - t0) * nsPx;
        a = std::max(a, -1.0);
        b = std::min(b, w + 1);
        const int ix0 = int(x0Area + a);
        const int ix1 = std::max(ix0 + 1, int(x0Area + b));
        const int y = top + it.depth * rh;
        if (it.folded()) {
            if (runX0 >= 0 && runY == y && ix0 <= runX1 + 1) {
                runX1 = std::max(runX1, ix1);
            } else {
                flushRun();
                runX0 = ix0;
                runX1 = ix1;
                runY = y;
            }
            continue;
        }
        flushRun();
        const StringId name = names[it.slice];
        const int ci = colourOf(li, name);
        const bool dim = hl && name != m_hlName;
        const int iw = ix1 - ix0;
        p.fillRect(QRect(ix0, y, iw > 2 ? iw - 1 : iw, rh - 1),
                   dim ? dimmed(kPalette[ci]) : QColor::fromRgb(kPalette[ci]));
        if (iw >= 24) {
            const int avail = iw - 6;
            const int tw = nameWidth(li, name, fm);
            const int tx = std::max(ix0, int(x0Area)) + 3;
            if (dim) p.setPen(QColor(0x90, 0x90, 0x90));
            if (tw <= avail)
                p.drawText(tx, y + baseline, nameOf(li, name));
            else if (avail >= 14)
                p.drawText(tx, y + baseline,
                           fm.elidedText(nameOf(li, name), Qt::ElideRight, avail));
            if (dim) p.setPen(QColor(0x10, 0x10, 0x10));
        }
    }
    flushRun();

    // Thread-scope instants: small triangles at the top of the track.
    const auto& track = s.tracks()[row.index];
    if (track.kind == timeline::TrackKind::Thread && m_caches[std::size_t(li)]) {
        const auto& ids = m_caches[std::size_t(li)]->instantsByThread[track.thread];
        if (!ids.empty()) {
            const auto inst = s.instants();
            auto from =
                std::lower_bound(ids.begin(), ids.end(), m_axis.t0() - off,
                                 [&](std::uint32_t i, std::int64_t t) { return inst[i].ts < t; });
            int lastX = -10;
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(0xc0, 0x30, 0x30));
            for (; from != ids.end() && inst[*from].ts <= m_axis.t1() - off; ++from) {
                const int x = int(x0Area + (double(inst[*from].ts) - t0) * nsPx);
                if (x - lastX < 2) continue;
                lastX = x;
                const QPointF tri[3] = {QPointF(x - 3.5, top), QPointF(x + 3.5, top),
                                        QPointF(x, top + 6)};
                p.drawConvexPolygon(tri, 3);
            }
            p.setBrush(Qt::NoBrush);
        }
    }
    p.setPen(QColor(0xe0, 0xe0, 0xe0));
    p.drawLine(int(x0Area), top + row.height - 1, width(), top + row.height - 1);
}

void TimelineView::paintCounter(QPainter& p, const LayoutRow& row, int top) {
    const int li = row.layer;
    if (!m_caches[std::size_t(li)]) return; // the value range comes with the layer's cache
    const TraceStore& s = *m_layers[std::size_t(li)].store;
    const auto& c = s.counters()[row.index];
    const std::int64_t off = offset(li);
    const double lo = m_caches[std::size_t(li)]->counterMin[row.index];
    const double hi = m_caches[std::size_t(li)]->counterMax[row.index];
    const double h = row.height - 4, base = top + row.height - 2;
    auto yOf = [&](double v) { return base - (hi > lo ? (v - lo) / (hi - lo) * h : 0); };
    const QColor colour = QColor::fromRgb(kPalette[colourOf(li, c.name)]).darker(140);
    if (!c.ts.empty()) {
        // One column per pixel: the maximum of the points in it, else the step value before.
        // Runs of equal columns become one opaque rectangle with a darker top edge (a filled
        // polygon of thousands of spikes costs far more to rasterise).
        const int w = int(m_axis.width());
        auto it = std::upper_bound(c.ts.begin(), c.ts.end(), m_axis.t0() - off);
        std::size_t i = std::size_t(it - c.ts.begin());
        double cur = i > 0 ? c.values[i - 1] : std::nan("");
        const int x0 = int(timeX());
        const QColor fill = QColor::fromRgb(kPalette[colourOf(li, c.name)]);
        int runX = 0, runY = -1;
        auto flush = [&](int xEnd) {
            if (runY >= 0 && xEnd > runX) {
                p.fillRect(QRect(x0 + runX, runY, xEnd - runX, int(base) - runY), fill);
                p.fillRect(QRect(x0 + runX, runY, xEnd - runX, 1), colour);
            }
        };
        for (int px = 0; px < w; ++px) {
            const std::int64_t tEnd = m_axis.toTime(px + 1) - off;
            double colMax = cur;
            if (i < c.ts.size() && c.ts[i] < tEnd) {
                const auto j = std::size_t(
                    std::lower_bound(c.ts.begin() + std::ptrdiff_t(i), c.ts.end(), tEnd) -
                    c.ts.begin());
                for (std::size_t k = i; k < j; ++k)
                    if (std::isfinite(c.values[k]) && !(colMax >= c.values[k]))
                        colMax = c.values[k];
                cur = c.values[j - 1];
                i = j;
            }
            // Nothing before the first point or after the trace's end.
            const bool blank = !std::isfinite(colMax) || (i >= c.ts.size() && tEnd > s.endTime());
            const int y = blank ? -1 : int(yOf(colMax));
            if (y != runY) {
                flush(px);
                runX = px;
                runY = y;
            }
        }
        flush(w);
    }
    p.setPen(QColor(0x40, 0x40, 0x40));
    p.drawText(int(timeX()) + 4, top + 11, QStringLiteral("max %1").arg(hi, 0, 'g', 6));
    p.setPen(QColor(0xe0, 0xe0, 0xe0));
    p.drawLine(int(timeX()), top + row.height - 1, width(), top + row.height - 1);
}

void TimelineView::paintInstants(QPainter& p, const LayoutRow& row, int top) {
    const int li = row.layer;
    if (!m_caches[std::size_t(li)]) return;
    const TraceStore& s = *m_layers[std::size_t(li)].store;
    const auto& ids = m_caches[std::size_t(li)]->instantsByProcess[row.process];
    const auto inst = s.instants();
    const std::int64_t off = offset(li);
    auto from = std::lower_bound(ids.begin(), ids.end(), m_axis.t0() - off,
                                 [&](std::uint32_t i, std::int64_t t) { return inst[i].ts < t; });
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x30, 0x70, 0xc0));
    int lastX = -10;
    for (; from != ids.end() && inst[*from].ts <= m_axis.t1() - off; ++from) {
        const int x = int(timeX() + m_axis.toPx(inst[*from].ts + off));
        if (x - lastX < 2) continue;
        lastX = x;
        const QPointF d[4] = {QPointF(x, top + 1), QPointF(x + 4, top + row.height / 2.0),
                              QPointF(x, top + row.height - 1),
                              QPointF(x - 4, top + row.height / 2.0)};
        p.drawConvexPolygon(d, 4);
    }
    p.setBrush(Qt::NoBrush);
}

void TimelineView::paintFlows(QPainter& p) {
    p.save();
    p.setClipRect(QRect(int(timeX()), pinnedTop(), int(m_axis.width()), height() - pinnedTop()));
    p.setRenderHint(QPainter::Antialiasing, true);
    auto drawFlow = [&](int li, std::uint32_t f, bool strong) {
        const TraceStore& s = *m_layers[std::size_t(li)].store;
        const auto& fl = s.flows()[f];
        const auto a = slicePosition(li, fl.fromSlice);
        const auto b = slicePosition(li, fl.toSlice);
        const std::int64_t off = offset(li);
        // Endpoints: the source's end and the target's start, even when off screen in x.
        auto yOf = [&](std::uint32_t slice) -> std::optional<double> {
            const RowRef r = trackRow(li, s.sliceTrack()[slice]);
            if (r.index < 0) return std::nullopt;
            const auto& row =
                (r.pinned ? m_layout.pinned : m_layout.scrolled)[std::size_t(r.index)];
            return rowTop(row) + s.sliceDepth()[slice] * m_metrics.sliceRow +
                   m_metrics.sliceRow / 2.0;
        };
        const auto ya = a ? std::optional<double>(a->y()) : yOf(fl.fromSlice);
        const auto yb = b ? std::optional<double>(b->y()) : yOf(fl.toSlice);
        if (!ya || !yb) return;
        const QPointF p0(timeX() + m_axis.toPx(s.sliceEnd(fl.fromSlice) + off), *ya);
        const QPointF p1(timeX() + m_axis.toPx(s.sliceStart()[fl.toSlice] + off), *yb);
        if (std::abs(p0.x()) > 1e6 || std::abs(p1.x()) > 1e6) return;
        QPainterPath path(p0);
        const bool backwards = p1.x() < p0.x();
        if (backwards) {
            // Back in time (a consumer that starts before its producer ends): a dashed hook out
            // of the source's end into the target's start, lifted off the row both may share.
            const double lift = std::abs(p1.y() - p0.y()) < 1 ? m_metrics.sliceRow : 0;
            path.cubicTo(p0 + QPointF(20, -lift), p1 - QPointF(20, lift), p1);
        } else {
            const double dx = std::max(20.0, std::abs(p1.x() - p0.x()) / 2);
            path.cubicTo(p0 + QPointF(dx, 0), p1 - QPointF(dx, 0), p1);
        }
        const QColor c = strong ? QColor(0xd0, 0x40, 0x10) : QColor(0x50, 0x50, 0x50, 150);
        p.setPen(QPen(c, strong ? 2 : 1, backwards ? Qt::DashLine : Qt::SolidLine));
        p.drawPath(path);
        p.setBrush(c);
        const QPointF tri[3] = {p1, p1 + QPointF(-6, -3), p1 + QPointF(-6, 3)};
        p.drawConvexPolygon(tri, 3);
        p.setBrush(Qt::NoBrush);
    };
    // Flows whose source or target starts in the window. A zoomed-out view of a dense trace
    // would be a wall of arrows: past kMaxFlows candidates only the selection's are drawn.
    m_flowBuf.clear();
    bool tooMany = false;
    for (int li = 0; li < int(m_layers.size()) && !tooMany; ++li) {
        if (!m_caches[std::size_t(li)]) continue;
        const TraceStore& s = *m_layers[std::size_t(li)].store;
        const auto& cache = *m_caches[std::size_t(li)];
        const auto flows = s.flows();
        const auto start = s.sliceStart();
        const std::int64_t t0 = m_axis.t0() - offset(li), t1 = m_axis.t1() - offset(li);
        auto a = std::lower_bound(
            cache.flowsByFrom.begin(), cache.flowsByFrom.end(), t0,
            [&](std::uint32_t f, std::int64_t t) { return start[flows[f].fromSlice] < t; });
        for (; a != cache.flowsByFrom.end() && !tooMany; ++a) {
            if (start[flows[*a].fromSlice] > t1) break;
            m_flowBuf.push_back({li, *a});
            tooMany = m_flowBuf.size() > std::size_t(kMaxFlows);
        }
        auto b = std::lower_bound(
            cache.flowsByTo.begin(), cache.flowsByTo.end(), t0,
            [&](std::uint32_t f, std::int64_t t) { return start[flows[f].toSlice] < t; });
        for (; b != cache.flowsByTo.end() && !tooMany; ++b) {
            if (start[flows[*b].toSlice] > t1) break;
            const std::int64_t fs = start[flows[*b].fromSlice];
            if (fs >= t0 && fs <= t1) continue; // listed above
            m_flowBuf.push_back({li, *b});
            tooMany = m_flowBuf.size() > std::size_t(kMaxFlows);
        }
    }
    if (!tooMany)
        for (const auto& [li, f] : m_flowBuf)
            drawFlow(li, f, false);
    for (std::uint32_t f : m_selFlows)
        drawFlow(m_selLayer, f, true);
    p.restore();
}

void TimelineView::paintOverlays(QPainter& p) {
    const QRect area = timeArea();
    p.save();
    p.setClipRect(area.adjusted(0, -kRulerHeight, 0, 0));
    // Global instants: vertical lines over everything.
    for (int li = 0; li < int(m_layers.size()); ++li) {
        if (!m_caches[std::size_t(li)]) continue;
        const auto& ids = m_caches[std::size_t(li)]->globalInstants;
        const auto inst = m_layers[std::size_t(li)].store->instants();
        const std::int64_t off = offset(li);
        auto from =
            std::lower_bound(ids.begin(), ids.end(), m_axis.t0() - off,
                             [&](std::uint32_t i, std::int64_t t) { return inst[i].ts < t; });
        p.setPen(QPen(QColor(0x30, 0x70, 0xc0, 160), 1, Qt::DashLine));
        int lastX = -10, n = 0;
        for (; from != ids.end() && inst[*from].ts <= m_axis.t1() - off && n < 2000; ++from) {
            const int x = int(timeX() + m_axis.toPx(inst[*from].ts + off));
            if (x - lastX < 2) continue;
            lastX = x;
            ++n;
            p.drawLine(x, pinnedTop() - kRulerHeight / 2, x, height());
        }
    }
    // Selected slice outline.
    if (m_selSlice != kNoIndex) {
        const TraceStore& s = *m_layers[std::size_t(m_selLayer)].store;
        if (auto c = slicePosition(m_selLayer, m_selSlice)) {
            const std::int64_t off = offset(m_selLayer);
            const double x0 = timeX() + m_axis.toPx(s.sliceStart()[m_selSlice] + off);
            const double x1 = timeX() + m_axis.toPx(s.sliceEnd(m_selSlice) + off);
            const double top = c->y() - m_metrics.sliceRow / 2.0;
            p.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
            p.drawRect(QRectF(std::max(x0, timeX() - 2) - 1, top - 1,
                              std::max(2.0, std::min(x1, timeX() + m_axis.width() + 2) -
                                                std::max(x0, timeX() - 2)) +
                                  2,
                              m_metrics.sliceRow + 1));
        }
    }
    // Selected range with its duration.
    if (m_range) {
        const double x0 = timeX() + m_axis.toPx(m_range->first);
        const double x1 = timeX() + m_axis.toPx(m_range->second);
        p.fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), QColor(0x30, 0x80, 0xe0, 40));
        p.setPen(QPen(QColor(0x30, 0x80, 0xe0), 1));
        p.drawLine(QPointF(x0, area.top() - kRulerHeight), QPointF(x0, area.bottom()));
        p.drawLine(QPointF(x1, area.top() - kRulerHeight), QPointF(x1, area.bottom()));
        const QString text = formatNs(m_range->second - m_range->first);
        const QFontMetrics fm = p.fontMetrics();
        const int tw = fm.horizontalAdvance(text) + 10;
        const QRectF box((x0 + x1) / 2 - tw / 2.0, area.top() + 2, tw, fm.height() + 4);
        p.fillRect(box, QColor(0x30, 0x80, 0xe0));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.restore();
}

// ---- events ----

void TimelineView::resizeEvent(QResizeEvent*) {
    m_axis.setWidth(timeWidth());
    updateScrollBar();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
    setFocus();
    m_pressPos = m_lastPos = e->pos();
    const double x = e->pos().x() - timeX();
    if (e->button() == Qt::MiddleButton) {
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        return;
    }
    if (e->button() != Qt::LeftButton) return;
    if (e->pos().y() < kOverviewHeight && x >= 0) {
        m_drag = Drag::Overview;
        mouseMoveEvent(e);
        return;
    }
    if (x < 0) { // label column: process headers toggle
        if (const LayoutRow* row = rowAt(e->pos()); row && row->kind == RowKind::Process)
            setProcessCollapsed(row->layer, row->process,
                                !isProcessCollapsed(row->layer, row->process));
        else if (row && row->kind == RowKind::Layer)
            setLayerCollapsed(row->layer, !isLayerCollapsed(row->layer));
        m_drag = Drag::None;
        return;
    }
    if (e->pos().y() < pinnedTop() || (e->modifiers() & Qt::ShiftModifier)) {
        m_drag = Drag::Range;
        m_rangeAnchor = m_axis.toTime(std::clamp(x, 0.0, m_axis.width()));
        m_range = std::make_pair(m_rangeAnchor, m_rangeAnchor);
        update();
        return;
    }
    m_drag = Drag::Click;
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    const QPoint pos = e->pos();
    const double x = std::clamp(pos.x() - timeX(), 0.0, m_axis.width());
    switch (m_drag) {
    case Drag::Click:
        if ((pos - m_pressPos).manhattanLength() < 4) break;
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        [[fallthrough]];
    case Drag::Pan: {
        const QPoint d = pos - m_lastPos;
        if (d.x()) {
            m_axis.panPx(d.x());
            windowChanged();
        }
        if (d.y()) m_vscroll->setValue(m_vscroll->value() - d.y());
        break;
    }
    case Drag::Range: {
        const std::int64_t t = m_axis.toTime(x);
        m_range = std::minmax(m_rangeAnchor, t);
        update();
        break;
    }
    case Drag::Overview: {
        const double frac = x / m_axis.width();
        m_axis.centerOn(m_axis.limitBegin() +
                        std::int64_t(frac * double(m_axis.limitEnd() - m_axis.limitBegin())));
        windowChanged();
        break;
    }
    case Drag::None:
        break;
    }
    m_lastPos = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
    const Drag d = m_drag;
    m_drag = Drag::None;
    unsetCursor();
    if (d == Drag::Click) {
        const Hit h = hitTest(e->pos());
        // A folded block selects nothing (double-click zooms into it).
        if (h.valid() && h.slice != kNoIndex)
            selectSlice(h.layer, h.slice, false);
        else
            clearSelection();
    } else if (d == Drag::Range && m_range) {
        if (std::abs(m_axis.toPx(m_range->second) - m_axis.toPx(m_range->first)) < 2) {
            m_range.reset();
            update();
        } else {
            const std::int64_t o = offset(0);
            emit rangeSelected(m_range->first - o, m_range->second - o);
        }
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
    const Hit h = hitTest(e->pos());
    if (!h.valid()) return;
    const std::int64_t off = offset(h.layer);
    const std::int64_t pad = std::max<std::int64_t>((h.item.end - h.item.start) / 10, 100);
    m_axis.setWindow(h.item.start + off - pad, h.item.end + off + pad);
    windowChanged();
}

void TimelineView::wheelEvent(QWheelEvent* e) {
    const QPoint a = e->angleDelta();
    const double x = e->position().x() - timeX();
    if (e->modifiers() & Qt::ControlModifier) {
        const int d = a.y() ? a.y() : a.x();
        zoomBy(std::pow(1.2, d / 120.0), std::clamp(x, 0.0, m_axis.width()));
    } else if (std::abs(a.x()) > std::abs(a.y())) {
        m_axis.panPx(a.x() / 120.0 * m_axis.width() / 10);
        windowChanged();
    } else {
        // Fractional deltas (touchpads) scroll proportionally.
        m_vscroll->setValue(m_vscroll->value() -
                            int(std::lround(a.y() / 120.0 * 3 * m_metrics.sliceRow)));
    }
    e->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
    switch (e->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25, anchorForKeys());
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomBy(1 / 1.25, anchorForKeys());
        break;
    case Qt::Key_A:
    case Qt::Key_Left:
        panBy(-0.1);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        panBy(0.1);
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        fitAll();
        break;
    case Qt::Key_F:
        fitSelection();
        break;
    case Qt::Key_Escape: // a running search first, then the selections
        if (isSearching())
            cancelSearch();
        else
            clearSelections();
        break;
    case Qt::Key_C:
        if (!e->matches(QKeySequence::Copy)) {
            QWidget::keyPressEvent(e);
            return;
        }
        copyCursors();
        break;
    case Qt::Key_Up:
        m_vscroll->setValue(m_vscroll->value() - m_metrics.sliceRow);
        break;
    case Qt::Key_Down:
        m_vscroll->setValue(m_vscroll->value() + m_metrics.sliceRow);
        break;
    default:
        QWidget::keyPressEvent(e);
        return;
    }
    e->accept();
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
    QMenu menu(this);
    const double x = e->pos().x() - timeX();
    if (!m_layers.empty() && x >= 0 && x <= m_axis.width()) {
        const qint64 t = m_axis.toTime(x) - offset(0);
        menu.addAction(tr("Set Cursor &A Here (Ctrl+1)"), this,
                       [this, t] { setCursorAt(Cursor::A, t); });
        menu.addAction(tr("Set Cursor &B Here (Ctrl+2)"), this,
                       [this, t] { setCursorAt(Cursor::B, t); });
        const bool any = m_cursors[0] || m_cursors[1];
        menu.addAction(tr("&Clear Cursors (Ctrl+0)"), this, &TimelineView::clearCursors)
            ->setEnabled(any);
        menu.addAction(tr("C&opy Cursor Values (Ctrl+Shift+C)"), this, &TimelineView::copyCursors)
            ->setEnabled(any);
        menu.addAction(m_range ? tr("Add &Note on the Selected Range...") : tr("Add &Note Here..."),
                       this, [this, t] { emit noteRequested(t); });
        menu.addSeparator();
    }
    const LayoutRow* row = rowAt(e->pos());
    if (!row) {
        if (!menu.isEmpty()) menu.exec(e->globalPos());
        return;
    }
    const int li = row->layer;
    if (row->kind == RowKind::Track) {
        const std::uint32_t t = row->index;
        const bool pinned = isTrackPinned(li, t);
        menu.addAction(pinned ? tr("Unpin track") : tr("Pin track"), this,
                       [this, li, t, pinned] { setTrackPinned(li, t, !pinned); });
    }
    if (row->kind == RowKind::Layer) {
        const bool collapsed = isLayerCollapsed(li);
        menu.addAction(collapsed ? tr("Expand layer") : tr("Collapse layer"), this,
                       [this, li, collapsed] { setLayerCollapsed(li, !collapsed); });
    } else {
        const std::uint32_t proc = row->process;
        const bool collapsed = isProcessCollapsed(li, proc);
        menu.addAction(collapsed ? tr("Expand process") : tr("Collapse process"), this,
                       [this, li, proc, collapsed] { setProcessCollapsed(li, proc, !collapsed); });
    }
    const Hit h = hitTest(e->pos());
    if (h.valid() && h.slice != kNoIndex) {
        const StringId name = m_layers[std::size_t(h.layer)].store->sliceName()[h.slice];
        menu.addAction(tr("Highlight \"%1\"").arg(nameOf(h.layer, name)), this,
                       [this, h, name] { highlightName(h.layer, name); });
    }
    if (h.valid() && h.slice != kNoIndex && m_selSlice != kNoIndex && m_selLayer != h.layer) {
        const int refLayer = m_selLayer;
        const quint32 refSlice = m_selSlice;
        menu.addAction(
            tr("Align this layer: this slice at the selected slice"), this,
            [this, h, refLayer, refSlice] { alignLayer(h.layer, h.slice, refLayer, refSlice); });
    }
    if (offset(li) != 0)
        menu.addAction(tr("Reset this layer's offset"), this,
                       [this, li] { setLayerOffset(li, 0); });
    if (m_hlLayer >= 0) menu.addAction(tr("Clear highlight"), this, [this] { clearHighlight(); });
    menu.addSeparator();
    menu.addAction(tr("Fit all (0)"), this, [this] { fitAll(); });
    menu.exec(e->globalPos());
}

bool TimelineView::event(QEvent* e) {
    switch (e->type()) {
    case QEvent::ToolTip: {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString text = tooltipAt(he->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), text, this);
        return true;
    }
    case QEvent::Enter:
        m_mouseInside = true;
        break;
    case QEvent::Leave:
        m_mouseInside = false;
        break;
    default:
        break;
    }
    return QWidget::event(e);
}

} // namespace xt::widgets
