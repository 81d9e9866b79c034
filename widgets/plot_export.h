#pragma once
// Writes a QCustomPlot to PNG, PDF or SVG (chosen by the file suffix). SVG goes through
// QSvgGenerator and a QCPPainter, since QCustomPlot has no SVG writer of its own.

#include <QString>

class QCustomPlot;

namespace xt::widgets {

// width/height 0 = the plot's current size. A non-empty `title` is drawn above the plot in the
// file only; with `notes` false, the notes drawn on the plot (widgets/notes) are left out of the
// file. False with `error` set on failure.
bool exportPlot(QCustomPlot* plot, const QString& path, int width = 0, int height = 0,
                QString* error = nullptr, const QString& title = {}, bool notes = true);
// "png", "pdf" or "svg" when the suffix of `path` is one of them, else empty.
QString exportFormatOf(const QString& path);

} // namespace xt::widgets
