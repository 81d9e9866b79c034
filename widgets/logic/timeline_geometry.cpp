#include "widgets/logic/timeline_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace xt::view {

using timeline::TraceStore;

// ---- TimeAxis ----

void TimeAxis::setSpan(std::int64_t begin, std::int64_t end) {
    if (end <= begin) end = begin + kMinWindowNs;
    m_begin = begin;
    m_end = end;
    const std::int64_t margin = std::max<std::int64_t>((end - begin) / 50, kMinWindowNs);
    m_lo = begin - margin;
    m_hi = end + margin;
    setWindow(m_t0, m_t1);
}

void TimeAxis::setWindow(std::int64_t t0, std::int64_t t1) {
    if (t1 < t0) std::swap(t0, t1);
    std::int64_t d = t1 - t0;
    d = std::clamp(d, kMinWindowNs, m_hi - m_lo);
    if (t1 - t0 != d) { // keep the centre
        const std::int64_t c = t0 + (t1 - t0) / 2;
        t0 = c - d / 2;
    }
    t0 = std::clamp(t0, m_lo, m_hi - d);
    m_t0 = t0;
    m_t1 = t0 + d;
}

std::int64_t TimeAxis::toTime(double px) const {
    return m_t0 +
           static_cast<std::int64_t>(std::llround(px * static_cast<double>(m_t1 - m_t0) / m_width));
}

void TimeAxis::zoomAt(double anchorPx, double factor) {
    if (factor <= 0) return;
    const std::int64_t anchor = toTime(anchorPx);
    const double frac = anchorPx / m_width;
    auto d = static_cast<std::int64_t>(std::llround(static_cast<double>(duration()) / factor));
    d = std::clamp(d, kMinWindowNs, m_hi - m_lo);
    const std::int64_t t0 = anchor - static_cast<std::int64_t>(std::llround(frac * double(d)));
    setWindow(t0, t0 + d);
}

void TimeAxis::panPx(double dx) {
    const auto dt = static_cast<std::int64_t>(std::llround(dx * nsPerPx()));
    setWindow(m_t0 - dt, m_t1 - dt);
}

void TimeAxis::centerOn(std::int64_t t) {
    const std::int64_t d = duration();
    setWindow(t - d / 2, t - d / 2 + d);
}

// ---- Ruler ----

namespace {

struct Unit {
    std::int64_t ns;
    const char* name;
};
constexpr Unit kUnits[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};

const Unit& unitFor(std::int64_t ns) {
    const std::int64_t a = ns < 0 ? -ns : ns;
    for (const Unit& u : kUnits)
        if (a >= u.ns) return u;
    return kUnits[3];
}

std::string formatIn(std::int64_t ns, const Unit& u, int decimals) {
    const long double v = static_cast<long double>(ns) / static_cast<long double>(u.ns);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*Lf", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0')
            s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s + " " + u.name;
}

} // namespace

std::string formatDuration(std::int64_t ns, int decimals) {
    const Unit& u = unitFor(ns);
    return formatIn(ns, u, decimals < 0 ? (u.ns == 1 ? 0 : 3) : decimals);
}

std::int64_t rulerStep(std::int64_t windowNs, double widthPx, double minSpacingPx) {
    const double minNs = static_cast<double>(windowNs) * minSpacingPx / std::max(widthPx, 1.0);
    std::int64_t mag = 1;
    while (true) {
        for (std::int64_t m : {1, 2, 5})
            if (static_cast<double>(m * mag) >= minNs) return m * mag;
        if (mag > std::numeric_limits<std::int64_t>::max() / 100) return mag * 10;
        mag *= 10;
    }
}

std::vector<RulerTick> rulerTicks(const TimeAxis& axis, std::int64_t origin, double minSpacingPx) {
    std::vector<RulerTick> out;
    const std::int64_t step = rulerStep(axis.duration(), axis.width(), minSpacingPx);
    const std::int64_t minor =
        step % 5 == 0 && step >= 5 ? step / 5 : (step % 2 == 0 ? step / 2 : step);
    // One unit for all labels (that of the largest label), with the decimals that show the
    // step exactly: "0.5 ms", "1 ms", "1.5 ms".
    auto absv = [](std::int64_t v) { return v < 0 ? -v : v; };
    const std::int64_t far = std::max({absv(axis.t0() - origin), absv(axis.t1() - origin), step});
    const Unit& u = unitFor(far);
    int decimals = 0;
    for (std::int64_t q = u.ns; q > 1 && step % q != 0; q /= 10)
        ++decimals;
    const std::int64_t rel0 = axis.t0() - origin;
    std::int64_t k = rel0 / minor - 1;
    for (;; ++k) {
        const std::int64_t rel = k * minor;
        const std::int64_t t = origin + rel;
        if (t > axis.t1()) break;
        if (t < axis.t0()) continue;
        RulerTick tick;
        tick.t = t;
        tick.x = axis.toPx(t);
        tick.major = rel % step == 0;
        if (tick.major) tick.label = formatIn(rel, u, decimals);
        out.push_back(std::move(tick));
    }
    return out;
}

// ---- Layout ----

