// MainWindow: the names of runs. The Runs dock lists runs by names that tell them apart, which
// F2 or the context menu changes; tab titles, compare tabs, the window title and the Keys dock
// follow. The Keys dock names the run whose keys it lists and follows the current tab.
#include "widgets/main_window.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QTabWidget>
#include <QTreeView>

namespace xt::widgets {

void MainWindow::createRunNameActions() {
    auto* rename = new QAction(tr("&Rename Run"), m_runTree);
    rename->setShortcut(QKeySequence(Qt::Key_F2));
    rename->setShortcutContext(Qt::WidgetShortcut);
    connect(rename, &QAction::triggered, this, [this] {
        const QModelIndex current = m_runTree->currentIndex();
        if (!current.isValid()) return;
        const QModelIndex run =
            m_runModel->index(current.data(RunBrowserModel::RunIndexRole).toInt(), 0);
        m_runTree->setCurrentIndex(run);
        m_runTree->edit(run);
    });
    m_runTree->addAction(rename);
    m_runTree->setEditTriggers(QAbstractItemView::NoEditTriggers); // F2 and the menu only
    m_runTree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_runTree, &QWidget::customContextMenuRequested, this, [this, rename](QPoint p) {
        const QModelIndex i = m_runTree->indexAt(p);
        if (!i.isValid()) return;
        m_runTree->setCurrentIndex(i);
        const int run = i.data(RunBrowserModel::RunIndexRole).toInt();
        QMenu menu(this);
        menu.addAction(rename);
        QAction* reset = menu.addAction(tr("Use the Automatic Name"), this,
                                        [this, run] { m_runModel->renameRun(run, {}); });
        reset->setEnabled(!m_runModel->entries()[std::size_t(run)].customName.isEmpty());
        menu.exec(m_runTree->viewport()->mapToGlobal(p));
    });
    connect(m_runModel, &RunBrowserModel::runNamesChanged, this, &MainWindow::updateRunNames);
}

void MainWindow::updateRunNames() {
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (auto* c = qobject_cast<CompareView*>(m_tabs->widget(i)))
            c->setSideNames(runName(c->request().a.run), runName(c->request().b.run));
        updateTabTitle(i);
    }
    updateKeysDockTitle();
    updateTitle();
}

void MainWindow::updateTabTitle(int index) {
    QWidget* w = m_tabs->widget(index);
    if (auto* v = qobject_cast<KeyView*>(w); v && v->run()) {
        // The full key (many keys share their last component), and whose it is when it matters.
        const QString name = runName(v->run());
        m_tabs->setTabText(index, m_runModel->rowCount() > 1 ? tr("%1 (%2)").arg(v->key(), name)
                                                             : v->key());
        m_tabs->setTabToolTip(index, tr("%1\n%2 (%3)").arg(v->key(), name, runIdentity(*v->run())));
    } else if (auto* c = qobject_cast<CompareView*>(w)) {
        auto side = [](const CompareSide& s) {
            return s.run ? QStringLiteral("%1:%2").arg(s.name).arg(s.rank) : QStringLiteral("-");
        };
        m_tabs->setTabText(index,
                           tr("compare %1 vs %2").arg(side(c->request().a), side(c->request().b)));
        m_tabs->setTabToolTip(index, c->title());
    }
}

void MainWindow::updateKeysDockTitle() {
    auto* dock = findChild<QDockWidget*>(QStringLiteral("KeysDock"));
    if (!dock) return;
    dock->setWindowTitle(m_currentRun ? tr("Keys: %1").arg(runName(m_currentRun)) : tr("Keys"));
    dock->setToolTip(m_currentRun ? runIdentity(*m_currentRun) : QString());
}

void MainWindow::followCurrentTab() {
    const KeyView* v = currentKeyView();
    if (!v || !v->run() || v->run() == m_currentRun) return;
    const auto& entries = m_runModel->entries();
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].run == v->run()) {
            m_runTree->setCurrentIndex(m_runModel->index(int(i), 0)); // sets the current run
            return;
        }
}

} // namespace xt::widgets
