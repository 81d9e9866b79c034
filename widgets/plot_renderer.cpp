#include "widgets/plot_renderer.h"

#include "widgets/plot_export.h"
#include "widgets/run_browser_model.h"
#include "widgets/run_loader.h"
#include "widgets/stat_plot.h"

#include <cstdio>

namespace xt::widgets {

namespace {
int fail(int code, const QString& message) {
    std::fprintf(stderr, "xtview --render-plot: %s\n", qPrintable(message));
    return code;
}
} // namespace

int renderPlot(const RenderPlotRequest& request) {
    if (request.paths.isEmpty()) return fail(1, QStringLiteral("no input path"));
    if (request.key.isEmpty()) return fail(1, QStringLiteral("--key is required"));
    if (exportFormatOf(request.out).isEmpty())
        return fail(1, QStringLiteral("--out must end in .png, .pdf or .svg"));
    StatPlotOptions options;
    options.rank = request.rank;
    if (!request.stats.isEmpty()) {
        options.minMaxBand = options.stdBand = options.showMean = false;
        for (const QString& s : request.stats) {
            auto f = analysis::parseStatField(s.trimmed().toStdString());
            if (!f) return fail(1, QStringLiteral("unknown statistic '%1'").arg(s));
            if (*f == analysis::StatField::Mean)
                options.showMean = true;
            else
                options.lines.push_back(*f);
        }
    }
    std::vector<std::string> paths;
    for (const QString& p : request.paths)
        paths.push_back(p.toStdString());
    const std::string key = request.key.toStdString();
    LoadOptions loadOptions;
    loadOptions.firstKey = key;
    LoadResult loaded = loadRuns(paths, {}, loadOptions);
    for (const auto& d : loaded.diagnostics.items())
        std::fprintf(stderr, "%s\n", d.toString().c_str());
    if (!loaded.status.isOk()) return fail(2, QString::fromStdString(loaded.status.toString()));
    RunSnapshot run;
    QString name;
    const QStringList names = runNames(loaded.runs);
    for (std::size_t i = 0; i < loaded.runs.size(); ++i)
        if (!loaded.runs[i]->seriesOf(key).empty()) {
            run = loaded.runs[i];
            name = names[int(i)];
            break;
        }
    if (!run) return fail(2, QStringLiteral("no run holds data for key '%1'").arg(request.key));
    if (request.rank >= 0 && !run->reader->rank(request.rank))
        return fail(2, QStringLiteral("the run has no rank %1").arg(request.rank));

    StatPlot plot;
    plot.resize(request.width, request.height);
    plot.setOptions(options);
    plot.setData(run, request.key);
    QCustomPlot* p = plot.plot();
    plot.resetZoom();
    p->replot();
    QString error;
    if (!exportPlot(p, request.out, request.width, request.height, &error,
                    QStringLiteral("%1 - %2").arg(request.key, name)))
        return fail(2, error);
    return 0;
}

} // namespace xt::widgets
