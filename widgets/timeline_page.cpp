#include "widgets/timeline_page.h"

#include "widgets/timeline_analysis.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace xt::widgets {

TimelinePage::TimelinePage(QWidget* parent)
    : QWidget(parent), m_view(new TimelineView(this)), m_details(new SliceDetails(this)),
      m_jobs(new JobTracker(this)), m_progressTimer(new QTimer(this)),
      m_searchTimer(new QTimer(this)) {
    setObjectName(QStringLiteral("TimelinePage"));
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);

    // Toolbar.
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(
        tr("Search slices  (/ or Ctrl+F; Enter next, Shift+Enter previous)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(200);
    m_search->setMaximumWidth(420);
    m_hitLabel = new QLabel(this);
    m_hitLabel->setObjectName(QStringLiteral("searchStatus"));
    m_hitLabel->setMinimumWidth(70);
    auto button = [&](const QString& text, const QString& tip, auto fn) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        connect(b, &QToolButton::clicked, this, fn);
        bar->addWidget(b);
        return b;
    };
    bar->addWidget(m_search, 1);
    bar->addWidget(m_hitLabel);
    button(QStringLiteral("\u25b2"), tr("Previous hit (Shift+Enter)"), [this] {
        m_view->selectPreviousHit();
        updateHits();
    });
    button(QStringLiteral("\u25bc"), tr("Next hit (Enter)"), [this] {
        m_view->selectNextHit();
        updateHits();
    });
    bar->addSpacing(12);
    button(tr("Fit all"), tr("Show the whole trace (0)"), [this] { m_view->fitAll(); });
    button(tr("Fit selection"), tr("Zoom to the selected slice or range (F)"),
           [this] { m_view->fitSelection(); });
    button(tr("Zoom in"), tr("Zoom in (W, Ctrl+wheel)"), [this] { m_view->zoomBy(1.5); });
    button(tr("Zoom out"), tr("Zoom out (S, Ctrl+wheel)"), [this] { m_view->zoomBy(1 / 1.5); });
    bar->addSpacing(12);
    m_cursorLabel = new QLabel(this);
    m_cursorLabel->setObjectName(QStringLiteral("cursorSummary"));
    m_cursorLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_cursorLabel->setMinimumWidth(80);
    m_cursorLabel->setToolTip(tr("Cursors A and B (Ctrl+1, Ctrl+2 at the mouse; Ctrl+Shift+C "
                                 "copies their times, steps and counter values)"));
    bar->addWidget(m_cursorLabel, 1);
    bar->addSpacing(12);
    // The keyboard help takes the room that is left (elided), so that the page stays narrow
    // enough to share the window with the docks of the other kinds of tab.
    m_help = new QLabel(this);
    m_help->setToolTip(tr("W/S zoom, A/D pan, drag pans, Shift+drag selects a range"));
    m_help->setStyleSheet(QStringLiteral("color: gray"));
    m_help->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_help->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_help->installEventFilter(this);
    bar->addWidget(m_help, 1);
    v->addLayout(bar);

    // Loading placeholder, then view + details over the panel area.
    m_stack = new QStackedWidget(this);
    auto* loading = new QWidget(m_stack);
    auto* lv = new QVBoxLayout(loading);
    m_loadLabel = new QLabel(tr("Loading..."), loading);
    m_loadProgress = new FlatProgressBar(loading);
    m_loadProgress->setMaximumWidth(400);
    auto* cancelButton = new QPushButton(tr("Cancel"), loading);
    connect(cancelButton, &QPushButton::clicked, this, &TimelinePage::cancel);
    lv->addStretch(1);
    lv->addWidget(m_loadLabel, 0, Qt::AlignHCenter);
    lv->addWidget(m_loadProgress, 0, Qt::AlignHCenter);
    lv->addWidget(cancelButton, 0, Qt::AlignHCenter);
    lv->addStretch(1);
    m_stack->addWidget(loading);

    auto* hsplit = new QSplitter(Qt::Horizontal);
    hsplit->addWidget(m_view);
    hsplit->addWidget(m_details);
    hsplit->setStretchFactor(0, 4);
    hsplit->setStretchFactor(1, 1);
    hsplit->setSizes({900, 280});
    m_vsplit = new QSplitter(Qt::Vertical);
    m_vsplit->addWidget(hsplit);
    m_panels = new QTabWidget(m_vsplit);
    m_panels->setDocumentMode(true);
    m_panels->hide();
    m_vsplit->addWidget(m_panels);
    m_vsplit->setStretchFactor(0, 3);
    m_vsplit->setStretchFactor(1, 1);
    m_stack->addWidget(m_vsplit);
    v->addWidget(m_stack, 1);
    m_analysis = new TimelineAnalysis(this);

    connect(m_search, &QLineEdit::textChanged, this, [this] { runSearch(); });
    connect(m_view, &TimelineView::searchStateChanged, this, &TimelinePage::updateHits);
    m_searchTimer->setInterval(100);
    connect(m_searchTimer, &QTimer::timeout, this, &TimelinePage::updateHits);
    connect(m_view, &TimelineView::indexingChanged, this, &TimelinePage::updateBusy);
    m_search->installEventFilter(this); // Enter / Shift+Enter step through the hits
    connect(m_view, &TimelineView::sliceSelected, this, [this](int layer, quint32 slice) {
        m_details->setSlice(m_view->layers()[std::size_t(layer)], layer, slice);
    });
    connect(m_view, &TimelineView::selectionCleared, m_details, &SliceDetails::clear);
    // The keyboard help gives its room to the cursors' summary while there is one.
    connect(m_view, &TimelineView::cursorsChanged, this, [this] {
        const QString summary = m_view->cursorSummary();
        m_cursorLabel->setText(summary);
        m_help->setVisible(summary.isEmpty());
    });
    connect(m_details, &SliceDetails::jumpToSlice, this,
            [this](int layer, quint32 slice) { m_view->selectSlice(layer, slice, true); });

    m_progressTimer->setInterval(50);
    connect(m_progressTimer, &QTimer::timeout, this, [this] {
        auto ctx = m_jobs->current();
        if (!ctx) return;
        showProgress(m_loadProgress, ctx->done.load(), ctx->total.load());
        m_loadLabel->setText(tr("Loading %1: %2").arg(m_current, ctx->stage()));
    });
}

