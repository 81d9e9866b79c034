#pragma once
// The xtview main window: run browser, key tree (regex filter), meta summary, value inspector,
// diagnostics and notes docks around plot, timeline and compare tabs, with a welcome page when
// nothing is open. Each kind of tab has its own dock layout (View > Reset Layout). Loading runs
// off the GUI thread through a JobTracker (progress and cancel in the status bar); the demo run
// is written by core/demo, off the GUI thread too. Sessions (.xtview) save and restore the
// whole desktop. Layouts, recent files and sessions and options are kept in QSettings.

#include "core/open/open_plan.h"
#include "widgets/compare_view.h"
#include "widgets/diagnostics_model.h"
#include "widgets/job_tracker.h"
#include "widgets/key_tree_model.h"
#include "widgets/key_view.h"
#include "widgets/live_runs.h"
#include "widgets/meta_summary_model.h"
#include "widgets/notes.h"
#include "widgets/run_browser_model.h"
#include "widgets/session.h"
#include "widgets/value_inspector.h"

#include <QMainWindow>
#include <QPointer>
#include <QSettings>
#include <QTimer>
#include <functional>

class QLabel;
class QLineEdit;
class QListWidget;
class QSortFilterProxyModel;
class QStackedWidget;
class QSystemTrayIcon;
class QTabWidget;
class QTableView;
class QToolButton;
class QTreeView;
class QTreeWidget;

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
    // The key, timeline and compare tabs (tabs of m_tabs: no search through the widgets inside
    // them).
    QList<KeyView*> keyViews() const;
    QList<TimelinePage*> timelinePages() const;
    QList<CompareView*> compareViews() const;
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
    // Following runs still being written (main_window_live.cpp).
    LiveRuns* liveRuns() const { return m_live; }
    // The last NaN/Inf that appeared in a followed run.
    struct Alert {
        RunSnapshot run;
        QString key;
        int rank = -1;
        std::int64_t gstep = 0;
    };
    std::optional<Alert> lastAlert() const;
    // Shows the last alert's key with the cursor at its step.
    void jumpToAlert();

    // The demo run's steps as a Chrome trace (written next to the demo run), and opening it
    // (writing the demo run first when needed).
    static QString sampleTimelinePath();
    void openSampleTimeline();

    // Dock layouts, one per kind of tab (main_window_layout.cpp).
    enum class LayoutKind { Start, Tensor, Timeline, Compare };
    LayoutKind layoutKind() const { return m_layoutKind; }
    // The current kind's layout back to its default.
    void resetLayout();

    // Cursors and notes on the current tab (main_window_notes.cpp).
    void placeCursor(Cursor c);
    void clearCursors();
    void copyCursors();
    NoteStore* notes() const { return m_notes; }
    // "Add Note...": the dialog for the current plot or timeline.
    void addNoteDialog();
    // What `target` is called in the Notes dock (a run's name, a timeline's file name).
    QString noteTargetName(const QString& target) const;
    // Whether exported plot images show the notes (Measure > Include Notes in Exported Images).
    bool exportsNotes() const;
    // Writes the current plot tab's statistics plot, or its histogram heatmap, to `path` (PNG,
    // PDF or SVG), with the notes when exportsNotes(); false with `error` set on failure.
    bool exportCurrentPlot(const QString& path, bool heatmap, QString* error = nullptr);

    // Sessions (main_window_session.cpp; the file format is in docs/SESSIONS.md).
    bool saveSession(const QString& path, QString* error = nullptr);
    // Closes everything and restores the session: its runs and timelines open through
    // openPaths, its tabs, views, notes, names and layouts follow once they are loaded
    // (sessionRestored). False when the file is not a session.
    bool openSession(const QString& path);
    // What the last session could not restore (files gone, keys missing...).
    const QStringList& sessionProblems() const { return m_sessionProblems; }
    // The session file last opened or saved ("" = none).
    const QString& sessionPath() const { return m_sessionPath; }
    // Whether a session is still being restored.
    bool isRestoringSession() const { return m_pending != nullptr; }

