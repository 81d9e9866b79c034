// MainWindow: a directory or glob of Kineto traces (one per rank) opens as one multi-rank
// timeline tab (widgets/ranks_timeline.h). Kept apart from main_window.cpp; openPaths routes
// such paths here.
#include "widgets/main_window.h"
#include "widgets/ranks_timeline.h"
#include "widgets/timeline_page.h"

#include <QFileInfo>
#include <QLabel>

namespace xt::widgets {

TimelinePage* MainWindow::openRanksTimeline(const QStringList& files) {
    if (files.isEmpty()) return nullptr;
    const QString dir = QFileInfo(files.front()).absoluteDir().dirName();
    TimelinePage* page =
        newTimelinePage(tr("%1 (%n rank(s))", nullptr, int(files.size())).arg(dir));
    m_statusLabel->setText(tr("Loading %n rank trace(s)...", nullptr, int(files.size())));
    openRanks(page, files);
    return page;
}

} // namespace xt::widgets
