#include "widgets/main_window.h"

#include "core/demo/demo_run.h"
#include "widgets/about_dialog.h"
#include "widgets/app_backend.h"
#include "widgets/plot_export.h"
#include "widgets/ranks_timeline.h"
#include "widgets/table_columns.h"
#include "widgets/timeline_page.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace xt::widgets {

namespace {

constexpr int kMaxRecent = 10;
// Rows the run and meta tables read to size their columns (Qt reads 1000 by default).
constexpr int kSizedRows = 16;
// View > Chrome-Compatible Flows (timeline::ImportOptions::chromeCompatibleFlows).
const QString kChromeFlowsKey = QStringLiteral("timeline/chromeCompatibleFlows");

QDockWidget* makeDock(QMainWindow* w, const QString& title, const QString& name, QWidget* content,
                      Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, w);
    d->setObjectName(name);
    d->setWidget(content);
    w->addDockWidget(area, d);
    return d;
}

} // namespace

MainWindow::MainWindow(const QString& settingsFile, QWidget* parent)
    : QMainWindow(parent),
      m_settings(
          settingsFile.isEmpty()
              ? std::make_unique<QSettings>(QStringLiteral("xtview"), QStringLiteral("xtview"))
              : std::make_unique<QSettings>(settingsFile, QSettings::IniFormat)),
      m_loadJobs(new JobTracker(this)), m_openJobs(new JobTracker(this)),
      m_completeJobs(new JobTracker(this)), m_keyJobs(new JobTracker(this)),
      m_demoJobs(new JobTracker(this)), m_runModel(new RunBrowserModel(this)),
      m_keyModel(new KeyTreeModel(this)), m_keyProxy(new QSortFilterProxyModel(this)),
      m_metaModel(new MetaSummaryModel(this)), m_diagModel(new DiagnosticsModel(this)),
      m_notes(new NoteStore(this)) {
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    m_keyProxy->setSourceModel(m_keyModel);
    m_keyProxy->setRecursiveFilteringEnabled(true);
    m_keyProxy->setFilterRole(KeyTreeModel::KeyRole);
    m_keyProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_center = new QStackedWidget(this);
    m_center->addWidget(createStartPage());
    m_tabs = new QTabWidget(this);
    m_tabs->setTabsClosable(true);
    m_tabs->setElideMode(Qt::ElideMiddle); // long keys keep their head and their last scope
    m_tabs->setDocumentMode(true);
    m_tabs->setMovable(true);
    m_center->addWidget(m_tabs);
    setCentralWidget(m_center);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int i) {
        QWidget* w = m_tabs->widget(i);
        m_tabs->removeTab(i);
        w->deleteLater();
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        followCurrentTab();
        if (auto* v = currentKeyView()) {
            m_inspector->setContext(v->run(), v->key(), m_cursorStep);
            const QModelIndex src = m_keyModel->indexOfKey(v->key());
            if (src.isValid() && v->run() == m_currentRun)
                m_keyTree->setCurrentIndex(m_keyProxy->mapFromSource(src));
        }
        m_exportPlotAction->setEnabled(currentKeyView() != nullptr);
        m_exportHeatmapAction->setEnabled(currentKeyView() != nullptr);
        for (QAction* a : m_plotActions)
            a->setEnabled(currentKeyView() != nullptr);
    });

    createDocks();
    createActions();
    createTimelineActions();
    createDesktopActions();
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::applyLayout);
    connect(m_center, &QStackedWidget::currentChanged, this, &MainWindow::applyLayout);
    connect(m_notes, &NoteStore::changed, this, [this] {
        updateNotes();
        updateNotesDock();
    });

    m_statusLabel = new QLabel(tr("Ready"), this);
    // (Text in the bar took 30-40 ms of some paints while a large run opened.)
    m_progress = new ProgressStrip(tr("Checking summaries 100%"), 160, this);
    m_progress->hide();
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Cancel loading (Esc)"));
    m_cancel->hide();
    // The status bar as tall as with the progress and its Cancel button: showing them would
    // otherwise make it taller, and every plot above would be resized and drawn again, at each
    // job's start and end.
    m_statusLabel->setMinimumHeight(
        std::max(m_progress->sizeHint().height(), m_cancel->sizeHint().height()));
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    createLiveActions();
    connect(m_cancel, &QToolButton::clicked, this, [this] {
        m_pendingOpens.clear();
        m_openJobs->cancel();
        m_loadJobs->cancel();
        m_completeJobs->cancel();
        m_keyJobs->cancel();
        m_demoJobs->cancel();
        for (auto* page : timelinePages())
            page->cancel();
        m_statusLabel->setText(tr("Cancelled"));
    });
    m_progressTimer.setInterval(50);
    connect(&m_progressTimer, &QTimer::timeout, this, &MainWindow::updateProgress);
    for (JobTracker* jobs : {m_loadJobs, m_openJobs, m_completeJobs, m_keyJobs, m_demoJobs})
        connect(jobs, &JobTracker::runningChanged, this, &MainWindow::updateBusyIndicators);

    resize(1400, 900);
    restoreGeometry(m_settings->value(QStringLiteral("window/geometry")).toByteArray());
    loadLayouts();
    updateRecentMenu();
    updateRecentSessions();
    updateTitle();
}

MainWindow::~MainWindow() {
    m_openJobs->cancel();
    m_loadJobs->cancel();
    m_completeJobs->cancel();
    m_keyJobs->cancel();
    m_demoJobs->cancel();
}