namespace {

// Numeric ids sort as numbers, others as text after them.
bool idLess(std::string_view a, std::string_view b) {
    char* ea = nullptr;
    char* eb = nullptr;
    const std::string sa(a), sb(b);
    const long long na = std::strtoll(sa.c_str(), &ea, 10);
    const long long nb = std::strtoll(sb.c_str(), &eb, 10);
    const bool numA = !sa.empty() && *ea == '\0', numB = !sb.empty() && *eb == '\0';
    if (numA != numB) return numA;
    if (numA && na != nb) return na < nb;
    return a < b;
}

} // namespace

std::vector<std::uint32_t> processOrder(const TraceStore& store) {
    std::vector<std::uint32_t> order(store.processes().size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    const auto procs = store.processes();
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (procs[a].sortIndex != procs[b].sortIndex)
            return procs[a].sortIndex < procs[b].sortIndex;
        return idLess(store.str(procs[a].pid), store.str(procs[b].pid));
    });
    return order;
}

TimelineLayout buildLayout(std::span<const LayoutInput> layers, const LayoutMetrics& m,
                           bool layerHeaders) {
    TimelineLayout out;
    auto add = [&](LayoutRow row, bool pinned) {
        auto& list = pinned ? out.pinned : out.scrolled;
        int& h = pinned ? out.pinnedHeight : out.scrolledHeight;
        row.pinned = pinned;
        row.y = h;
        h += row.height;
        list.push_back(row);
    };
    for (int li = 0; li < static_cast<int>(layers.size()); ++li) {
        const LayoutInput& in = layers[static_cast<std::size_t>(li)];
        if (!in.store) continue;
        const TraceStore& s = *in.store;
        if (layerHeaders) add({RowKind::Layer, li, 0, 0, 0, m.layerHeader, 0, false}, false);
        // Tracks and counters per process.
        std::vector<std::vector<std::uint32_t>> tracksOf(s.processes().size());
        for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
            tracksOf[s.tracks()[t].process].push_back(t);
        std::vector<std::vector<std::uint32_t>> countersOf(s.processes().size());
        for (std::uint32_t c = 0; c < s.counters().size(); ++c)
            countersOf[s.counters()[c].process].push_back(c);
        std::vector<char> processInstants(s.processes().size(), 0);
        for (const auto& i : s.instants())
            if (i.scope == timeline::InstantScope::Process) processInstants[i.process] = 1;
        const auto threads = s.threads();
        for (std::uint32_t p : processOrder(s)) {
            auto& tracks = tracksOf[p];
            std::stable_sort(tracks.begin(), tracks.end(), [&](std::uint32_t a, std::uint32_t b) {
                const auto& ta = s.tracks()[a];
                const auto& tb = s.tracks()[b];
                if (ta.kind != tb.kind) return ta.kind == timeline::TrackKind::Thread;
                if (ta.kind == timeline::TrackKind::Async) return false; // lane order as built
                const auto& ha = threads[ta.thread];
                const auto& hb = threads[tb.thread];
                if (ha.sortIndex != hb.sortIndex) return ha.sortIndex < hb.sortIndex;
                return idLess(s.str(ha.tid), s.str(hb.tid));
            });
            // Processes with nothing to draw (metadata only) are left out.
            if (tracks.empty() && countersOf[p].empty() && !processInstants[p]) continue;
            if (!in.layerCollapsed)
                add({RowKind::Process, li, p, 0, 0, m.processHeader, 0, false}, false);
            const bool collapsed = in.layerCollapsed || in.collapsed.count(p) > 0;
            for (std::uint32_t t : tracks) {
                const bool pinned = in.pinned.count(t) > 0;
                if (collapsed && !pinned) continue;
                const int rows = s.tracks()[t].sliceEnd > s.tracks()[t].sliceBegin
                                     ? s.tracks()[t].maxDepth + 1
                                     : 1;
                add({RowKind::Track, li, p, t, 0, rows * m.sliceRow + m.trackGap, 12, false},
                    pinned);
            }
            if (collapsed) continue;
            for (std::uint32_t c : countersOf[p])
                add({RowKind::Counter, li, p, c, 0, m.counter, 12, false}, false);
            if (processInstants[p])
                add({RowKind::ProcessInstants, li, p, 0, 0, m.instantRow, 12, false}, false);
        }
    }
    return out;
}

// ---- Hit testing ----

int hitTestItems(std::span<const timeline::LodItem> items, std::uint16_t depth,
                 const TimeAxis& axis, std::int64_t offsetNs, double x, double tolerancePx) {
    int best = -1;
    double bestDist = tolerancePx;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto& it = items[i];
        if (it.depth != depth) continue;
        const double x0 = axis.toPx(it.start + offsetNs);
        const double x1 = axis.toPx(it.end + offsetNs);
        if (x >= x0 && x <= x1) {
            // Containing item wins; a single slice over a folded block.
            if (best < 0 || bestDist > 0 || (items[std::size_t(best)].folded() && !it.folded())) {
                best = static_cast<int>(i);
                bestDist = 0;
            }
            continue;
        }
        const double d = x < x0 ? x0 - x : x - x1;
        if (d <= bestDist && (best < 0 || d < bestDist)) {
            best = static_cast<int>(i);
            bestDist = d;
        }
    }
    return best;
}

} // namespace xt::view
