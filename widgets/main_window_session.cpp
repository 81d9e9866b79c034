// MainWindow: sessions. File > Save Session writes the open runs and timelines, the tabs (key,
// view options, zoom, cursors; timeline window, cursors and layer offsets; compare sides and
// settings), the notes, the run names and the dock layouts to a .xtview file (docs/SESSIONS.md);
// File > Open Session (or opening a .xtview file) closes everything and restores it through
// openPaths and the usual loading, then rebuilds the tabs once the runs are loaded. What cannot
// be restored (a file gone, a key no longer in its run) is listed in the Diagnostics dock and a
// message; the rest opens. Recent sessions are kept in the settings.
#include "widgets/main_window.h"

#include "widgets/timeline_page.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QTreeView>

namespace xt::widgets {

namespace {

constexpr int kMaxRecentSessions = 10;
const QString kRecentSessionsKey = QStringLiteral("recentSessions");

// A run path of the session that was found at `now`: the directories that prefix the
// identities of its runs, then and now (the path itself for a directory, else its folder).
std::pair<QString, QString> runDirectories(const QString& then, const QString& now) {
    if (QFileInfo(now).isDir()) return {QDir::cleanPath(then), QDir::cleanPath(now)};
    return {QFileInfo(then).absolutePath(), QFileInfo(now).absolutePath()};
}

} // namespace

void MainWindow::createSessionActions(QMenu* file) {
    QAction* open = file->addAction(tr("Open &Session..."), this, [this] {
        const QString dir =
            m_settings->value(QStringLiteral("session/dir"), QDir::homePath()).toString();
        const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), dir,
                                                          tr("xtview sessions (*.xtview)"));
        if (!path.isEmpty()) openSession(path);
    });
    open->setObjectName(QStringLiteral("openSession"));
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O));
    auto saveAs = [this] {
        const QString dir =
            m_sessionPath.isEmpty()
                ? m_settings->value(QStringLiteral("session/dir"), QDir::homePath()).toString() +
                      QStringLiteral("/session.xtview")
                : m_sessionPath;
        QString path = QFileDialog::getSaveFileName(this, tr("Save session"), dir,
                                                    tr("xtview sessions (*.xtview)"));
        if (path.isEmpty()) return;
        if (!path.endsWith(sessionSuffix())) path += sessionSuffix();
        QString error;
        if (!saveSession(path, &error)) QMessageBox::warning(this, tr("Save session"), error);
    };
    QAction* save = file->addAction(tr("Sa&ve Session"), this, [this, saveAs] {
        if (m_sessionPath.isEmpty()) {
            saveAs();
            return;
        }
        QString error;
        if (!saveSession(m_sessionPath, &error))
            QMessageBox::warning(this, tr("Save session"), error);
    });
    save->setShortcut(QKeySequence::Save);
    QAction* saveAsAction = file->addAction(tr("Save Session &As..."), this, saveAs);
    saveAsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    m_recentSessionsMenu = file->addMenu(tr("Recent Sess&ions"));
    // The tabs of a session wait for its runs: their opening (planned, then loaded), not only
    // their load (a timeline of the session that finishes first also says loadFinished), and the
    // first key a loaded run shows a turn of the event loop later (m_showingLoaded): restored
    // before it, that key's tab would come on top of the session's.
    connect(this, &MainWindow::loadFinished, this, [this] {
        if (m_pending && !m_pending->tabsRestored && !m_loadJobs->isRunning() &&
            !m_openJobs->isRunning() && m_pendingOpens.isEmpty() && m_showingLoaded == 0) {
            restoreTabs();
            finishSessionRestore();
        }
    });
}

void MainWindow::addRecentSession(const QString& path) {
    QStringList recent = m_settings->value(kRecentSessionsKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentSessions)
        recent.removeLast();
    m_settings->setValue(kRecentSessionsKey, recent);
    m_settings->setValue(QStringLiteral("session/dir"), QFileInfo(path).absolutePath());
    m_settings->sync();
    updateRecentSessions();
}