QWidget* MainWindow::createStartPage() {
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("WelcomePage"));
    auto* outer = new QVBoxLayout(page);
    auto* box = new QWidget(page);
    box->setMaximumWidth(900);
    auto* v = new QVBoxLayout(box);
    auto* title = new QLabel(QStringLiteral("xtview"), box);
    QFont f = title->font();
    f.setPointSizeF(f.pointSizeF() * 2.6);
    f.setBold(true);
    title->setFont(f);
    auto* sub = new QLabel(
        tr("A viewer for deep-learning training: <b>tensor traces</b> (statistics, histograms and "
           "values of every traced key, per rank and step) and <b>timelines</b> (Chrome traces of "
           "PyTorch/Kineto, TensorFlow and other profilers: slices, flows, counters, op summaries "
           "and step breakdowns)."),
        box);
    sub->setWordWrap(true);
    auto button = [&](const QString& text, const QString& tip, const char* name) {
        auto* b = new QPushButton(text, box);
        b->setToolTip(tip);
        b->setObjectName(QLatin1String(name));
        return b;
    };
    auto* demo = button(tr("Open the demo run"),
                        tr("Writes a small simulated training run (4 ranks, drifting weights, a "
                           "NaN) with xtrace record-demo and opens it"),
                        "openDemo");
    auto* sample = button(tr("Open a sample timeline"),
                          tr("The demo run's steps per rank as a Chrome trace (written once, with "
                             "the demo run), in a timeline tab"),
                          "openSampleTimeline");
    auto* open = button(tr("Open files..."), tr("Tensor trace files, or timeline files (Ctrl+O)"),
                        "openFiles");
    auto* openDir =
        button(tr("Open run directory..."), tr("A run directory (Ctrl+Shift+O)"), "openDirectory");
    auto* openTimeline =
        button(tr("Open timeline..."),
               tr("Chrome traces (.json, .json.gz, .zip) and TensorFlow StepStats (.pb) (Ctrl+T)"),
               "openTimeline");
    auto* openSessionButton =
        button(tr("Open session..."), tr("A saved desktop: runs, timelines, tabs, notes (.xtview)"),
               "openSession");
    auto* row1 = new QHBoxLayout;
    row1->addWidget(new QLabel(tr("<b>Try</b>"), box));
    row1->addWidget(demo);
    row1->addWidget(sample);
    row1->addStretch(1);
    auto* row2 = new QHBoxLayout;
    row2->addWidget(new QLabel(tr("<b>Open</b>"), box));
    row2->addWidget(open);
    row2->addWidget(openDir);
    row2->addWidget(openTimeline);
    row2->addWidget(openSessionButton);
    row2->addStretch(1);
    m_recentList = new QListWidget(box);
    m_recentList->setObjectName(QStringLiteral("recentFiles"));
    m_recentList->setAlternatingRowColors(true);
    m_recentSessionsList = new QListWidget(box);
    m_recentSessionsList->setObjectName(QStringLiteral("recentSessions"));
    m_recentSessionsList->setAlternatingRowColors(true);
    auto* lists = new QHBoxLayout;
    auto* files = new QVBoxLayout;
    files->addWidget(new QLabel(tr("<b>Recent files</b> (drop files or directories anywhere to "
                                   "open)"),
                                box));
    files->addWidget(m_recentList, 1);
    auto* sessions = new QVBoxLayout;
    sessions->addWidget(new QLabel(tr("<b>Recent sessions</b>"), box));
    sessions->addWidget(m_recentSessionsList, 1);
    lists->addLayout(files, 3);
    lists->addLayout(sessions, 2);
    v->addWidget(title);
    v->addWidget(sub);
    v->addSpacing(12);
    v->addLayout(row1);
    v->addLayout(row2);
    v->addSpacing(12);
    v->addLayout(lists, 1);
    outer->addStretch(1);
    outer->addWidget(box, 3, Qt::AlignHCenter);
    outer->addStretch(1);
    connect(demo, &QPushButton::clicked, this, &MainWindow::openDemoRun);
    connect(sample, &QPushButton::clicked, this, &MainWindow::openSampleTimeline);
    connect(open, &QPushButton::clicked, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open trace files"));
        if (!files.isEmpty()) openPaths(files);
    });
    connect(openDir, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open run directory"));
        if (!dir.isEmpty()) openPaths({dir});
    });
    connect(openTimeline, &QPushButton::clicked, this, [this] {
        for (QAction* a : findChildren<QAction*>())
            if (a->objectName() == QLatin1String("openTimeline")) a->trigger();
    });
    connect(openSessionButton, &QPushButton::clicked, this, [this] {
        for (QAction* a : findChildren<QAction*>())
            if (a->objectName() == QLatin1String("openSession")) a->trigger();
    });
    connect(m_recentList, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { openPaths(item->data(Qt::UserRole).toStringList()); });
    connect(m_recentSessionsList, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { openSession(item->data(Qt::UserRole).toString()); });
    return page;
}

