#pragma once
// The QCustomPlot of every plot: on a resize while a replot is queued (new data applied in the
// same turn of the event loop), it leaves the drawing to that replot, where QCustomPlot replots
// at once and then again (two 30-60 ms replots of a large run back to back).

#include <qcustomplot.h>

namespace xt::widgets {

class PlotWidget : public QCustomPlot {
public:
    using QCustomPlot::QCustomPlot;

protected:
    void resizeEvent(QResizeEvent* event) override;
};

} // namespace xt::widgets
