#include "widgets/plot_palette.h"

#include <QPalette>
#include <qcustomplot.h>

namespace xt::widgets {

namespace {

QColor gridColor(const QPalette& p) {
    QColor grid = p.color(QPalette::Text);
    grid.setAlpha(40);
    return grid;
}

} // namespace

void applyAxisPalette(QCPAxis* a, const QPalette& p) {
    const QColor fg = p.color(QPalette::Text);
    a->setBasePen(QPen(fg));
    a->setTickPen(QPen(fg));
    a->setSubTickPen(QPen(fg));
    a->setTickLabelColor(fg);
    a->setLabelColor(fg);
    a->grid()->setPen(QPen(gridColor(p), 1, Qt::DotLine));
}

void applyPlotPalette(QCustomPlot* plot, const QPalette& p) {
    plot->setBackground(p.brush(QPalette::Base));
    for (QCPAxisRect* r : plot->axisRects()) {
        r->setBackground(p.brush(QPalette::Base));
        for (QCPAxis* a : r->axes())
            applyAxisPalette(a, p);
    }
    plot->legend->setBrush(p.brush(QPalette::Base));
    plot->legend->setTextColor(p.color(QPalette::Text));
    plot->legend->setBorderPen(QPen(gridColor(p)));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace xt::widgets