void MainWindow::createDocks() {
    // Run browser.
    m_runTree = new QTreeView(this);
    m_runTree->setModel(m_runModel);
    m_runTree->setUniformRowHeights(true);
    m_runTree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Column widths from the first rows, not a thousand: a run of many ranks lists them all.
    m_runTree->header()->setResizeContentsPrecision(kSizedRows);
    connect(m_runTree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& i) {
                if (i.isValid()) setCurrentRun(i.data(RunBrowserModel::RunIndexRole).toInt());
            });
    makeDock(this, tr("Runs"), QStringLiteral("RunsDock"), m_runTree, Qt::LeftDockWidgetArea);
    createRunNameActions();

    // Key tree with its filter.
    auto* keys = new QWidget(this);
    auto* kl = new QVBoxLayout(keys);
    kl->setContentsMargins(0, 0, 0, 0);
    kl->setSpacing(2);
    m_keyFilter = new QLineEdit(keys);
    m_keyFilter->setPlaceholderText(tr("Filter keys (regular expression)  Ctrl+F"));
    m_keyFilter->setClearButtonEnabled(true);
    m_keyTree = new QTreeView(keys);
    m_keyTree->setModel(m_keyProxy);
    m_keyTree->setUniformRowHeights(true);
    m_keyTree->setAlternatingRowColors(true);
    m_keyTree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    kl->addWidget(m_keyFilter);
    kl->addWidget(m_keyTree, 1);
    connect(m_keyFilter, &QLineEdit::textChanged, this, [this](const QString& text) {
        const QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            m_keyFilter->setStyleSheet(QStringLiteral("QLineEdit { color: #d03030; }"));
            m_keyFilter->setToolTip(re.errorString());
            return;
        }
        m_keyFilter->setStyleSheet({});
        m_keyFilter->setToolTip({});
        m_keyProxy->setFilterRegularExpression(re);
        if (!text.isEmpty()) m_keyTree->expandAll();
    });
    connect(m_keyTree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& i) {
                const QString key = i.data(KeyTreeModel::KeyRole).toString();
                if (!key.isEmpty()) showKey(key);
            });
    connect(m_keyTree, &QTreeView::doubleClicked, this, [this](const QModelIndex& i) {
        const QString key = i.data(KeyTreeModel::KeyRole).toString();
        if (!key.isEmpty()) showKey(key, true);
    });
    makeDock(this, tr("Keys"), QStringLiteral("KeysDock"), keys, Qt::LeftDockWidgetArea);

    // Meta summary.
    auto* meta = new QWidget(this);
    auto* ml = new QVBoxLayout(meta);
    ml->setContentsMargins(0, 0, 0, 0);
    m_metaLabel = new QLabel(meta);
    m_metaLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_metaLabel->setContentsMargins(4, 2, 4, 2);
    m_metaTable = new QTableView(meta);
    m_metaTable->setModel(m_metaModel);
    m_metaTable->verticalHeader()->hide();
    m_metaTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_metaTable->horizontalHeader()->setResizeContentsPrecision(kSizedRows);
    ml->addWidget(m_metaLabel);
    ml->addWidget(m_metaTable, 1);
    makeDock(this, tr("Meta summary"), QStringLiteral("MetaDock"), meta, Qt::BottomDockWidgetArea);

    // Diagnostics.
    m_diagTable = new QTableView(this);
    m_diagTable->setModel(m_diagModel);
    m_diagTable->verticalHeader()->hide();
    fitColumnsToContents(m_diagTable, DiagnosticsModel::MessageColumn);
    m_diagTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    makeDock(this, tr("Diagnostics"), QStringLiteral("DiagnosticsDock"), m_diagTable,
             Qt::BottomDockWidgetArea);

    // Value inspector.
    m_inspector = new ValueInspector(this);
    makeDock(this, tr("Value inspector"), QStringLiteral("InspectorDock"), m_inspector,
             Qt::RightDockWidgetArea);
    createNotesDock();
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Files..."), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open trace files"));
        if (!files.isEmpty()) openPaths(files);
    });
    open->setShortcut(QKeySequence::Open);
    QAction* openDir = file->addAction(tr("Open &Directory..."), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open run directory"));
        if (!dir.isEmpty()) openPaths({dir});
    });
    openDir->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open the &Demo Run"), this, &MainWindow::openDemoRun);
    file->addAction(tr("Open a Sample T&imeline"), this, &MainWindow::openSampleTimeline);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    createSessionActions(file);
    file->addSeparator();
    QAction* reloadAction = file->addAction(tr("&Reload"), this, &MainWindow::reload);
    reloadAction->setShortcut(QKeySequence(Qt::Key_F5));
    m_exportPlotAction =
        file->addAction(tr("&Export Statistics Plot..."), this, [this] { exportPlot(false); });
    m_exportPlotAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportHeatmapAction =
        file->addAction(tr("Export &Histogram Heatmap..."), this, [this] { exportPlot(true); });
    m_exportHeatmapAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_exportPlotAction->setEnabled(false);
    m_exportHeatmapAction->setEnabled(false);
    createCompareExportActions(file);
    file->addSeparator();
    QAction* closeTab = file->addAction(tr("&Close Tab"), this, [this] {
        if (QWidget* w = m_tabs->currentWidget()) {
            m_tabs->removeTab(m_tabs->currentIndex());
            w->deleteLater();
        }
    });
    closeTab->setShortcut(QKeySequence::Close);
    QAction* closeAllAction = file->addAction(tr("Close &All Runs"), this, &MainWindow::closeAll);
    closeAllAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    QAction* find = m_viewMenu->addAction(tr("&Find Key"), this, [this] {
        if (TimelinePage* page = currentTimelinePage()) { // the timeline's slice search
            page->searchBox()->setFocus();
            page->searchBox()->selectAll();
            return;
        }
        m_keyFilter->parentWidget()->parentWidget()->show();
        m_keyFilter->setFocus();
        m_keyFilter->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    QAction* cancel = m_viewMenu->addAction(tr("Cancel Loading"), this, [this] {
        // Esc in an idle timeline tab cancels its search, else clears its selection.
        if (TimelinePage* page = currentTimelinePage(); page && !isBusy()) {
            if (page->isSearching())
                page->view()->cancelSearch();
            else
                page->view()->clearSelections();
        } else
            m_cancel->click();
    });
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    m_viewMenu->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>())
        m_viewMenu->addAction(d->toggleViewAction());
    QAction* resetLayoutAction =
        m_viewMenu->addAction(tr("Reset &Layout"), this, &MainWindow::resetLayout);
    resetLayoutAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    resetLayoutAction->setToolTip(tr("The docks of this kind of tab (plots, timelines, compare "
                                     "tabs, the welcome page) as they were at first"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard and Mouse"), this, [this] {
        QMessageBox::information(
            this, tr("Keyboard and mouse"),
            tr("<p><b>Plots</b>: drag to pan, wheel to zoom, click to move the step cursor; "
               "+/- zoom, arrow keys pan, Home fits, [ and ] step the cursor; Ctrl+L log x, "
               "Ctrl+Shift+L log y, Ctrl+G ranks aggregated or overlaid.</p>"
               "<p><b>Heatmap</b>: double-click moves the step cursor. <b>Ranks x steps</b>: a "
               "click opens that rank and step.</p>"
               "<p><b>Cursors</b> (plots and timelines): Ctrl+1 and Ctrl+2 put cursor A and B at "
               "the mouse, Ctrl+0 clears them, Ctrl+Shift+C copies their values and deltas. "
               "<b>Notes</b>: Ctrl+M adds one (step, cursors' range, selected time range).</p>"
               "<p>Ctrl+O open, Ctrl+Shift+O open directory, Ctrl+T open timeline, Ctrl+S save "
               "session, Ctrl+Alt+O open session, F5 reload, Ctrl+F find key, Ctrl+E export "
               "plot, Ctrl+W close tab, Ctrl+Shift+R reset the layout, Esc cancel loading, "
               "Ctrl+Q quit; F2 in the Runs dock renames a run.</p>"));
    });
    help->addAction(tr("&About xtview"), this, [this] { showAboutDialog(this); });
}

KeyView* MainWindow::currentKeyView() const {
    return qobject_cast<KeyView*>(m_tabs->currentWidget());
}

void MainWindow::openPaths(const QStringList& all) {
    QStringList inputs;
    for (const QString& p : all) {
        if (p.endsWith(sessionSuffix())) {
            openSession(p);
            return;
        }
        // A directory or pattern of Chrome / Kineto traces only: the ranks of one job.
        if (const QStringList ranks = rankTraceFiles(p); !ranks.isEmpty()) {
            openRanksTimeline(ranks);
            addRecent({p});
            continue;
        }
        inputs << p;
    }
    if (inputs.isEmpty()) return;
    m_pendingOpens << inputs;
    if (!m_openJobs->isRunning()) startNextOpen();
}