void MainWindow::updateRecentSessions() {
    if (!m_recentSessionsMenu) return;
    m_recentSessionsMenu->clear();
    m_recentSessionsList->clear();
    const QStringList recent = m_settings->value(kRecentSessionsKey).toStringList();
    for (const QString& path : recent) {
        m_recentSessionsMenu->addAction(path, this, [this, path] { openSession(path); });
        auto* item = new QListWidgetItem(QFileInfo(path).fileName(), m_recentSessionsList);
        item->setToolTip(path);
        item->setData(Qt::UserRole, path);
    }
    m_recentSessionsMenu->setEnabled(!recent.isEmpty());
}

Session MainWindow::currentSession() {
    Session s;
    for (const QString& p : m_paths)
        s.runs.push_back({p, {}});
    s.runNames = m_runModel->customNames();
    for (int i = 0; i < m_tabs->count(); ++i) {
        QWidget* w = m_tabs->widget(i);
        SessionTab t;
        if (auto* v = qobject_cast<KeyView*>(w)) {
            if (!v->run()) continue;
            t.kind = SessionTab::Kind::Key;
            t.run = runIdentity(*v->run());
            t.key = v->key();
            t.view = v->saveState();
        } else if (auto* page = qobject_cast<TimelinePage*>(w)) {
            t.kind = SessionTab::Kind::Timeline;
            for (const QString& f : page->paths())
                if (!f.isEmpty()) t.files.push_back({f, {}});
            if (t.files.empty()) continue; // a run's steps: not a file to reopen
            TimelineView* tv = page->view();
            t.window = std::make_pair(tv->viewStart(), tv->viewEnd());
            t.cursorA = tv->cursorAt(Cursor::A);
            t.cursorB = tv->cursorAt(Cursor::B);
            for (const auto& l : tv->layers())
                t.offsets.push_back(l.offsetNs);
        } else if (auto* c = qobject_cast<CompareView*>(w)) {
            const CompareRequest& r = c->request();
            if (!r.a.run || !r.b.run) continue;
            t.kind = SessionTab::Kind::Compare;
            t.run = runIdentity(*r.a.run);
            t.rankA = r.a.rank;
            t.runB = runIdentity(*r.b.run);
            t.rankB = r.b.rank;
            t.align = QString::fromUtf8(analysis::stepAlignName(r.align));
            t.atol = r.atol;
            t.rtol = r.rtol;
            t.statistic = QString::fromUtf8(analysis::statFieldName(c->statistic()));
            t.key = c->key();
            t.cursorStep = c->cursorStep();
        } else {
            continue;
        }
        if (i == m_tabs->currentIndex() && m_center->currentIndex() == 1)
            s.currentTab = int(s.tabs.size());
        s.tabs.push_back(std::move(t));
    }
    s.currentRun = m_currentRun ? runIdentity(*m_currentRun) : QString();
    s.keyFilter = m_keyFilter->text();
    s.notes = m_notes->all();
    s.layouts = layoutsByName();
    return s;
}

bool MainWindow::saveSession(const QString& path, QString* error) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    QString why;
    if (!writeSessionFile(currentSession(), abs, &why)) {
        if (error) *error = why;
        m_statusLabel->setText(tr("Could not save the session: %1").arg(why));
        return false;
    }
    m_sessionPath = abs;
    addRecentSession(abs);
    m_statusLabel->setText(tr("Saved the session to %1").arg(abs));
    updateTitle();
    return true;
}

