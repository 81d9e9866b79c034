// MainWindow: following runs that are still being written (LiveRuns). A newer snapshot extends
// the views of the run (curves, heatmap, value inspector, meta summary, keys, runs dock); each
// run's status is shown in the Runs dock; a NaN or Inf that appears raises an alert (status bar,
// the key's badge, a desktop notification where there is one, View > NaN/Inf Notifications)
// that jumps to its step.
#include "widgets/main_window.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QMenu>
#include <QStatusBar>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>

namespace xt::widgets {

namespace {

const QString kNotifyKey = QStringLiteral("live/notifyNonFinite");

bool sameKeys(const LoadedRun& a, const LoadedRun& b) {
    if (a.keys.size() != b.keys.size() || a.nonFinite.size() != b.nonFinite.size()) return false;
    for (std::size_t i = 0; i < a.keys.size(); ++i)
        if (a.keys[i].key != b.keys[i].key) return false;
    for (const auto& [key, nf] : b.nonFinite) {
        auto it = a.nonFinite.find(key);
        if (it == a.nonFinite.end() || it->second.nan.has_value() != nf.nan.has_value() ||
            it->second.inf.has_value() != nf.inf.has_value())
            return false;
    }
    return true;
}

} // namespace

void MainWindow::createLiveActions() {
    m_live = new LiveRuns(this);
    LiveTimes times;
    times.idleAfter = std::chrono::milliseconds(
        qint64(m_settings->value(QStringLiteral("live/idleAfterSeconds"), 10).toDouble() * 1000));
    times.goneAfter = std::chrono::milliseconds(
        qint64(m_settings->value(QStringLiteral("live/goneAfterSeconds"), 600).toDouble() * 1000));
    times.hdfsPoll = std::chrono::milliseconds(
        qint64(m_settings->value(QStringLiteral("live/hdfsPollSeconds"), 1).toDouble() * 1000));
    m_live->setTimes(times);
    connect(m_live, &LiveRuns::runExtended, this, &MainWindow::onRunExtended);
    connect(m_live, &LiveRuns::diagnosticsFound, this, [this](const Diagnostics& d) {
        m_diagModel->appendDiagnostics(d);
        m_statusLabel->setText(
            tr("%n new diagnostic(s) in a followed run", nullptr, int(d.total())));
    });
    connect(m_live, &LiveRuns::statusChanged, this, [this] {
        for (const auto& run : m_runModel->runs())
            m_runModel->setLiveStatus(run, m_live->statusOf(run));
    });
    connect(m_runModel, &QAbstractItemModel::modelReset, this,
            [this] { m_runTree->expandToDepth(0); });

    QAction* notify = m_viewMenu->addAction(tr("NaN/Inf &Notifications"));
    notify->setCheckable(true);
    notify->setChecked(m_settings->value(kNotifyKey, true).toBool());
    notify->setToolTip(tr("A desktop notification when a NaN or Inf appears in a followed run"));
    connect(notify, &QAction::toggled, this,
            [this](bool on) { m_settings->setValue(kNotifyKey, on); });

    m_alertButton = new QToolButton(this);
    m_alertButton->setText(tr("Go to Step"));
    m_alertButton->setToolTip(tr("Show the step where the NaN or Inf appeared"));
    m_alertButton->hide();
    statusBar()->addPermanentWidget(m_alertButton);
    connect(m_alertButton, &QToolButton::clicked, this, &MainWindow::jumpToAlert);
}

void MainWindow::onRunExtended(const RunSnapshot& before, const RunSnapshot& after,
                               const Diagnostics& diagnostics) {
    if (!diagnostics.empty()) m_diagModel->appendDiagnostics(diagnostics);
    const auto runs = m_runModel->runs();
    if (std::find(runs.begin(), runs.end(), before) == runs.end()) return;
    m_live->replaced(before, after);
    m_runModel->replaceRun(before, after);
    m_runModel->setLiveStatus(after, m_live->statusOf(after));
    // The views first: selecting the current key in a new key model shows that key's view.
    for (auto* v : keyViews())
        if (v->run() == before) {
            if (before->hasSeries(v->key().toStdString()))
                v->extendRun(after);
            else
                v->setData(after, v->key());
        }
    if (m_currentRun == before) {
        m_currentRun = after;
        if (!sameKeys(*before, *after)) { // new keys, or a new NaN/Inf badge
            const QString key = currentKeyView() ? currentKeyView()->key() : QString();
            m_keyModel->setRun(after);
            if (m_keyModel->rowCount() < 50) m_keyTree->expandAll();
            const QModelIndex src = m_keyModel->indexOfKey(key);
            if (src.isValid()) m_keyTree->setCurrentIndex(m_keyProxy->mapFromSource(src));
        }
        m_metaModel->setRun(after);
        updateMetaLabel();
    }
    if (KeyView* v = currentKeyView(); v && v->run() == after)
        m_inspector->setContext(after, v->key(), m_cursorStep);
    for (auto* c : compareViews())
        c->replaceRun(before, after);
    alertNewNonFinite(before, after);
}

void MainWindow::alertNewNonFinite(const RunSnapshot& before, const RunSnapshot& after) {
    for (const auto& [key, nf] : after->nonFinite) {
        auto old = before->nonFinite.find(key);
        const bool newNan = nf.nan && (old == before->nonFinite.end() || !old->second.nan);
        const bool newInf = nf.inf && (old == before->nonFinite.end() || !old->second.inf);
        if (!newNan && !newInf) continue;
        const auto& first = newNan ? *nf.nan : *nf.inf;
        const int rank = newNan ? nf.nanRank : nf.infRank;
        m_alert = Alert{after, QString::fromStdString(key), rank, first.gstep};
        const QString what = newNan ? tr("NaN") : tr("Inf");
        const QString text = tr("%1 in %2 on rank %3 at gstep %4 (%5)")
                                 .arg(what, m_alert->key)
                                 .arg(rank)
                                 .arg(first.gstep)
                                 .arg(runName(after));
        m_statusLabel->setText(QStringLiteral("\u26a0 ") + text);
        m_alertButton->show();
        if (m_settings->value(kNotifyKey, true).toBool() &&
            QSystemTrayIcon::isSystemTrayAvailable()) {
            if (!m_tray) {
                m_tray = new QSystemTrayIcon(
                    windowIcon().isNull() ? style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                          : windowIcon(),
                    this);
                connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] {
                    jumpToAlert();
                    raise();
                    activateWindow();
                });
            }
            m_tray->show();
            m_tray->showMessage(tr("xtview: %1 appeared").arg(what), text,
                                QSystemTrayIcon::Warning);
        }
    }
}

void MainWindow::jumpToAlert() {
    if (!m_alert) return;
    const auto runs = m_runModel->runs();
    // The alert's run, or its newer snapshot (same label).
    int index = -1;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i]->label() == m_alert->run->label()) index = int(i);
    if (index < 0) return;
    setCurrentRun(index);
    m_runTree->setCurrentIndex(m_runModel->index(index, 0));
    showKey(m_alert->key);
    if (KeyView* v = currentKeyView()) {
        v->setStepCursor(m_alert->gstep);
        emit v->stepSelected(m_alert->gstep);
    }
    m_alertButton->hide();
}

std::optional<MainWindow::Alert> MainWindow::lastAlert() const {
    return m_alert;
}

} // namespace xt::widgets
