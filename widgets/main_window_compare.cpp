// MainWindow: run comparison (compare tabs, "Compare Runs...") and exports from the GUI ("Export
// to HDF5...", "Export Statistics CSV...", "Export Compare View..."). Kept apart from
// main_window.cpp; createActions() calls createCompareExportActions() once.
#include "widgets/compare_dialog.h"
#include "widgets/export_dialog.h"
#include "widgets/main_window.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QStackedWidget>
#include <QTabWidget>

namespace xt::widgets {

void MainWindow::createCompareExportActions(QMenu* file) {
    m_exportJobs = new JobTracker(this);
    m_exportCompareAction =
        file->addAction(tr("Export Co&mpare View..."), this, &MainWindow::exportCompareView);
    m_exportCompareAction->setEnabled(false);
    file->addAction(tr("Export to &HDF5..."), this, [this] { showExportHdf5Dialog(); });
    file->addAction(tr("Export Statistics &CSV..."), this, [this] {
        if (!m_currentRun) return;
        const QString dir =
            m_settings->value(QStringLiteral("export/dir"), QDir::homePath()).toString();
        const QString path = QFileDialog::getSaveFileName(this, tr("Export statistics CSV"),
                                                          dir + QStringLiteral("/statistics.csv"),
                                                          tr("CSV file (*.csv)"));
        if (path.isEmpty()) return;
        m_settings->setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
        exportStatisticsCsv(path);
    });
    file->addSeparator();
    QAction* compare =
        file->addAction(tr("Compare R&uns..."), this, &MainWindow::showCompareDialog);
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(m_tabs, &QTabWidget::currentChanged, this,
            [this] { m_exportCompareAction->setEnabled(currentCompareView() != nullptr); });
}

CompareView* MainWindow::currentCompareView() const {
    return qobject_cast<CompareView*>(m_tabs->currentWidget());
}

bool MainWindow::compareOrExportBusy() const {
    if (m_exportJobs && m_exportJobs->isRunning()) return true;
    if (m_hdf5Dialog && m_hdf5Dialog->isRunning()) return true;
    for (auto* c : compareViews())
        if (c->isBusy()) return true;
    return false;
}

CompareView* MainWindow::openCompare(const CompareRequest& r) {
    CompareRequest request = r;
    for (CompareSide* s : {&request.a, &request.b})
        if (s->name.isEmpty()) s->name = runName(s->run);
    auto* view = new CompareView(m_tabs);
    view->setRequest(request);
    const int i = m_tabs->addTab(view, {});
    updateTabTitle(i);
    m_center->setCurrentIndex(1);
    m_tabs->setCurrentIndex(i);
    updateNotes();
    connect(view, &CompareView::compared, this, [this, view] {
        if (!view->error().isEmpty()) {
            m_diagModel->addMessage(codes::kCompareFailed, view->error());
            findChild<QDockWidget*>(QStringLiteral("DiagnosticsDock"))->raise();
        }
        m_statusLabel->setText(tr("Compared %1").arg(view->title()));
    });
    return view;
}

void MainWindow::showCompareDialog() {
    const auto& all = runs();
    if (all.empty()) {
        m_statusLabel->setText(tr("Open two runs (or a run with several ranks) to compare"));
        return;
    }
    int current = 0;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i] == m_currentRun) current = int(i);
    QStringList names;
    for (const auto& e : m_runModel->entries())
        names << e.name();
    CompareDialog dialog(all, current, this, names);
    if (dialog.exec() == QDialog::Accepted && dialog.isValid()) openCompare(dialog.request());
}

bool MainWindow::stillIndexing(const QString& what) {
    if (!m_currentRun || !m_currentRun->preview) return false;
    m_statusLabel->setText(tr("%1 waits until %2 is indexed (the progress bar shows how far)")
                               .arg(what, runName(m_currentRun)));
    return true;
}

Hdf5ExportDialog* MainWindow::showExportHdf5Dialog() {
    if (!m_currentRun) {
        m_statusLabel->setText(tr("Open a run to export"));
        return nullptr;
    }
    if (stillIndexing(tr("Exporting"))) return nullptr;
    if (m_hdf5Dialog && m_hdf5Dialog->isRunning()) {
        m_hdf5Dialog->raise();
        return m_hdf5Dialog;
    }
    if (m_hdf5Dialog) m_hdf5Dialog->deleteLater();
    auto* dialog = new Hdf5ExportDialog(m_currentRun, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QString dir =
        m_settings->value(QStringLiteral("export/dir"), QDir::homePath()).toString();
    QString name = runName(m_currentRun).replace(QLatin1Char('/'), QLatin1Char('_'));
    if (name.isEmpty()) name = QStringLiteral("run");
    dialog->setOutputPath(dir + QLatin1Char('/') + name + QStringLiteral(".h5"));
    connect(dialog, &Hdf5ExportDialog::exportFinished, this, [this, dialog](bool ok) {
        if (ok) {
            m_statusLabel->setText(tr("Exported to HDF5"));
        } else {
            m_diagModel->addMessage(codes::kExportFailed, dialog->errorText());
            m_statusLabel->setText(tr("HDF5 export failed"));
        }
    });
    m_hdf5Dialog = dialog;
    dialog->show();
    return dialog;
}

void MainWindow::exportStatisticsCsv(const QString& path) {
    if (!m_currentRun || stillIndexing(tr("Exporting"))) return;
    m_statusLabel->setText(tr("Writing statistics to %1...").arg(path));
    m_exportJobs->startJob(
        [run = m_currentRun, p = path.toStdString()](JobContext& ctx) {
            return writeStatsCsv(*run, p, ctx.callback());
        },
        [this, path](Result<std::uint64_t> r) {
            if (r.isOk()) {
                m_statusLabel->setText(tr("Wrote %1 statistics rows to %2").arg(*r).arg(path));
                return;
            }
            m_diagModel->addMessage(codes::kExportFailed,
                                    tr("statistics CSV %1: %2")
                                        .arg(path, QString::fromStdString(r.status().toString())));
            m_statusLabel->setText(tr("Writing the statistics CSV failed"));
            findChild<QDockWidget*>(QStringLiteral("DiagnosticsDock"))->raise();
        });
}

void MainWindow::exportCompareView() {
    CompareView* v = currentCompareView();
    if (!v) return;
    const QString dir =
        m_settings->value(QStringLiteral("export/dir"), QDir::homePath()).toString();
    QString name =
        v->key().isEmpty() ? QStringLiteral("compare") : v->key() + QStringLiteral("_compare");
    name.replace(QLatin1Char('/'), QLatin1Char('_'));
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export compare view"), dir + QLatin1Char('/') + name + QStringLiteral(".png"),
        tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return;
    m_settings->setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    QString error;
    if (v->exportImage(path, 0, 0, &error, exportsNotes()))
        m_statusLabel->setText(tr("Exported %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

} // namespace xt::widgets