bool MainWindow::openSession(const QString& path) {
    QString error;
    int skipped = 0;
    auto session = readSessionFile(path, &error, &skipped);
    if (!session) {
        m_diagModel->addMessage(codes::kSessionUnreadable, error);
        m_statusLabel->setText(tr("Could not open the session: %1").arg(error));
        showDiagnostics();
        return false;
    }
    closeAll();
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    m_sessionProblems.clear();
    if (skipped)
        m_sessionProblems << tr("%n malformed tab(s) or note(s) in the file were left out", nullptr,
                                skipped);
    auto pending = std::make_unique<PendingSession>();
    pending->dir = QFileInfo(path).absolutePath();
    // Where its files are now; identities under a moved directory move with it.
    QStringList runs;
    for (const SessionPath& p : session->runs) {
        const auto at = locateSessionPath(p, pending->dir);
        if (!at) {
            m_sessionProblems << tr("run not found: %1").arg(p.path);
            continue;
        }
        runs << *at;
        if (*at != p.path) {
            const auto [then, now] = runDirectories(p.path, *at);
            pending->moved.insert(then, now);
        }
    }
    std::vector<QStringList> timelineFiles(session->tabs.size());
    for (std::size_t i = 0; i < session->tabs.size(); ++i)
        for (const SessionPath& p : session->tabs[i].files) {
            const auto at = locateSessionPath(p, pending->dir);
            if (!at) {
                m_sessionProblems << tr("timeline not found: %1").arg(p.path);
                continue;
            }
            timelineFiles[i] << *at;
            if (*at != p.path) pending->moved.insert(p.path, *at);
        }
    auto remap = [&](const QString& id) {
        for (auto it = pending->moved.begin(); it != pending->moved.end(); ++it)
            if (id == it.key() || id.startsWith(it.key() + QLatin1Char('/')))
                return it.value() + id.mid(it.key().size());
        return id;
    };
    QHash<QString, QString> names;
    for (auto it = session->runNames.begin(); it != session->runNames.end(); ++it)
        names.insert(remap(it.key()), it.value());
    m_runModel->setCustomNames(names);
    for (Note& n : session->notes)
        n.target = remap(n.target);
    for (SessionTab& t : session->tabs) {
        t.run = remap(t.run);
        t.runB = remap(t.runB);
    }
    session->currentRun = remap(session->currentRun);
    m_notes->setNotes(session->notes);
    m_keyFilter->setText(session->keyFilter);
    pending->session = std::move(*session);
    pending->tabs.resize(pending->session.tabs.size());
    m_pending = std::move(pending);
    updateBusyIndicators();

    // Timelines open now, in tabs of their own; their window and cursors follow their load.
    for (std::size_t i = 0; i < m_pending->session.tabs.size(); ++i) {
        const SessionTab& t = m_pending->session.tabs[i];
        if (t.kind != SessionTab::Kind::Timeline || timelineFiles[i].isEmpty()) continue;
        TimelinePage* page = openTimelineFiles(timelineFiles[i]);
        m_pending->tabs[i] = page;
        auto once = std::make_shared<QMetaObject::Connection>();
        *once = connect(page, &TimelinePage::busyChanged, this, [page, t, once](bool busy) {
            if (busy) return;
            QObject::disconnect(*once);
            TimelineView* tv = page->view();
            for (std::size_t l = 0; l < t.offsets.size() && l < tv->layers().size(); ++l)
                if (tv->layers()[l].offsetNs != t.offsets[l])
                    tv->setLayerOffset(int(l), t.offsets[l]);
            if (t.window) tv->setViewWindow(t.window->first, t.window->second);
            tv->setCursorAt(Cursor::A, t.cursorA);
            tv->setCursorAt(Cursor::B, t.cursorB);
        });
    }
    setLayoutsByName(m_pending->session.layouts);
    m_statusLabel->setText(tr("Opening the session %1...").arg(m_sessionPath));
    if (!runs.isEmpty()) {
        openPaths(runs); // the tabs follow in restoreTabs, once loaded
    } else {
        restoreTabs();
        finishSessionRestore();
    }
    return true;
}