void MainWindow::startNextOpen() {
    if (m_pendingOpens.isEmpty()) return;
    const QStringList inputs = m_pendingOpens.takeFirst();
    std::vector<std::string> paths;
    for (const QString& p : inputs)
        paths.push_back(p.toStdString());
    m_statusLabel->setText(tr("Opening %1...").arg(inputs.join(QStringLiteral(", "))));
    m_openJobs->startJob(
        [paths](JobContext& ctx) {
            // URLs mirrored sparsely, as the run loader reads them: metas, summaries and
            // timeline files whole, data parts as copies filled by range when read.
            storage::MirrorOptions sparse = storage::mirrorOptionsFromEnvironment();
            sparse.sparse = true;
            auto mirror = std::make_shared<storage::HdfsMirror>(sparse);
            return open::planOpen(paths, {ctx.callback(), [mirror](const std::string& url,
                                                                   const ProgressCallback& cb) {
                                              return mirror->mirror(url, cb);
                                          }});
        },
        [this, inputs](Result<open::OpenPlan> plan) {
            onPlanned(inputs, std::move(plan));
            startNextOpen();
        });
}

void MainWindow::onPlanned(const QStringList& inputs, Result<open::OpenPlan> plan) {
    addRecent(inputs);
    if (!plan && plan.status().code() == ErrorCode::Cancelled) {
        m_statusLabel->setText(tr("Cancelled"));
        return;
    }
    if (!plan) {
        m_loadedOnce = true;
        m_diagModel->addMessage(codes::kOpenFailed,
                                QString::fromStdString(plan.status().toString()));
        m_statusLabel->setText(
            tr("Could not open: %1").arg(QString::fromStdString(plan.status().message())));
        findChild<QDockWidget*>(QStringLiteral("DiagnosticsDock"))->raise();
        emit loadFinished();
        return;
    }
    m_diagModel->appendDiagnostics(plan->diagnostics);
    QStringList timelines;
    for (const auto& t : plan->traces())
        timelines << QString::fromStdString(t.path);
    openTimelineFiles(timelines);
    bool runs = false;
    for (const auto& in : plan->inputs) {
        if (!in.runs) continue;
        // The input as given (an hdfs:// URL stays one, so a reload fetches what was appended).
        const QString p = QString::fromStdString(in.input);
        const QString abs = QFileInfo(p).exists() ? QFileInfo(p).absoluteFilePath() : p;
        if (!m_paths.contains(abs)) m_paths << abs;
        runs = true;
    }
    if (runs) {
        startLoad();
    } else if (timelines.isEmpty()) {
        m_loadedOnce = true;
        m_statusLabel->setText(
            tr("No run or timeline in %1").arg(inputs.join(QStringLiteral(", "))));
        emit loadFinished();
    }
}

void MainWindow::reload() {
    if (!m_paths.isEmpty()) startLoad();
}

void MainWindow::closeAll() {
    m_loadJobs->cancel();
    m_completeJobs->cancel();
    m_keyJobs->cancel();
    m_paths.clear();
    while (m_tabs->count()) {
        QWidget* w = m_tabs->widget(0);
        m_tabs->removeTab(0);
        w->deleteLater();
    }
    m_runModel->setRuns({});
    m_live->setRuns({});
    m_alert.reset();
    m_alertButton->hide();
    setCurrentRun(-1);
    m_diagModel->setDiagnostics(Diagnostics{});
    m_center->setCurrentIndex(0);
    m_statusLabel->setText(tr("Ready"));
    updateTitle();
}

void MainWindow::startLoad() {
    m_statusLabel->setText(tr("Loading %1...").arg(m_paths.join(QStringLiteral(", "))));
    m_progress->setBusy();
    std::vector<std::string> paths;
    for (const QString& p : m_paths)
        paths.push_back(p.toStdString());
    m_completeJobs->cancel();
    m_keyJobs->cancel();
    LoadOptions options;
    // Runs with more unsummarised bytes than this show one key first and summarise the rest
    // in the background (settings key open/lazyAboveMB).
    options.lazyAboveBytes =
        std::uint64_t(m_settings->value(QStringLiteral("open/lazyAboveMB"), 256).toULongLong()) *
        1000000ull;
    // That first key's statistics come in stages, the first over this many MB of records
    // (open/firstStageMB), so its curves show before the whole key is read.
    options.firstStageBytes =
        std::uint64_t(m_settings->value(QStringLiteral("open/firstStageMB"), 256).toDouble() * 1e6);
    // A summarised run with more key records (records x keys) than this holds the series of the
    // keys shown only (open/seriesOnDemandAbove).
    options.seriesOnDemandAbove = m_settings
                                      ->value(QStringLiteral("open/seriesOnDemandAbove"),
                                              qulonglong(options.seriesOnDemandAbove))
                                      .toULongLong();
    // A summarised run with more key records than this is drawn at once from its summaries'
    // overviews, then opened in full (open/overviewAbove).
    options.overviewAbove =
        m_settings->value(QStringLiteral("open/overviewAbove"), qulonglong(options.overviewAbove))
            .toULongLong();
    // A finished run of more bytes than this without summaries is shown at once from its first
    // records, then opened in full (open/previewAboveMB).
    options.previewAboveBytes =
        std::uint64_t(m_settings->value(QStringLiteral("open/previewAboveMB"), 512).toULongLong()) *
        1000000ull;
    if (KeyView* v = currentKeyView()) options.firstKey = v->key().toStdString();
    if (options.firstKey.empty()) options.firstKey = m_firstKey.toStdString();
    m_loadJobs->startJob(
        [paths, options](JobContext& ctx) { return loadRuns(paths, ctx.callback(), options); },
        [this](LoadResult r) { onLoaded(std::move(r)); });
}

