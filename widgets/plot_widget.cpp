#include "widgets/plot_widget.h"

namespace xt::widgets {

PlotWidget::PlotWidget(QWidget* parent) : QCustomPlot(parent) {
    setPlottingHint(QCP::phImmediateRefresh, false);
}

void PlotWidget::resizeEvent(QResizeEvent* event) {
    // The queued replot was posted before the paint this resize asks for: it runs first, with
    // the new size.
    if (!mReplotQueued) return QCustomPlot::resizeEvent(event);
    setViewport(rect());
}

int PlotWidget::axisWidth() {
    setViewport(rect());
    updateLayout();
    return axisRect()->width();
}

} // namespace xt::widgets
