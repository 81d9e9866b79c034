#pragma once
// The QCustomPlot of every plot: on a resize while a replot is queued (new data applied in the
// same turn of the event loop), it leaves the drawing to that replot, where QCustomPlot replots
// at once and then again (two 30-60 ms replots of a large run back to back). A replot draws the
// plot's layers and leaves the window's paint to its own turn (QCustomPlot's default repaints
// the whole window there and then: a replot and a paint of 15-25 ms each, back to back).

#include <qcustomplot.h>

namespace xt::widgets {

class PlotWidget : public QCustomPlot {
public:
    explicit PlotWidget(QWidget* parent = nullptr);
    // The axis rect's width at the present size and ticks, laid out now (a replot lays it out
    // only as it draws).
    int axisWidth();

protected:
    void resizeEvent(QResizeEvent* event) override;
};

} // namespace xt::widgets