TimelinePage::~TimelinePage() {
    m_jobs->cancel();
}

QString TimelinePage::identity() const {
    for (const QString& p : m_paths)
        if (!p.isEmpty()) return p;
    return m_view->layers().empty() ? QString() : m_view->layers().front().title;
}

void TimelinePage::addPanel(QWidget* panel, const QString& title) {
    m_panels->addTab(panel, title);
    m_panels->show();
}

void TimelinePage::setPanelShare(double fraction) {
    const int total = std::max(m_vsplit->height(), 400);
    const int panels = int(total * std::clamp(fraction, 0.0, 1.0));
    m_vsplit->setSizes({total - panels, panels});
}

void TimelinePage::loadFile(const QString& path) {
    const std::string p = path.toStdString();
    m_paths << path;
    timeline::ImportOptions options;
    options.chromeCompatibleFlows = m_chromeCompatibleFlows;
    loadLayer(
        [p, options](const ProgressCallback& cb) { return loadTimelineLayer(p, cb, options); },
        path);
}

void TimelinePage::loadLayer(LayerJob load, const QString& what) {
    loadLayers(
        [load = std::move(load)](const ProgressCallback& cb) -> Result<std::vector<TimelineLayer>> {
            auto layer = load(cb);
            if (!layer) return layer.status();
            std::vector<TimelineLayer> layers;
            layers.push_back(std::move(layer.value()));
            return layers;
        },
        what);
}

void TimelinePage::loadLayers(LayersJob load, const QString& what) {
    m_queue.push_back({std::move(load), what});
    if (!m_jobs->isRunning()) startNext();
}

std::shared_ptr<JobContext> TimelinePage::currentJob() const {
    auto job = m_jobs->current();
    return job ? job : m_view->indexingJob();
}

