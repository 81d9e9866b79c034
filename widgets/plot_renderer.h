#pragma once
// `xtview --render-plot`: draws the statistic curves of one key of a run to a PNG, PDF or SVG
// file with no window (the renderer behind `xtrace plot`, which must not link Qt).

#include <QString>
#include <QStringList>

namespace xt::widgets {

struct RenderPlotRequest {
    QStringList paths;
    QString key;
    QStringList stats; // empty = mean with min-max and std bands
    int rank = -1;     // -1 = every rank
    QString out;
    int width = 1200, height = 700;
};

// Exit status as xtrace's: 0 written, 1 usage error, 2 unreadable input. Messages go to
// stderr.
int renderPlot(const RenderPlotRequest& request);

} // namespace xt::widgets
