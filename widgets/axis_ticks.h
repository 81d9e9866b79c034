#pragma once
// Tick spacing that adapts to a plot's size and fonts. After every layout of a QCustomPlot (on
// screen, on resize and in exports), each axis with tick labels gets the most ticks its length
// allows (about one per ten characters across, one per 2.5 lines up) and then fewer until its
// labels, measured with the axis' tick label font as QCustomPlot draws them, keep a gap apart.
// Numbers get more digits while two neighbouring labels would read the same.

#include <QRectF>
#include <QVector>

class QCPAxis;
class QCustomPlot;

namespace xt::widgets {

// Installs the adaptation on `plot`: every axis of every axis rect and colour scale, now and
// added later. Every QCustomPlot of the application goes through it.
void adaptTicks(QCustomPlot* plot);

// The tick labels of `axis` in tick order, placed along the axis in plot pixels as QCustomPlot
// draws them (the other coordinate starts at 0).
QVector<QRectF> tickLabelRects(const QCPAxis* axis);

} // namespace xt::widgets
