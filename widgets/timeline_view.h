#pragma once
// The Chrome-trace-style timeline: one or more layers (imported traces) stacked vertically on one
// shared time axis, each shifted by its offset. Custom painted: an overview strip of the whole
// span with the visible window, an adaptive ruler, collapsible processes with thread and async
// tracks (nested slices coloured by name, folded LOD blocks in grey), counter step charts,
// instants, flow arrows, pinned tracks above the scrolled area, a selected slice, a selected
// time range with its duration, a highlighted name and search hits.
//
// Keys: W/S zoom at the mouse (or the centre), A/D pan, 0 fit all, F fit the selection, Esc
// cancels a running search, else clears. Mouse: Ctrl+wheel zooms, wheel scrolls, horizontal wheel
// pans, drag (left on empty space or middle) pans, Shift+drag or a drag in the ruler selects a
// range, click selects.
//
// Painting queries the LodIndex per visible track only, into vectors reused between frames;
// the layout (rows and y offsets) is rebuilt only when layers, collapsing or pinning change.
// Each layer's view::LayerCache (instants, flows, counter ranges, overview density, the data's
// extent) is built by a background job when the layer arrives; until it does, the layer's slices
// are drawn without those. Search is a background job too. Painting never waits for either.
// Public times (setViewWindow, rangeSelected, viewWindowChanged, cursors, notes) are in layer
// 0's time base. Fit all shows the data (slices, counters, thread and process instants), not
// trailing global markers such as Kineto's "Record Window End". Cursors A and B measure the
// time, the steps and the counter values between two points; notes mark a time or a range.

#include "widgets/cursors.h"
#include "widgets/job_tracker.h"
#include "widgets/logic/layer_cache.h"
#include "widgets/logic/timeline_geometry.h"
#include "widgets/notes.h"
#include "widgets/timeline_document.h"

#include <QBrush>
#include <QPixmap>
#include <QString>
#include <QVector>
#include <QWidget>
#include <optional>
#include <vector>

class QScrollBar;

namespace xt::widgets {

struct SearchHit {
    int layer = 0;
    quint32 slice = 0;
};

class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kOverviewHeight = 28;
    static constexpr int kRulerHeight = 24;
    static constexpr int kLabelWidth = 200;
    static constexpr double kMinPx = 2.0; // LOD fold threshold

    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    void setLayers(std::vector<TimelineLayer> layers);
    void addLayer(TimelineLayer layer);
    const std::vector<TimelineLayer>& layers() const { return m_layers; }
    void setLayerOffset(int layer, qint64 offsetNs);
    // Shifts `layer` so that its `slice` starts where `refSlice` of `refLayer` starts on the
    // shared axis (e.g. a step start of a trace and of an XDL run). Also on a slice's context
    // menu when another layer has the selected slice.
    void alignLayer(int layer, quint32 slice, int refLayer, quint32 refSlice);

    // The visible window in layer 0's time base.
    void setViewWindow(qint64 t0, qint64 t1);
    qint64 viewStart() const;
    qint64 viewEnd() const;
    // The window of the data's extent plus a margin of 1%.
    void fitAll();
    // The first and last time of the data (slices, counters, non-global instants) of every layer.
    std::pair<qint64, qint64> dataExtent() const;
    // The earliest event of the layers (times in the ruler and in notes count from it).
    qint64 traceBegin() const;
    // factor > 1 zooms in around the time-area pixel `anchorPx` (< 0: the centre).
    void zoomBy(double factor, double anchorPx = -1);
    // Pans by a fraction of the window (positive: later times).
    void panBy(double fraction);

    void selectSlice(int layer, quint32 slice, bool center);
    int selectedLayer() const { return m_selLayer; }
    quint32 selectedSlice() const { return m_selSlice; }
    void clearSelection();
    // Esc: clears the selected slice, the range and the highlight.
    void clearSelections();
    // The selected range in layer 0's time base.
    std::optional<std::pair<qint64, qint64>> selectedRange() const;
    void fitSelection();

    // Cursors A and B (nullopt hides one).
    void setCursorAt(Cursor c, std::optional<qint64> t);
    std::optional<qint64> cursorAt(Cursor c) const;
    // Puts `c` at the mouse when it is over the tracks, else at the view's centre.
    void placeCursor(Cursor c);
    void clearCursors();
    // Time from the trace's start, the step ("ProfilerStep#N") and every counter's value at A
    // and B with B - A, tab-separated (empty without a cursor); copyCursors() puts it on the
    // clipboard; cursorSummary() is one line of it.
    QString cursorText() const;
    QString cursorSummary() const;
    void copyCursors() const;
    // The step marker slice of `layer` that holds time `t` (layer 0's base), if any.
    std::optional<quint32> stepAt(int layer, qint64 t) const;

    void setNotes(std::vector<Note> notes);
    const std::vector<Note>& notes() const { return m_notes; }

    void highlightName(int layer, timeline::StringId name);
    void clearHighlight();

    // Starts a case-insensitive substring search over slice names (view::findSlices) in the
    // background, cancelling the one running; the hits are empty until it finishes, then ordered
    // by layer and start. searchStateChanged on start, finish and cancel.
    void find(const QString& text);
    void cancelSearch();
    bool isSearching() const;
    // Whether searchHits() is the whole answer to the last find() (false while it runs and
    // after it was cancelled).
    bool searchComplete() const { return m_searchComplete; }
    std::shared_ptr<JobContext> searchJob() const; // progress of the running search, or null
    const QVector<SearchHit>& searchHits() const { return m_hits; }
    int currentHit() const { return m_hitIndex; }
    bool selectNextHit();
    bool selectPreviousHit();

