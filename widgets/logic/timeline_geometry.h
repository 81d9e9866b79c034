#pragma once
// Pure geometry of the timeline view: the time axis (int64 ns <-> pixels, zoom at an
// anchor, pan, clamping to the trace span plus a margin, a minimum window), adaptive ruler
// ticks (1/2/5 x 10^k ns with unit labels), the vertical layout of layers / processes / tracks
// computed once per layout change, and hit testing of LOD items. Times stay int64; doubles are
// used only for the pixel mapping.

#include "core/timeline/lod_index.h"
#include "core/timeline/trace_store.h"

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xt::view {

class TimeAxis {
public:
    static constexpr std::int64_t kMinWindowNs = 1000; // 1 us

    // The content span [begin, end) the window may show (plus a margin on each side).
    void setSpan(std::int64_t begin, std::int64_t end);
    void setWidth(double px) { m_width = px > 1 ? px : 1; }
    // Sets the window, clamped: at least kMinWindowNs, at most the span plus margins, inside.
    void setWindow(std::int64_t t0, std::int64_t t1);
    void fitAll() { setWindow(m_lo, m_hi); }

    std::int64_t t0() const { return m_t0; }
    std::int64_t t1() const { return m_t1; }
    std::int64_t duration() const { return m_t1 - m_t0; }
    std::int64_t spanBegin() const { return m_begin; }
    std::int64_t spanEnd() const { return m_end; }
    // The clamp limits: the span plus a margin of 2% (at least 1 us).
    std::int64_t limitBegin() const { return m_lo; }
    std::int64_t limitEnd() const { return m_hi; }
    double width() const { return m_width; }
    double nsPerPx() const { return static_cast<double>(m_t1 - m_t0) / m_width; }

    double toPx(std::int64_t t) const {
        return static_cast<double>(t - m_t0) * m_width / static_cast<double>(m_t1 - m_t0);
    }
    std::int64_t toTime(double px) const;

    // factor > 1 zooms in; the time under `anchorPx` stays under it (unless clamped).
    void zoomAt(double anchorPx, double factor);
    // Positive dx moves the content right (shows earlier times).
    void panPx(double dx);
    void centerOn(std::int64_t t);

private:
    std::int64_t m_begin = 0, m_end = 1000000, m_lo = 0, m_hi = 1000000;
    std::int64_t m_t0 = 0, m_t1 = 1000000;
    double m_width = 1000;
};

// "1.5 ms", "250 ns", "2 s", "-3.25 us": the shortest decimal form in the largest unit below
// |ns|; `decimals` < 0 chooses up to 3 significant decimals.
std::string formatDuration(std::int64_t ns, int decimals = -1);

struct RulerTick {
    std::int64_t t = 0; // absolute (display) time
    double x = 0;
    bool major = false; // labelled
    std::string label;  // relative to the origin
};
// The 1/2/5 x 10^k step (ns) giving ticks at least minSpacingPx apart.
std::int64_t rulerStep(std::int64_t windowNs, double widthPx, double minSpacingPx);
// Ticks in the axis window; labels are the time relative to `origin` in the step's unit.
std::vector<RulerTick> rulerTicks(const TimeAxis& axis, std::int64_t origin,
                                  double minSpacingPx = 90);

// One laid-out row of the view.
enum class RowKind : std::uint8_t { Layer, Process, Track, Counter, ProcessInstants };

struct LayoutRow {
    RowKind kind = RowKind::Track;
    int layer = 0;
    std::uint32_t process = 0;
    std::uint32_t index = 0; // Track: track index; Counter: counter series index
    int y = 0;               // top, relative to its area (pinned or scrolled)
    int height = 0;
    int indent = 0;
    bool pinned = false;
};

struct LayoutInput {
    const timeline::TraceStore* store = nullptr;
    std::set<std::uint32_t> collapsed; // processes
    std::set<std::uint32_t> pinned;    // tracks
    bool layerCollapsed = false;       // only the layer header (and pinned tracks) shown
};

struct LayoutMetrics {
    int sliceRow = 18; // one depth row
    int layerHeader = 20;
    int processHeader = 20;
    int counter = 36;
    int instantRow = 10;
    int trackGap = 2;
};

// Processes sorted by (sortIndex, pid as a number when it is one, else text), those with
// nothing to draw left out; in a process
// its threads by (sortIndex, tid), then its async lanes, then counters, then a row of
// process-scope instants when it has any. A collapsed process shows only its header; a pinned
// track goes to `pinned` instead of `scrolled`.
struct TimelineLayout {
    std::vector<LayoutRow> pinned, scrolled;
    int pinnedHeight = 0, scrolledHeight = 0;
};
TimelineLayout buildLayout(std::span<const LayoutInput> layers, const LayoutMetrics& m,
                           bool layerHeaders);
// Processes of a store in display order.
std::vector<std::uint32_t> processOrder(const timeline::TraceStore& store);

// The item of `items` at row `depth` under pixel x (axis coordinates): the one containing x,
// else the nearest within `tolerancePx` (tiny slices are hard to hit). -1 when none.
int hitTestItems(std::span<const timeline::LodItem> items, std::uint16_t depth,
                 const TimeAxis& axis, std::int64_t offsetNs, double x, double tolerancePx);

} // namespace xt::view