void MainWindow::restoreTabs() {
    PendingSession& p = *m_pending;
    p.tabsRestored = true;
    // The tab the load opened by itself (the first key) is not the session's.
    std::vector<QWidget*> automatic;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (qobject_cast<KeyView*>(m_tabs->widget(i))) automatic.push_back(m_tabs->widget(i));
    auto runIndex = [this](const QString& identity) {
        const auto& entries = m_runModel->entries();
        for (std::size_t i = 0; i < entries.size(); ++i)
            if (runIdentity(*entries[i].run) == identity) return int(i);
        return -1;
    };
    for (std::size_t i = 0; i < p.session.tabs.size(); ++i) {
        const SessionTab& t = p.session.tabs[i];
        if (t.kind == SessionTab::Kind::Key) {
            const int run = runIndex(t.run);
            if (run < 0) {
                m_sessionProblems << tr("tab %1: its run %2 is not open").arg(t.key, t.run);
                continue;
            }
            m_runTree->setCurrentIndex(m_runModel->index(run, 0)); // the current run
            if (!m_currentRun->summaryOf(t.key.toStdString())) {
                m_sessionProblems << tr("tab %1: the key is not in %2 any more")
                                         .arg(t.key, runName(m_currentRun));
                continue;
            }
            showKey(t.key, true);
            KeyView* v = currentKeyView();
            std::erase(automatic, v);
            v->restoreState(t.view);
            p.tabs[i] = v;
        } else if (t.kind == SessionTab::Kind::Compare) {
            const int a = runIndex(t.run), b = runIndex(t.runB);
            if (a < 0 || b < 0) {
                m_sessionProblems
                    << tr("compare tab: run %1 is not open").arg(a < 0 ? t.run : t.runB);
                continue;
            }
            CompareRequest r;
            r.a = {m_runModel->entries()[std::size_t(a)].run, t.rankA, {}};
            r.b = {m_runModel->entries()[std::size_t(b)].run, t.rankB, {}};
            r.align = analysis::parseStepAlign(t.align.toStdString())
                          .value_or(analysis::StepAlign::Gstep);
            r.atol = t.atol;
            r.rtol = t.rtol;
            CompareView* view = openCompare(r);
            if (const auto f = analysis::parseStatField(t.statistic.toStdString()))
                view->setStatistic(*f);
            auto once = std::make_shared<QMetaObject::Connection>();
            *once = connect(view, &CompareView::compared, view, [view, t, once] {
                QObject::disconnect(*once);
                if (!t.key.isEmpty()) view->showKey(t.key);
                if (t.cursorStep) view->setCursorStep(*t.cursorStep);
            });
            p.tabs[i] = view;
        }
    }
    for (QWidget* w : automatic) {
        m_tabs->removeTab(m_tabs->indexOf(w));
        w->deleteLater();
    }
    // The session's order, and its current tab and run.
    int position = 0;
    for (const auto& w : p.tabs)
        if (w && m_tabs->indexOf(w) >= 0) m_tabs->tabBar()->moveTab(m_tabs->indexOf(w), position++);
    if (const int run = runIndex(p.session.currentRun); run >= 0 && !p.session.currentRun.isEmpty())
        m_runTree->setCurrentIndex(m_runModel->index(run, 0));
    const int current = p.session.currentTab;
    if (current >= 0 && current < int(p.tabs.size()) && p.tabs[std::size_t(current)])
        m_tabs->setCurrentWidget(p.tabs[std::size_t(current)]);
    m_center->setCurrentIndex(m_tabs->count() > 0 || m_runModel->rowCount() > 0 ? 1 : 0);
    updateNotes();
    updateNotesDock();
}

void MainWindow::finishSessionRestore() {
    const QString path = m_sessionPath;
    m_pending.reset();
    addRecentSession(path);
    for (const QString& problem : m_sessionProblems)
        m_diagModel->addMessage(codes::kSessionIncomplete, problem);
    if (m_sessionProblems.isEmpty()) {
        m_statusLabel->setText(tr("Opened the session %1").arg(path));
    } else {
        m_statusLabel->setText(tr("Opened the session %1 without %n part(s): see Diagnostics",
                                  nullptr, int(m_sessionProblems.size()))
                                   .arg(path));
        showDiagnostics();
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Session opened in part"),
                                    tr("Some of the session %1 could not be restored:").arg(path),
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("sessionProblems"));
        box->setDetailedText(m_sessionProblems.join(QLatin1Char('\n')));
        box->setInformativeText(m_sessionProblems.mid(0, 5).join(QLatin1Char('\n')));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    updateTitle();
    updateBusyIndicators();
    emit sessionRestored(m_sessionProblems);
}

} // namespace xt::widgets