    void setProcessCollapsed(int layer, std::uint32_t process, bool collapsed);
    bool isProcessCollapsed(int layer, std::uint32_t process) const;
    // A collapsed layer shows only its header row (a click on the header toggles it).
    void setLayerCollapsed(int layer, bool collapsed);
    bool isLayerCollapsed(int layer) const;
    void setTrackPinned(int layer, std::uint32_t track, bool pinned);
    bool isTrackPinned(int layer, std::uint32_t track) const;

    // Whether layer caches are being built, and that job's progress (or null).
    bool isIndexing() const;
    std::shared_ptr<JobContext> indexingJob() const;

    // Geometry, for tools and tests.
    const view::TimeAxis& axis() const { return m_axis; }
    const view::TimelineLayout& layout() const { return m_layout; }
    QRect timeArea() const; // x range of the time axis and y range of the tracks
    // Where a slice is drawn (centre of its rectangle) when its track is on screen.
    std::optional<QPointF> slicePosition(int layer, quint32 slice) const;
    // The LOD items the view draws for a track at the current window.
    std::vector<timeline::LodItem> visibleItems(int layer, std::uint32_t track) const;
    struct Hit {
        int layer = -1;
        quint32 slice = timeline::kNoIndex; // kNoIndex: a folded block or nothing
        timeline::LodItem item;
        bool valid() const { return layer >= 0; }
    };
    Hit hitTest(QPoint pos) const;
    // Vertical scroll offset of the scrolled area.
    int scrollOffset() const;

signals:
    void sliceSelected(int layer, quint32 slice);
    void selectionCleared();
    void rangeSelected(qint64 t0, qint64 t1);
    void viewWindowChanged(qint64 t0, qint64 t1);
    void layersChanged();
    void searchStateChanged();
    void indexingChanged(bool running);
    void cursorsChanged();
    // "Add note..." in the context menu: at `t`, or over the selected range when there is one.
    void noteRequested(qint64 t);

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    bool event(QEvent* e) override;

private:
    struct LayerText; // per layer: names as QStrings, their widths and colours
    struct RowRef {
        bool pinned = false;
        int index = -1;
    };

    void startCacheJob(); // for the layers without a cache
    void rebuildLayout();
    void rebuildSpan(bool fit);
    void updateScrollBar();
    void windowChanged();
    std::int64_t offset(int layer) const;
    int pinnedTop() const { return kOverviewHeight + kRulerHeight; }
    int pinnedAreaHeight() const;
    int scrolledTop() const { return pinnedTop() + pinnedAreaHeight(); }
    int rowTop(const view::LayoutRow& row) const;
    const view::LayoutRow* rowAt(QPoint pos) const;
    RowRef trackRow(int layer, std::uint32_t track) const;
    timeline::LodQuery queryFor(int layer) const;
    double timeX() const { return kLabelWidth; }
    double timeWidth() const;
    double anchorForKeys() const;
    void ensureRowVisible(const view::LayoutRow& row);

    void paintOverview(QPainter& p);
    void paintRuler(QPainter& p);
    void paintRows(QPainter& p, const std::vector<view::LayoutRow>& rows, int areaTop,
                   int areaBottom, int scroll);
    void paintRowLabel(QPainter& p, const view::LayoutRow& row, int top);
    void paintTrack(QPainter& p, const view::LayoutRow& row, int top);
    void paintCounter(QPainter& p, const view::LayoutRow& row, int top);
    void paintInstants(QPainter& p, const view::LayoutRow& row, int top);
    void paintFlows(QPainter& p);
    void paintOverlays(QPainter& p);
    void paintNotesAndCursors(QPainter& p);
    const QString& nameOf(int layer, timeline::StringId id);
    int nameWidth(int layer, timeline::StringId id, const QFontMetrics& fm);
    int colourOf(int layer, timeline::StringId id);
    QString tooltipAt(QPoint pos) const;

    std::vector<TimelineLayer> m_layers;
    std::vector<std::shared_ptr<const view::LayerCache>> m_caches; // null until built
    std::pair<std::int64_t, std::int64_t> m_fitWindow{0, 0};       // the window fitAll() last set
    std::vector<std::unique_ptr<LayerText>> m_text;
    std::vector<std::set<std::uint32_t>> m_collapsed, m_pinned;
    std::vector<char> m_layerCollapsed;
    view::TimelineLayout m_layout;
    view::LayoutMetrics m_metrics;
    std::vector<std::vector<RowRef>> m_trackRows; // per layer, per track
    view::TimeAxis m_axis;
    QScrollBar* m_vscroll;
    JobTracker* m_cacheJobs;
    JobTracker* m_searchJobs;

    int m_selLayer = -1;
    quint32 m_selSlice = timeline::kNoIndex;
    std::vector<std::uint32_t> m_selFlows; // flows touching the selected slice
    std::optional<std::pair<std::int64_t, std::int64_t>> m_range; // display time
    int m_hlLayer = -1;
    timeline::StringId m_hlName = 0;
    QVector<SearchHit> m_hits;
    int m_hitIndex = -1;
    bool m_searchComplete = true;
    std::optional<std::int64_t> m_cursors[2]; // display time
    std::vector<Note> m_notes;

    enum class Drag { None, Click, Pan, Range, Overview };
    Drag m_drag = Drag::None;
    QPoint m_pressPos, m_lastPos;
    std::int64_t m_rangeAnchor = 0;
    bool m_mouseInside = false;

    // Reused between paints.
    std::vector<timeline::LodItem> m_items;
    std::vector<std::pair<int, std::uint32_t>> m_flowBuf;
};

} // namespace xt::widgets
