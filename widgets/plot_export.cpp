#include "widgets/plot_export.h"

#include "widgets/notes.h"

#include <QFileInfo>
#include <QScopeGuard>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace xt::widgets {

QString exportFormatOf(const QString& path) {
    const QString s = QFileInfo(path).suffix().toLower();
    return s == QLatin1String("png") || s == QLatin1String("pdf") || s == QLatin1String("svg")
               ? s
               : QString();
}

bool exportPlot(QCustomPlot* plot, const QString& path, int width, int height, QString* error,
                const QString& title, bool notes) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const QString format = exportFormatOf(path);
    if (format.isEmpty())
        return fail(
            QObject::tr("unknown export format of '%1' (use .png, .pdf or .svg)").arg(path));
    // Without the room a plot keeps above its axes for a line drawn over it while a run is read
    // (StatPlot::reserveTop): that line is not part of the export.
    const QMargins reserved = plot->plotLayout()->margins();
    plot->plotLayout()->setMargins({});
    const auto restoreMargins = qScopeGuard([&] {
        if (reserved.isNull()) return;
        plot->plotLayout()->setMargins(reserved);
        plot->replot(QCustomPlot::rpQueuedReplot);
    });
    QCPTextElement* heading = nullptr;
    if (!title.isEmpty()) {
        QFont f = plot->font();
        f.setPointSizeF(f.pointSizeF() + 2);
        f.setBold(true);
        heading = new QCPTextElement(plot, title, f);
        heading->setTextColor(plot->xAxis ? plot->xAxis->labelColor() : QColor(Qt::black));
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, heading);
    }
    const auto removeHeading = qScopeGuard([&] {
        if (!heading) return;
        plot->plotLayout()->remove(heading);
        plot->plotLayout()->simplify();
        plot->replot(QCustomPlot::rpQueuedReplot);
    });
    std::vector<QCPAbstractItem*> hidden;
    if (!notes)
        for (int i = 0; i < plot->itemCount(); ++i)
            if (QCPAbstractItem* item = plot->item(i); isNoteItem(item) && item->visible()) {
                item->setVisible(false);
                hidden.push_back(item);
            }
    const auto showNotes = qScopeGuard([&] {
        for (QCPAbstractItem* item : hidden)
            item->setVisible(true);
        if (!hidden.empty()) plot->replot(QCustomPlot::rpQueuedReplot);
    });
    const int w = width > 0 ? width : plot->width();
    const int h = height > 0 ? height : plot->height();
    bool ok = false;
    if (format == QLatin1String("png")) {
        ok = plot->savePng(path, w, h, 2.0);
    } else if (format == QLatin1String("pdf")) {
        ok = plot->savePdf(path, w, h, QCP::epNoCosmetic, QStringLiteral("xtview"),
                           plot->objectName());
    } else {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(QStringLiteral("xtview plot"));
        QCPPainter painter;
        if (painter.begin(&svg)) {
            plot->toPainter(&painter, w, h);
            ok = painter.end();
        }
    }
    if (!ok || !QFileInfo(path).exists() || QFileInfo(path).size() == 0)
        return fail(QObject::tr("could not write '%1'").arg(path));
    return true;
}

} // namespace xt::widgets
