#pragma once
// The timeline tab: a toolbar (search with "n of m", fit and zoom buttons), the TimelineView,
// the SliceDetails panel on the right (splitter) and a bottom area of tabs that other panels
// (op summary, step breakdown, memory...) are added to with addPanel(). Layers load in the
// background through the page's JobTracker; the page shows progress until a layer is ready and
// stays busy until the view has built its caches. The search box starts the view's background
// search on every edit (the new one cancels the old; Esc cancels it) and shows its progress.

#include "widgets/job_tracker.h"
#include "widgets/slice_details.h"
#include "widgets/timeline_view.h"

#include <QWidget>
#include <functional>

class QLabel;
class QLineEdit;
class QProgressBar;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QToolButton;

namespace xt::widgets {

class TimelineAnalysis;

class TimelinePage : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePage(QWidget* parent = nullptr);
    ~TimelinePage() override;

    TimelineView* view() const { return m_view; }
    SliceDetails* details() const { return m_details; }
    QLineEdit* searchBox() const { return m_search; }
    QTabWidget* panels() const { return m_panels; }
    // The op summary, step, memory and trace diff panels (linked to the view).
    TimelineAnalysis* analysis() const { return m_analysis; }
    // Adds a tab to the bottom panel area (shown once it has a tab).
    void addPanel(QWidget* panel, const QString& title);
    // The share of the page's height given to the panel area (0..1; default 0.25).
    void setPanelShare(double fraction);

    // Loads a timeline file in the background and adds it as a layer.
    void loadFile(const QString& path);
    // ImportOptions::chromeCompatibleFlows for the files loaded from now on.
    void setChromeCompatibleFlows(bool on) { m_chromeCompatibleFlows = on; }
    bool chromeCompatibleFlows() const { return m_chromeCompatibleFlows; }
    // Runs `load` off the GUI thread and adds its layer; `what` labels progress and errors.
    using LayerJob = std::function<Result<TimelineLayer>(const ProgressCallback&)>;
    void loadLayer(LayerJob load, const QString& what);
    // The same for a job giving several layers at once (e.g. every rank of a distributed job).
    using LayersJob = std::function<Result<std::vector<TimelineLayer>>(const ProgressCallback&)>;
    void loadLayers(LayersJob load, const QString& what);
    bool isBusy() const { return m_jobs->isRunning() || !m_queue.empty() || m_view->isIndexing(); }
    // The loading job, else the view's cache job, or null.
    std::shared_ptr<JobContext> currentJob() const;
    // Cancels loading (not the view's caches, which every layer needs).
    void cancel();
    // The last load's error, empty when it succeeded.
    QString lastError() const { return m_lastError; }
    // The files loaded as layers, in layer order (empty strings for non-file layers).
    QStringList paths() const { return m_paths; }
    // What notes of this tab stick to: its first file, else its first layer's title.
    QString identity() const;
    // The one-line summary of the cursors in the toolbar.
    QLabel* cursorLabel() const { return m_cursorLabel; }

    void runSearch();
    bool isSearching() const { return m_view->isSearching(); }

signals:
    void busyChanged(bool busy);
    void layerLoaded(const QString& title);
    // After a job's layers were added (each also announced by layerLoaded).
    void layersLoaded(int first, int count);
    void loadFailed(const QString& message);

protected:
    void keyPressEvent(QKeyEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void startNext();
    void updateBusy(); // emits busyChanged when isBusy() changed
    void updateHits();

    TimelineView* m_view;
    SliceDetails* m_details;
    TimelineAnalysis* m_analysis;
    QLineEdit* m_search;
    QLabel* m_hitLabel;
    QLabel* m_cursorLabel;
    QLabel* m_help;
    QTabWidget* m_panels;
    QSplitter* m_vsplit;
    QStackedWidget* m_stack;
    QLabel* m_loadLabel;
    QProgressBar* m_loadProgress;
    JobTracker* m_jobs;
    QTimer* m_progressTimer;
    QTimer* m_searchTimer; // refreshes the search progress
    bool m_busy = false;   // as last announced
    struct Pending {
        LayersJob job;
        QString what;
    };
    std::vector<Pending> m_queue;
    QString m_current;
    QString m_lastError;
    QStringList m_paths;
    bool m_chromeCompatibleFlows = false;
};

} // namespace xt::widgets
