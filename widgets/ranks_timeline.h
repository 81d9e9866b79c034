#pragma once
// Opening the Kineto traces of a distributed job as one multi-rank timeline: routing (which
// opened paths are such a set) and the loader (every rank a layer, imported in parallel with
// the page's progress and cancel, then the Ranks panel under the timeline).

#include <QString>
#include <QStringList>

namespace xt::widgets {

class RanksPanel;
class TimelinePage;

// The trace files of `path` when it is a directory or a glob pattern of Chrome / Kineto traces
// (.json, .json.gz, .gz, .zip that look like JSON, gzip or zip) with no XDL data file among
// them; empty otherwise (a single file, an XDL run, nothing that matches).
QStringList rankTraceFiles(const QString& path);

// Loads `files` into `page` as the ranks of one job (layer titles "rank N  file"); when they
// are in, adds a Ranks panel (returned now, filled then) to the page's panels.
RanksPanel* openRanks(TimelinePage* page, const QStringList& files);

} // namespace xt::widgets
