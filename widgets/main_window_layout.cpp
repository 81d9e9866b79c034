// MainWindow: a dock layout per kind of tab. Plot tabs show the Runs, Keys, Value inspector, Meta
// summary, Diagnostics and Notes docks; timeline tabs none (the timeline and its panels take the
// window); compare tabs the Runs and Diagnostics docks; the welcome page none. What the user
// changes in a kind's layout is kept for that kind (in the settings and in sessions) until View >
// Reset Layout.
#include "widgets/main_window.h"

#include "widgets/timeline_page.h"

#include <QDockWidget>
#include <QStackedWidget>
#include <QTabWidget>

namespace xt::widgets {

namespace {

const char* const kKindNames[] = {"start", "tensor", "timeline", "compare"};

QString settingsKey(int kind) {
    return QStringLiteral("layout/") + QLatin1String(kKindNames[kind]);
}

} // namespace

MainWindow::LayoutKind MainWindow::currentLayoutKind() const {
    if (m_center->currentIndex() == 0) return LayoutKind::Start;
    QWidget* w = m_tabs->currentWidget();
    if (qobject_cast<TimelinePage*>(w)) return LayoutKind::Timeline;
    if (qobject_cast<CompareView*>(w)) return LayoutKind::Compare;
    if (!w && m_runModel->rowCount() == 0) return LayoutKind::Start;
    return LayoutKind::Tensor;
}

void MainWindow::arrangeDocks(LayoutKind kind) {
    auto dock = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    QDockWidget* runs = dock("RunsDock");
    QDockWidget* keys = dock("KeysDock");
    QDockWidget* meta = dock("MetaDock");
    QDockWidget* diag = dock("DiagnosticsDock");
    QDockWidget* notes = dock("NotesDock");
    QDockWidget* inspector = dock("InspectorDock");
    if (m_defaultLayout.isEmpty()) {
        // Once, before the window is shown: every dock in place and sized, kept as the default.
        addDockWidget(Qt::LeftDockWidgetArea, runs);
        splitDockWidget(runs, keys, Qt::Vertical);
        addDockWidget(Qt::BottomDockWidgetArea, meta);
        tabifyDockWidget(meta, diag);
        tabifyDockWidget(diag, notes);
        addDockWidget(Qt::RightDockWidgetArea, inspector);
        meta->raise();
        resizeDocks({runs, inspector}, {400, 380}, Qt::Horizontal);
        resizeDocks({meta}, {190}, Qt::Vertical);
        resizeDocks({runs, keys}, {220, 480}, Qt::Vertical);
        m_defaultLayout = saveState();
    } else {
        restoreState(m_defaultLayout);
    }
    std::vector<QDockWidget*> shown;
    switch (kind) {
    case LayoutKind::Start:
    case LayoutKind::Timeline:
        break;
    case LayoutKind::Tensor:
        shown = {runs, keys, meta, diag, notes, inspector};
        break;
    case LayoutKind::Compare:
        shown = {runs, diag};
        break;
    }
    for (QDockWidget* d : {runs, keys, meta, diag, notes, inspector})
        d->setVisible(std::find(shown.begin(), shown.end(), d) != shown.end());
    if (kind == LayoutKind::Compare) {
        diag->raise();
        // The key table and the plots need the width more than the list of runs.
        resizeDocks({runs}, {260}, Qt::Horizontal);
    }
}

void MainWindow::loadLayouts() {
    for (int k = 0; k < 4; ++k) {
        const QByteArray state = m_settings->value(settingsKey(k)).toByteArray();
        if (!state.isEmpty()) m_layouts.insert(k, state);
    }
    m_layoutKind = currentLayoutKind();
    m_applyingLayout = true;
    arrangeDocks(LayoutKind::Tensor); // the default, from which the others are made
    if (!m_layouts.contains(int(m_layoutKind)) || !restoreState(m_layouts.value(int(m_layoutKind))))
        arrangeDocks(m_layoutKind);
    m_applyingLayout = false;
}

void MainWindow::storeCurrentLayout() {
    m_layouts.insert(int(m_layoutKind), saveState());
    for (auto it = m_layouts.begin(); it != m_layouts.end(); ++it)
        m_settings->setValue(settingsKey(it.key()), it.value());
}

void MainWindow::applyLayout() {
    if (m_applyingLayout) return;
    const LayoutKind kind = currentLayoutKind();
    if (kind == m_layoutKind) return;
    m_applyingLayout = true;
    m_layouts.insert(int(m_layoutKind), saveState());
    m_layoutKind = kind;
    if (!m_layouts.contains(int(kind)) || !restoreState(m_layouts.value(int(kind))))
        arrangeDocks(kind);
    m_applyingLayout = false;
}

void MainWindow::resetLayout() {
    m_applyingLayout = true;
    m_layouts.remove(int(m_layoutKind));
    m_settings->remove(settingsKey(int(m_layoutKind)));
    arrangeDocks(m_layoutKind);
    m_applyingLayout = false;
    m_statusLabel->setText(tr("The %1 layout is back to its default")
                               .arg(QLatin1String(kKindNames[int(m_layoutKind)])));
}

QMap<QString, QByteArray> MainWindow::layoutsByName() {
    m_layouts.insert(int(m_layoutKind), saveState());
    QMap<QString, QByteArray> out;
    for (auto it = m_layouts.begin(); it != m_layouts.end(); ++it)
        out.insert(QLatin1String(kKindNames[it.key()]), it.value());
    return out;
}

void MainWindow::setLayoutsByName(const QMap<QString, QByteArray>& layouts) {
    for (int k = 0; k < 4; ++k)
        if (layouts.contains(QLatin1String(kKindNames[k])))
            m_layouts.insert(k, layouts.value(QLatin1String(kKindNames[k])));
    m_applyingLayout = true;
    if (!m_layouts.contains(int(m_layoutKind)) || !restoreState(m_layouts.value(int(m_layoutKind))))
        arrangeDocks(m_layoutKind);
    m_applyingLayout = false;
}

void MainWindow::showDiagnostics() {
    auto* d = findChild<QDockWidget*>(QStringLiteral("DiagnosticsDock"));
    d->show();
    d->raise();
}

} // namespace xt::widgets