signals:
    void loadFinished();
    // A session was restored as far as it could be; `problems` says what was left out.
    void sessionRestored(const QStringList& problems);

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
    // Background statistics: the next stage of a key read in stages (LoadedRun::partialKey),
    // else the next run without complete statistics is summarised; a key shown before that gets
    // its own statistics first, and so do keys shown without them when `readShown`.
    void completeNextRun(bool readShown = true);
    // Whether a key job runs (a stage, or a key asked for); starts the next stage if none does.
    bool readNextStage();
    void ensureKeySeries(const QString& key);
    // The keys the plot and compare tabs show of `run` (on a run with series on demand, the
    // series of the others are let go when a key is read).
    std::vector<std::string> shownKeys(const RunSnapshot& run) const;
    // Starts reading the series of a key a tab shows without them, if any (on a run with series
    // on demand, another key's job may have superseded its own). Returns whether one runs.
    bool readShownSeries();
    void startKeySeries(const RunSnapshot& run, const std::string& key);
    void onRunCompleted(CompleteResult result);
    // Puts `after` everywhere `before` was shown (models, plot tabs, inspector, compare tabs).
    void replaceRun(const RunSnapshot& before, const RunSnapshot& after);
    void setCurrentRun(int index);
    void updateMetaLabel();
    void createLiveActions();
    void onRunExtended(const RunSnapshot& before, const RunSnapshot& after,
                       const Diagnostics& diagnostics);
    void alertNewNonFinite(const RunSnapshot& before, const RunSnapshot& after);
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
    // A current run shown from a preview (LoadedRun::preview) says that `what` waits for it.
    bool stillIndexing(const QString& what);
    void createTimelineActions();
    TimelinePage* newTimelinePage(const QString& title);
    void updateBusyIndicators();
    // Run names (main_window_runs.cpp): renaming in the Runs dock, tab titles, the Keys dock.
    void createRunNameActions();
    void updateRunNames();
    void updateTabTitle(int index);
    void updateKeysDockTitle();
    void followCurrentTab();
    // Dock layouts per kind of tab.
    void applyLayout();
    void arrangeDocks(LayoutKind kind);
    LayoutKind currentLayoutKind() const;
    void loadLayouts();
    void storeCurrentLayout();
    // The layouts by kind name, for sessions; setting them applies the current kind's.
    QMap<QString, QByteArray> layoutsByName();
    void setLayoutsByName(const QMap<QString, QByteArray>& layouts);
    // Shows and raises the Diagnostics dock (hidden in some layouts).
    void showDiagnostics();
    // Cursors, notes, plot options and their menus.
    void createDesktopActions();
    void createNotesDock();
    void updateNotes();
    void updateNotesDock();
    void goToNote(int id);
    void editNote(int id);
    // Sessions.
    void createSessionActions(QMenu* file);
    void addRecentSession(const QString& path);
    void updateRecentSessions();
    Session currentSession();
    void restoreTabs();
    void finishSessionRestore();
    void withDemoRun(std::function<void(const QString& dir)> then);
    std::unique_ptr<QSettings> m_settings;
    JobTracker* m_loadJobs;
    JobTracker* m_openJobs;            // planOpen of the oldest pending openPaths call
    QList<QStringList> m_pendingOpens; // openPaths calls not sorted yet, oldest first
    JobTracker* m_completeJobs;        // completeRun of one run at a time
    JobTracker* m_keyJobs;             // addKeySeries of the key just shown (newest wins)
    QStringList m_paths;
    QString m_firstKey;
    bool m_loadedOnce = false;
    int m_showingLoaded = 0; // loads whose key is still to be shown (next turn of the event loop)
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
    ProgressStrip* m_progress;
    QToolButton* m_cancel;
    QTimer m_progressTimer;
    QMenu* m_recentMenu;
    QMenu* m_viewMenu;
    QAction* m_exportPlotAction;
    QAction* m_exportHeatmapAction;
    QAction* m_exportCompareAction = nullptr;
    JobTracker* m_exportJobs = nullptr;
    QPointer<Hdf5ExportDialog> m_hdf5Dialog;
    LiveRuns* m_live = nullptr;
    QToolButton* m_alertButton = nullptr;
    QSystemTrayIcon* m_tray = nullptr;
    std::optional<Alert> m_alert;

    NoteStore* m_notes;
    QTreeWidget* m_notesTree = nullptr;
    QAction* m_exportNotesAction = nullptr;
    QList<QAction*> m_plotActions; // enabled on plot tabs only
    LayoutKind m_layoutKind = LayoutKind::Start;
    QHash<int, QByteArray> m_layouts; // the user's layout per kind
    QByteArray m_defaultLayout;       // every dock in place (arrangeDocks)
    bool m_applyingLayout = false;
    // A session being restored: its tabs wait for its runs to load.
    struct PendingSession {
        Session session;
        QString dir;                         // the session file's directory
        QHash<QString, QString> moved;       // old path -> where it was found
        std::vector<QPointer<QWidget>> tabs; // per session tab, once made
        bool tabsRestored = false;
    };
    std::unique_ptr<PendingSession> m_pending;
    QStringList m_sessionProblems;
    QString m_sessionPath;
    QMenu* m_recentSessionsMenu = nullptr;
    QListWidget* m_recentSessionsList = nullptr;
    JobTracker* m_sampleJobs = nullptr;
};

} // namespace xt::widgets