void MainWindow::onLoaded(LoadResult result) {
    // The size of what is open decides the application's analysis backend (chosen by the first
    // job that asks, off the GUI thread).
    std::uint64_t workBytes = 0;
    for (const RunSnapshot& run : result.runs) {
        if (!run->preview) {
            workBytes += analysis::estimateWorkBytes(*run->reader, {});
            continue;
        }
        // Its reader holds the first parts only: the work is every part of its files.
        for (const auto& rank : run->reader->files().ranks)
            for (const auto& part : rank.parts)
                workBytes += part.size;
    }
    appBackend().noteWork(workBytes);
    m_diagModel->setDiagnostics(result.diagnostics);
    if (result.cancelled) {
        m_statusLabel->setText(tr("Loading cancelled"));
    } else if (!result.status.isOk()) {
        m_diagModel->addMessage(codes::kOpenFailed,
                                QString::fromStdString(result.status.toString()));
        m_statusLabel->setText(
            tr("Could not open: %1").arg(QString::fromStdString(result.status.message())));
        findChild<QDockWidget*>(QStringLiteral("DiagnosticsDock"))->raise();
    }
    QString keyToShow;
    bool selectFirst = false;
    if (!result.cancelled && !result.runs.empty()) {
        // Keep the tabs' keys and the current key over a reload.
        QStringList tabKeys;
        for (auto* v : keyViews())
            tabKeys << v->key();
        const QString currentKey = currentKeyView() ? currentKeyView()->key() : QString();
        const std::string currentLabel = m_currentRun ? m_currentRun->label() : std::string();
        m_runModel->setRuns(result.runs);
        m_live->setRuns(result.runs);
        m_runTree->expandToDepth(0);
        int runIndex = 0;
        for (std::size_t i = 0; i < result.runs.size(); ++i)
            if (result.runs[i]->label() == currentLabel) runIndex = int(i);
        m_center->setCurrentIndex(1);
        setCurrentRun(runIndex);
        int rebound = 0;
        for (auto* v : keyViews())
            if (m_currentRun->summaryOf(v->key().toStdString())) {
                v->setData(m_currentRun, v->key());
                ++rebound;
            }
        if (!currentKey.isEmpty() && m_currentRun->summaryOf(currentKey.toStdString()))
            keyToShow = currentKey;
        else
            selectFirst = rebound == 0;
        std::size_t keys = 0;
        std::uint64_t records = 0;
        bool preview = false;
        for (const auto& r : result.runs) {
            keys += r->keys.size();
            records += r->recordCount();
            preview = preview || r->preview;
        }
        QString msg =
            (preview ? tr("%n run(s), %1 keys, %2 records so far (indexing)", nullptr,
                          int(result.runs.size()))
                     : tr("%n run(s), %1 keys, %2 records", nullptr, int(result.runs.size())))
                .arg(keys)
                .arg(records);
        if (!result.diagnostics.empty())
            msg += tr(" - %n diagnostic(s)", nullptr, int(result.diagnostics.total()));
        m_statusLabel->setText(msg);
        if (result.diagnostics.errorCount())
            findChild<QDockWidget*>(QStringLiteral("DiagnosticsDock"))->raise();
    }
    updateTitle();
    // The key is shown in a turn of the event loop of its own (a timer's: a call queued with 0 ms
    // runs with the events posted before it): for a run of many ranks, the docks' first layout
    // and the key view's each took ~20 ms of the GUI thread, back to back.
    ++m_showingLoaded;
    QTimer::singleShot(1, this, [this, keyToShow, selectFirst] {
        --m_showingLoaded;
        if (!keyToShow.isEmpty() && m_currentRun &&
            m_currentRun->summaryOf(keyToShow.toStdString()))
            showKey(keyToShow);
        else if (selectFirst)
            selectFirstKey();
        m_loadedOnce = true;
        emit loadFinished();
        completeNextRun();
    });
}

bool MainWindow::readNextStage() {
    if (m_keyJobs->isRunning()) return true;
    for (const auto& r : m_runModel->runs()) {
        if (r->partialKey.empty()) continue;
        m_keyJobs->startJob(
            [r](JobContext& ctx) {
                ctx.setStage(tr("Statistics"));
                return addKeySeries(r, r->partialKey, ctx.callback());
            },
            [this](CompleteResult c) { onRunCompleted(std::move(c)); });
        return true;
    }
    return false;
}

void MainWindow::completeNextRun(bool readShown) {
    // A key read in stages comes first: it is what the user looks at.
    if (readNextStage() || (readShown && readShownSeries()) || m_completeJobs->isRunning()) return;
    // One background job over a run at a time, in this order: a run shown from its summaries'
    // overviews is opened in full (the key shown first); a run not summarised yet is; last,
    // summaries without an overview are written again with one, for the next open.
    const auto start = [this](const QString& stage,
                              std::function<CompleteResult(const ProgressCallback&)> work) {
        m_completeJobs->startJob(
            [stage, work](JobContext& ctx) {
                ctx.setStage(stage);
                return work(ctx.callback());
            },
            [this](CompleteResult r) { onRunCompleted(std::move(r)); });
        updateProgress();
    };
    const auto firstRun = [this](bool (*wanted)(const LoadedRun&)) {
        for (const auto& r : m_runModel->runs())
            if (wanted(*r)) return r;
        return RunSnapshot();
    };
    if (RunSnapshot r = firstRun([](const LoadedRun& l) { return l.overview || l.preview; })) {
        const KeyView* v = currentKeyView();
        const std::string key = v && v->run() == r ? v->key().toStdString() : std::string();
        start(r->preview ? tr("Indexing") : tr("Checking summaries"),
              [r, key](const ProgressCallback& p) { return openExact(r, key, p); });
    } else if (RunSnapshot r = firstRun([](const LoadedRun& l) { return !l.complete; })) {
        start(tr("Summarising"), [r](const ProgressCallback& p) {
            return completeRun(r, summary::StoreOptions{}, p);
        });
    } else if (RunSnapshot r = firstRun([](const LoadedRun& l) { return l.overviewsToWrite; })) {
        start(tr("Writing overviews"),
              [r](const ProgressCallback& p) { return writeOverviews(r, p); });
    }
}

void MainWindow::ensureKeySeries(const QString& key) {
    // A preview's other keys are read from its first records too (its full open, meanwhile,
    // replaces the preview they are added to: shownSnapshotOf).
    if (!m_currentRun || m_currentRun->hasSeries(key.toStdString())) return;
    startKeySeries(m_currentRun, key.toStdString());
}

void MainWindow::startKeySeries(const RunSnapshot& run, const std::string& key) {
    m_keyJobs->startJob(
        [run, key, keep = shownKeys(run)](JobContext& ctx) {
            ctx.setStage(tr("Statistics"));
            return addKeySeries(run, key, ctx.callback(), keep);
        },
        [this](CompleteResult r) { onRunCompleted(std::move(r)); });
}