void TimelinePage::updateBusy() {
    if (isBusy() == m_busy) return;
    m_busy = !m_busy;
    emit busyChanged(m_busy);
}

void TimelinePage::startNext() {
    if (m_queue.empty()) {
        m_progressTimer->stop();
        m_stack->setCurrentIndex(m_view->layers().empty() ? 0 : 1);
        updateBusy();
        return;
    }
    Pending next = std::move(m_queue.front());
    m_queue.erase(m_queue.begin());
    m_current = next.what;
    if (m_view->layers().empty()) m_stack->setCurrentIndex(0);
    m_loadLabel->setText(tr("Loading %1...").arg(m_current));
    m_loadProgress->setRange(0, 0);
    m_progressTimer->start();
    m_jobs->startJob([job = std::move(next.job)](JobContext& ctx) { return job(ctx.callback()); },
                     [this](Result<std::vector<TimelineLayer>> r) {
                         if (r) {
                             m_lastError.clear();
                             const int first = int(m_view->layers().size());
                             for (TimelineLayer& layer : r.value()) {
                                 const QString title = layer.title;
                                 m_view->addLayer(std::move(layer));
                                 emit layerLoaded(title);
                             }
                             if (!m_search->text().isEmpty()) runSearch();
                             emit layersLoaded(first, int(m_view->layers().size()) - first);
                         } else {
                             m_lastError = QStringLiteral("%1: %2").arg(
                                 m_current, QString::fromStdString(r.status().toString()));
                             m_loadLabel->setText(tr("Could not load %1").arg(m_lastError));
                             emit loadFailed(m_lastError);
                         }
                         startNext();
                     });
    updateBusy();
}

void TimelinePage::cancel() {
    m_queue.clear();
    if (m_jobs->isRunning()) {
        m_jobs->cancel();
        m_lastError = tr("loading cancelled");
        m_loadLabel->setText(tr("Loading cancelled"));
    }
    m_progressTimer->stop();
    updateBusy();
}

void TimelinePage::runSearch() {
    m_view->find(m_search->text());
    updateHits();
}

void TimelinePage::updateHits() {
    if (m_view->isSearching()) {
        const auto job = m_view->searchJob();
        const std::uint64_t done = job ? job->done.load() : 0, total = job ? job->total.load() : 0;
        m_hitLabel->setText(total ? tr("searching %1%").arg(done * 100 / total)
                                  : tr("searching..."));
        if (!m_searchTimer->isActive()) m_searchTimer->start();
        return;
    }
    m_searchTimer->stop();
    const int n = int(m_view->searchHits().size());
    if (m_search->text().isEmpty())
        m_hitLabel->clear();
    else if (!m_view->searchComplete())
        m_hitLabel->setText(tr("cancelled"));
    else if (n == 0)
        m_hitLabel->setText(tr("no match"));
    else
        m_hitLabel->setText(tr("%1 of %2").arg(m_view->currentHit() + 1).arg(n));
}

bool TimelinePage::eventFilter(QObject* watched, QEvent* e) {
    if (watched == m_help && e->type() == QEvent::Resize)
        m_help->setText(
            m_help->fontMetrics().elidedText(m_help->toolTip(), Qt::ElideRight, m_help->width()));
    if (watched == m_search && e->type() == QEvent::KeyPress) {
        auto* k = static_cast<QKeyEvent*>(e);
        if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
            if (k->modifiers() & Qt::ShiftModifier)
                m_view->selectPreviousHit();
            else
                m_view->selectNextHit();
            updateHits();
            return true;
        }
        if (k->key() == Qt::Key_Escape) {
            m_view->cancelSearch();
            m_view->setFocus();
            return true;
        }
    }
    return QWidget::eventFilter(watched, e);
}

void TimelinePage::keyPressEvent(QKeyEvent* e) {
    // Ctrl+F here when the page is on its own; in the main window its Find action does it.
    if (e->key() == Qt::Key_Slash || e->matches(QKeySequence::Find)) {
        m_search->setFocus();
        m_search->selectAll();
        e->accept();
        return;
    }
    QWidget::keyPressEvent(e);
}

} // namespace xt::widgets
