#pragma once
// The xtview main window: run browser, key tree (regex filter), meta summary, value inspector
// and diagnostics docks around plot tabs, with a start page when nothing is open. Loading runs
// off the GUI thread through a JobTracker (progress and cancel in the status bar); the demo run
// is written by core/demo, off the GUI thread too. Layout, recent files and options are kept
// in QSettings.

#include "core/open/open_plan.h"
#include "widgets/compare_view.h"
#include "widgets/diagnostics_model.h"
#include "widgets/job_tracker.h"
#include "widgets/key_tree_model.h"
#include "widgets/key_view.h"
#include "widgets/meta_summary_model.h"
#include "widgets/run_browser_model.h"
#include "widgets/value_inspector.h"

#include <QMainWindow>
#include <QPointer>
#include <QSettings>
#include <QTimer>

class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QSortFilterProxyModel;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QToolButton;
class QTreeView;

namespace xt::widgets {

class Hdf5ExportDialog;
class TimelinePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // settingsFile empty = the user's settings; tests pass a file of their own.
    explicit MainWindow(const QString& settingsFile = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Sorts paths (files, directories, globs, hdfs:// URLs; core/open's planOpen) in background:
    // XDL runs join the open set, which is (re)loaded; timeline files (Chrome traces, TF
    // StepStats) open in a new timeline tab. Calls are handled in order.
    void openPaths(const QStringList& paths);
    // Opens timeline files as layers of one new timeline tab, loaded in background.
    TimelinePage* openTimelineFiles(const QStringList& files);
    // Opens the Kineto traces of a distributed job (one per rank) as one multi-rank timeline
    // tab with a Ranks panel (main_window_ranks.cpp).
    TimelinePage* openRanksTimeline(const QStringList& files);
    // The current XDL run's steps as a timeline layer: added to the current timeline tab, else
    // in a new one.
    void showStepTimeline();
    TimelinePage* currentTimelinePage() const;
    // Writes the built-in demo run (core/demo; once, into demoDirectory()) and opens it.
    void openDemoRun();
    void reload();
    // The key whose statistics a run without summaries computes first (the command line's
    // --key); later loads prefer the key on screen.
    void setPreferredKey(const QString& key) { m_firstKey = key; }
    void closeAll();
    // Loading, writing the demo or computing a view.
    bool isBusy() const;
    // Whether the last load finished (successfully or not).
    bool hasLoaded() const { return m_loadedOnce; }

    std::vector<RunSnapshot> runs() const { return m_runModel->runs(); }
    RunBrowserModel* runModel() const { return m_runModel; }
    QTreeView* runTree() const { return m_runTree; }
    // The name that tells `run` apart from the other open runs (or the user's name for it).
    QString runName(const RunSnapshot& run) const { return m_runModel->nameOf(run); }
    KeyTreeModel* keyModel() const { return m_keyModel; }
    QTreeView* keyTree() const { return m_keyTree; }
    DiagnosticsModel* diagnosticsModel() const { return m_diagModel; }
    KeyView* currentKeyView() const;
    // Shows `key` of the current run in the current plot tab.
    void showKey(const QString& key, bool newTab = false);
    // Run comparison and exports (compare tabs, HDF5 and statistics CSV).
    // Opens a compare tab for `request` (the comparison runs in the background).
    CompareView* openCompare(const CompareRequest& request);
    // "Compare Runs...": the dialog, then a compare tab.
    void showCompareDialog();
    // "Export to HDF5..." for the current run: a non-modal dialog (null when no run is open).
    Hdf5ExportDialog* showExportHdf5Dialog();
    // The current run's per-record statistics as CSV, written in the background.
    void exportStatisticsCsv(const QString& path);
    CompareView* currentCompareView() const;
    // Where the demo run is cached.
    static QString demoDirectory();

signals:
    void loadFinished();

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void createActions();
    void createDocks();
    QWidget* createStartPage();
    void startNextOpen();
    void onPlanned(const QStringList& inputs, Result<open::OpenPlan> plan);
    void startLoad();
    void onLoaded(LoadResult result);
    // Background statistics: the next run without complete statistics is summarised; a key
    // shown before that gets its own statistics first.
    void completeNextRun();
    void ensureKeySeries(const QString& key);
    void onRunCompleted(CompleteResult result);
    // Puts `after` everywhere `before` was shown (models, plot tabs, inspector, compare tabs).
    void replaceRun(const RunSnapshot& before, const RunSnapshot& after);
    void setCurrentRun(int index);
    void selectFirstKey();
    void onStepSelected(std::int64_t gstep);
    void updateProgress();
    void addRecent(const QStringList& paths);
    void updateRecentMenu();
    void exportPlot(bool heatmap);
    void updateTitle();
    void saveSettings();
    void createCompareExportActions(QMenu* file);
    void exportCompareView();
    bool compareOrExportBusy() const;
    void createTimelineActions();
    TimelinePage* newTimelinePage(const QString& title);
    void updateBusyIndicators();
    // Run names (main_window_runs.cpp): renaming in the Runs dock, tab titles, the Keys dock.
    void createRunNameActions();
    void updateRunNames();
    void updateTabTitle(int index);
    void updateKeysDockTitle();
    void followCurrentTab();

    std::unique_ptr<QSettings> m_settings;
    JobTracker* m_loadJobs;
    JobTracker* m_openJobs;            // planOpen of the oldest pending openPaths call
    QList<QStringList> m_pendingOpens; // openPaths calls not sorted yet, oldest first
    JobTracker* m_completeJobs;        // completeRun of one run at a time
    JobTracker* m_keyJobs;             // addKeySeries of the key just shown (newest wins)
    QStringList m_paths;
    QString m_firstKey;
    bool m_loadedOnce = false;
    JobTracker* m_demoJobs;

    RunBrowserModel* m_runModel;
    KeyTreeModel* m_keyModel;
    QSortFilterProxyModel* m_keyProxy;
    MetaSummaryModel* m_metaModel;
    DiagnosticsModel* m_diagModel;
    RunSnapshot m_currentRun;
    std::optional<std::int64_t> m_cursorStep;

    QStackedWidget* m_center;
    QListWidget* m_recentList;
    QTabWidget* m_tabs;
    QTreeView* m_runTree;
    QTreeView* m_keyTree;
    QLineEdit* m_keyFilter;
    QTableView* m_metaTable;
    QLabel* m_metaLabel;
    QTableView* m_diagTable;
    ValueInspector* m_inspector;

    QLabel* m_statusLabel;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    QTimer m_progressTimer;
    QMenu* m_recentMenu;
    QMenu* m_viewMenu;
    QAction* m_exportPlotAction;
    QAction* m_exportHeatmapAction;
    QAction* m_exportCompareAction = nullptr;
    JobTracker* m_exportJobs = nullptr;
    QPointer<Hdf5ExportDialog> m_hdf5Dialog;
};

} // namespace xt::widgets