std::vector<std::string> MainWindow::shownKeys(const RunSnapshot& run) const {
    std::vector<std::string> keys;
    for (const auto* v : keyViews())
        if (v->run() == run) keys.push_back(v->key().toStdString());
    for (const auto* c : compareViews())
        if (c->request().a.run == run || c->request().b.run == run)
            keys.push_back(c->key().toStdString());
    return keys;
}

bool MainWindow::readShownSeries() {
    if (m_keyJobs->isRunning()) return true;
    for (const auto& run : m_runModel->runs())
        for (const std::string& key : shownKeys(run))
            if (!key.empty() && run->summaryOf(key) && !run->hasSeries(key)) {
                startKeySeries(run, key);
                return true;
            }
    return false;
}

void MainWindow::onRunCompleted(CompleteResult result) {
    if (!result.diagnostics.empty()) m_diagModel->appendDiagnostics(result.diagnostics);
    const RunSnapshot shown = shownSnapshotOf(m_runModel->runs(), result.before);
    if (result.after && shown) {
        replaceRun(shown, result.after);
    } else if (!result.status.isOk() && result.status.code() != ErrorCode::Cancelled) {
        m_diagModel->addMessage(codes::kStatisticsFailed,
                                QString::fromStdString(result.status.toString()));
    }
    // After a failed key job, not the shown keys again (they would fail again).
    if (result.status.code() != ErrorCode::Cancelled) completeNextRun(result.status.isOk());
}

void MainWindow::replaceRun(const RunSnapshot& before, const RunSnapshot& after) {
    if (before->preview)
        m_statusLabel->setText(tr("%1 indexed: %2 keys, %3 records")
                                   .arg(runName(after))
                                   .arg(after->keys.size())
                                   .arg(after->recordCount()));
    m_live->replaced(before, after);
    m_runModel->replaceRun(before, after);
    if (m_currentRun == before) {
        m_currentRun = after;
        const QString key = currentKeyView() ? currentKeyView()->key() : QString();
        m_keyModel->setRun(after);
        m_metaModel->setRun(after);
        updateMetaLabel(); // its keys and backend may differ (a run shown from its overviews)
        if (m_keyModel->rowCount() < 50) m_keyTree->expandAll();
        const QModelIndex src = m_keyModel->indexOfKey(key);
        if (src.isValid()) m_keyTree->setCurrentIndex(m_keyProxy->mapFromSource(src));
    }
    for (auto* v : keyViews())
        if (v->run() == before) {
            // A view whose statistics were there keeps its zoom and heatmap; one that waited
            // for them, or had a preview's, is drawn now.
            if (before->hasSeries(v->key().toStdString()) && !before->preview)
                v->replaceRun(after);
            else
                v->setData(after, v->key());
        }
    if (KeyView* v = currentKeyView(); v && v->run() == after)
        m_inspector->setContext(after, v->key(), m_cursorStep);
    for (auto* c : compareViews())
        c->replaceRun(before, after);
}

void MainWindow::setCurrentRun(int index) {
    const auto& runs = m_runModel->runs();
    RunSnapshot run = index >= 0 && index < int(runs.size()) ? runs[std::size_t(index)] : nullptr;
    if (run == m_currentRun && run) return;
    m_currentRun = run;
    m_cursorStep.reset();
    m_keyModel->setRun(run);
    m_metaModel->setRun(run);
    if (m_keyModel->rowCount() < 50) m_keyTree->expandAll();
    updateMetaLabel();
    m_inspector->setContext(run, {}, {});
    updateKeysDockTitle();
}

void MainWindow::updateMetaLabel() {
    const RunSnapshot& run = m_currentRun;
    if (!run) {
        m_metaLabel->clear();
        return;
    }
    m_metaLabel->setText(tr("<b>%1</b> &nbsp; %2 ranks, %3 keys, statistics on %4")
                             .arg(runIdentity(*run).toHtmlEscaped())
                             .arg(run->reader->ranks().size())
                             .arg(run->keys.size())
                             .arg(QString::fromStdString(run->backend)));
}

void MainWindow::selectFirstKey() {
    if (!m_currentRun) return;
    for (const auto& k : m_currentRun->keys)
        if (k.records > 0) {
            const QModelIndex src = m_keyModel->indexOfKey(QString::fromStdString(k.key));
            if (src.isValid()) {
                m_keyTree->setCurrentIndex(m_keyProxy->mapFromSource(src));
                return;
            }
        }
}

void MainWindow::showKey(const QString& key, bool newTab) {
    if (!m_currentRun) return;
    m_center->setCurrentIndex(1);
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto* v = qobject_cast<KeyView*>(m_tabs->widget(i)))
            if (v->key() == key && v->run() == m_currentRun) {
                m_tabs->setCurrentIndex(i);
                return;
            }
    KeyView* view = newTab ? nullptr : currentKeyView();
    if (!view) {
        view = new KeyView(m_tabs);
        connect(view, &KeyView::stepSelected, this, &MainWindow::onStepSelected);
        connect(view, &KeyView::rankSelected, m_inspector, &ValueInspector::setRank);
        connect(view, &KeyView::noteRequested, this, &MainWindow::addNoteDialog);
        m_tabs->addTab(view, {});
    }
    const int i = m_tabs->indexOf(view);
    // At its size before its data: a large key's lines are decimated for it off this thread.
    if (layout()) layout()->activate();
    view->setData(m_currentRun, key);
    view->setNotes(m_notes->notesFor(runIdentity(*m_currentRun)));
    updateTabTitle(i);
    ensureKeySeries(key);
    if (m_cursorStep) view->setStepCursor(*m_cursorStep);
    m_tabs->setCurrentIndex(i);
    const QModelIndex src = m_keyModel->indexOfKey(key);
    if (src.isValid() && m_keyProxy->mapFromSource(src) != m_keyTree->currentIndex())
        m_keyTree->setCurrentIndex(m_keyProxy->mapFromSource(src));
    m_inspector->setContext(m_currentRun, key, m_cursorStep);
    m_exportPlotAction->setEnabled(true);
    m_exportHeatmapAction->setEnabled(true);
}

