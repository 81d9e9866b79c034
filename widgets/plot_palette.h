#pragma once
// Plot colours that follow the widget palette (light or dark): backgrounds from Base; axes,
// ticks, labels and legend text from Text; grid lines dotted in Text at 40/255 alpha. Call on
// construction and on PaletteChange / ApplicationPaletteChange.

class QCPAxis;
class QCustomPlot;
class QPalette;

namespace xt::widgets {

// The plot's background, every axis rect with its axes, and the legend; then a queued replot.
void applyPlotPalette(QCustomPlot* plot, const QPalette& palette);
// One axis (e.g. a colour scale's, which belongs to no axis rect of the plot).
void applyAxisPalette(QCPAxis* axis, const QPalette& palette);

} // namespace xt::widgets