void MainWindow::onStepSelected(std::int64_t gstep) {
    m_cursorStep = gstep;
    auto* source = qobject_cast<KeyView*>(sender());
    const RunSnapshot run = source ? source->run() : m_currentRun;
    for (auto* v : keyViews())
        if (v->run() == run) v->setStepCursor(gstep);
    if (auto* v = currentKeyView()) m_inspector->setContext(v->run(), v->key(), gstep);
    m_statusLabel->setText(tr("Step cursor at gstep %1").arg(gstep));
}

bool MainWindow::isBusy() const {
    if (m_loadJobs->isRunning() || m_openJobs->isRunning() || !m_pendingOpens.isEmpty() ||
        m_completeJobs->isRunning() || m_keyJobs->isRunning() || m_demoJobs->isRunning() ||
        (m_sampleJobs && m_sampleJobs->isRunning()) || m_live->isBusy())
        return true;
    if (m_pending || m_showingLoaded > 0) return true;
    if (compareOrExportBusy()) return true;
    for (auto* page : timelinePages())
        if (page->isBusy()) return true;
    for (auto* v : keyViews())
        if (v->isBusy()) return true;
    return false;
}

void MainWindow::updateProgress() {
    auto ctx = m_loadJobs->current();
    if (!ctx) ctx = m_openJobs->current();
    if (!ctx) ctx = m_keyJobs->current();
    if (!ctx) ctx = m_completeJobs->current();
    if (!ctx) ctx = m_demoJobs->current();
    if (!ctx)
        for (auto* page : timelinePages())
            if ((ctx = page->currentJob())) break;
    if (!ctx) return;
    m_progress->setProgress(ctx->done.load(), ctx->total.load(), ctx->stage());
}

QString MainWindow::demoDirectory() {
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) +
           QStringLiteral("/demo");
}

void MainWindow::openDemoRun() {
    withDemoRun([this](const QString& dir) { openPaths({dir}); });
}

void MainWindow::withDemoRun(std::function<void(const QString& dir)> then) {
    const QString dir = demoDirectory();
    if (QDir(dir).exists() && !QDir(dir).isEmpty()) {
        then(dir);
        return;
    }
    if (m_demoJobs->isRunning()) return;
    // Written next to its final place and renamed when complete, so an interrupted write never
    // leaves a half demo to be opened later.
    const QString partial = dir + QStringLiteral(".partial");
    m_statusLabel->setText(tr("Writing the demo run..."));
    m_demoJobs->startJob(
        [partial](JobContext& ctx) -> Status {
            QDir(partial).removeRecursively();
            demo::DemoOptions options;
            options.dir = partial.toStdString();
            auto written = demo::writeDemoRun(options, ctx.callback());
            if (!written) QDir(partial).removeRecursively();
            return written.status();
        },
        [this, dir, partial, then](const Status& st) {
            if (!st) {
                m_diagModel->addMessage(codes::kDemoFailed, QString::fromStdString(st.toString()));
                m_statusLabel->setText(tr("Writing the demo run failed"));
                return;
            }
            QDir(dir).removeRecursively();
            QDir().rename(partial, dir);
            then(dir);
        });
}

QString MainWindow::sampleTimelinePath() {
    return demoDirectory() + QStringLiteral("-timeline.json");
}

void MainWindow::openSampleTimeline() {
    const QString file = sampleTimelinePath();
    if (QFileInfo(file).isFile()) {
        openPaths({file});
        return;
    }
    withDemoRun([this, file](const QString& dir) {
        if (!m_sampleJobs) {
            m_sampleJobs = new JobTracker(this);
            connect(m_sampleJobs, &JobTracker::runningChanged, this,
                    &MainWindow::updateBusyIndicators);
        }
        m_statusLabel->setText(tr("Writing the sample timeline (the demo run's steps)..."));
        m_sampleJobs->startJob(
            [dir = dir.toStdString(), out = file.toStdString()](JobContext& ctx) {
                return writeStepTimeline(dir, out, ctx.callback());
            },
            [this, file](Status st) {
                if (!st.isOk()) {
                    m_diagModel->addMessage(codes::kSampleFailed,
                                            QString::fromStdString(st.toString()));
                    m_statusLabel->setText(tr("Writing the sample timeline failed"));
                    showDiagnostics();
                    return;
                }
                openPaths({file});
            });
    });
}

void MainWindow::addRecent(const QStringList& paths) {
    QList<QVariant> recent = m_settings->value(QStringLiteral("recent")).toList();
    const QString joined = paths.join(QLatin1Char('\n'));
    recent.removeIf(
        [&](const QVariant& v) { return v.toStringList().join(QLatin1Char('\n')) == joined; });
    recent.prepend(paths);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    m_settings->setValue(QStringLiteral("recent"), recent);
    m_settings->sync();
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    m_recentMenu->clear();
    m_recentList->clear();
    const QList<QVariant> recent = m_settings->value(QStringLiteral("recent")).toList();
    for (const QVariant& v : recent) {
        const QStringList paths = v.toStringList();
        const QString text = paths.join(QStringLiteral(", "));
        m_recentMenu->addAction(text, this, [this, paths] { openPaths(paths); });
        auto* item = new QListWidgetItem(text, m_recentList);
        item->setData(Qt::UserRole, paths);
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::exportPlot(bool heatmap) {
    KeyView* v = currentKeyView();
    if (!v) return;
    const QString dir =
        m_settings->value(QStringLiteral("export/dir"), QDir::homePath()).toString();
    QString name = v->key();
    name.replace(QLatin1Char('/'), QLatin1Char('_'));
    const QString path = QFileDialog::getSaveFileName(
        this, heatmap ? tr("Export histogram heatmap") : tr("Export statistics plot"),
        dir + QLatin1Char('/') + name +
            (heatmap ? QStringLiteral("_hist.png") : QStringLiteral(".png")),
        tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return;
    m_settings->setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    QString error;
    if (exportCurrentPlot(path, heatmap, &error))
        m_statusLabel->setText(tr("Exported %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

bool MainWindow::exportCurrentPlot(const QString& path, bool heatmap, QString* error) {
    KeyView* v = currentKeyView();
    if (!v) {
        if (error) *error = tr("no plot tab is open");
        return false;
    }
    QCustomPlot* plot = heatmap ? v->histogramView()->heatmapPlot() : v->statPlot()->plot();
    const QString title = heatmap ? tr("%1 - %2, rank %3")
                                        .arg(v->key(), runName(v->run()))
                                        .arg(v->histogramView()->rank())
                                  : tr("%1 - %2").arg(v->key(), runName(v->run()));
    return xt::widgets::exportPlot(plot, path, 0, 0, error, title, exportsNotes());
}

void MainWindow::updateTitle() {
    setWindowTitle(m_currentRun ? QStringLiteral("%1 - xtview").arg(runName(m_currentRun))
                                : QStringLiteral("xtview"));
}

void MainWindow::saveSettings() {
    m_settings->setValue(QStringLiteral("window/geometry"), saveGeometry());
    storeCurrentLayout();
    m_settings->sync();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    saveSettings();
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    QStringList paths;
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) paths << u.toLocalFile();
    if (!paths.isEmpty()) {
        openPaths(paths);
        e->acceptProposedAction();
    }
}

// ---- Timeline tabs ----

void MainWindow::createTimelineActions() {
    QMenu* file = menuBar()->actions().first()->menu();
    QAction* before = file->actions().size() > 2 ? file->actions()[2] : nullptr;
    auto* open = new QAction(tr("Open &Timeline..."), this);
    open->setObjectName(QStringLiteral("openTimeline"));
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(open, &QAction::triggered, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(
            this, tr("Open timeline"), {},
            tr("Timelines (*.json *.json.gz *.gz *.zip *.pb);;All files (*)"));
        if (!files.isEmpty()) {
            openTimelineFiles(files);
            addRecent(files);
        }
    });
    file->insertAction(before, open);
    m_viewMenu->addSeparator();
    QAction* steps =
        m_viewMenu->addAction(tr("Show &Step Timeline"), this, &MainWindow::showStepTimeline);
    steps->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    steps->setToolTip(tr("The current run's steps per rank as a timeline layer (added to the "
                         "current timeline tab)"));
    QAction* flows = m_viewMenu->addAction(tr("Chrome-&Compatible Flows"));
    flows->setObjectName(QStringLiteral("chromeCompatibleFlows"));
    flows->setCheckable(true);
    flows->setChecked(m_settings->value(kChromeFlowsKey, false).toBool());
    flows->setToolTip(tr("Timelines opened from now on drop flow arrows that point back in time, "
                         "as chrome://tracing does, so that flow counts compare with it"));
    connect(flows, &QAction::toggled, this, [this](bool on) {
        m_settings->setValue(kChromeFlowsKey, on);
        m_settings->sync();
    });
}

TimelinePage* MainWindow::currentTimelinePage() const {
    return qobject_cast<TimelinePage*>(m_tabs->currentWidget());
}

namespace {
template <class Page> QList<Page*> tabsOf(const QTabWidget* tabs) {
    QList<Page*> out;
    for (int i = 0; i < tabs->count(); ++i)
        if (auto* page = qobject_cast<Page*>(tabs->widget(i))) out << page;
    return out;
}
} // namespace

QList<KeyView*> MainWindow::keyViews() const {
    return tabsOf<KeyView>(m_tabs);
}

QList<TimelinePage*> MainWindow::timelinePages() const {
    return tabsOf<TimelinePage>(m_tabs);
}

QList<CompareView*> MainWindow::compareViews() const {
    return tabsOf<CompareView>(m_tabs);
}

TimelinePage* MainWindow::newTimelinePage(const QString& title) {
    auto* page = new TimelinePage(m_tabs);
    page->setChromeCompatibleFlows(m_settings->value(kChromeFlowsKey, false).toBool());
    connect(page, &TimelinePage::busyChanged, this, [this, page](bool busy) {
        updateBusyIndicators();
        if (!busy) {
            m_loadedOnce = true;
            if (page->lastError().isEmpty())
                m_statusLabel->setText(
                    tr("Timeline: %n layer(s)", nullptr, int(page->view()->layers().size())));
            emit loadFinished();
        }
    });
    connect(page->view(), &TimelineView::layersChanged, this, &MainWindow::updateNotes);
    connect(page->view(), &TimelineView::noteRequested, this, &MainWindow::addNoteDialog);
    connect(page, &TimelinePage::loadFailed, this, [this](const QString& message) {
        m_diagModel->addMessage(codes::kTimelineOpenFailed, message);
        m_statusLabel->setText(tr("Could not open timeline: %1").arg(message));
    });
    const int i = m_tabs->addTab(page, title);
    m_tabs->setTabToolTip(i, title);
    m_center->setCurrentIndex(1);
    m_tabs->setCurrentIndex(i);
    return page;
}

TimelinePage* MainWindow::openTimelineFiles(const QStringList& files) {
    if (files.isEmpty()) return nullptr;
    QStringList names;
    for (const QString& f : files)
        names << QFileInfo(f).fileName();
    TimelinePage* page = newTimelinePage(names.join(QStringLiteral(" + ")));
    m_statusLabel->setText(tr("Loading timeline %1...").arg(names.join(QStringLiteral(", "))));
    for (const QString& f : files)
        page->loadFile(QFileInfo(f).absoluteFilePath());
    return page;
}

void MainWindow::showStepTimeline() {
    if (!m_currentRun) {
        m_statusLabel->setText(tr("Open an XDL run to show its step timeline"));
        return;
    }
    if (stillIndexing(tr("The step timeline"))) return;
    TimelinePage* page = currentTimelinePage();
    const RunSnapshot run = m_currentRun;
    if (!page) page = newTimelinePage(tr("Steps: %1").arg(runName(run)));
    const QString title = tr("%1 steps").arg(runIdentity(*run));
    page->loadLayer(
        [run, title](const ProgressCallback& cb) {
            auto layer = xdlStepLayer(*run->reader, cb);
            if (layer) layer->title = title; // the URL of a remote run, not its mirror
            return layer;
        },
        tr("steps of %1").arg(runName(run)));
}

void MainWindow::updateBusyIndicators() {
    bool running = m_loadJobs->isRunning() || m_openJobs->isRunning() ||
                   m_completeJobs->isRunning() || m_keyJobs->isRunning() ||
                   m_demoJobs->isRunning() || (m_sampleJobs && m_sampleJobs->isRunning());
    for (auto* page : timelinePages())
        running = running || page->isBusy();
    m_progress->setVisible(running);
    if (!running) m_progress->reset();
    m_cancel->setVisible(running);
    if (running) {
        if (!m_progressTimer.isActive()) m_progressTimer.start();
    } else {
        m_progressTimer.stop();
    }
}

} // namespace xt::widgets
