// MainWindow: cursors A and B, notes and plot options from the menus and the keyboard. The Plot
// menu switches log x, log y, aggregated ranks and the ranks x steps heatmap of the current plot;
// the Measure menu places, clears and copies the cursors of the current plot or timeline and
// adds notes, which the Notes dock lists (double click goes there, Delete removes, the context
// menu edits). Notes are drawn in every tab of their run or timeline.
#include "widgets/main_window.h"

#include "widgets/note_dialog.h"
#include "widgets/timeline_page.h"
#include "widgets/trace_time_format.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPixmap>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTreeWidget>

namespace xt::widgets {

namespace {

const QString kExportNotesKey = QStringLiteral("export/notes");
constexpr int kNoteIdRole = Qt::UserRole;

// The timestamp of the first record of `gstep` of `key` in `run`.
std::optional<qint64> timestampOf(const LoadedRun& run, const QString& key, std::int64_t gstep) {
    for (const auto* s : run.seriesOf(key.toStdString()))
        for (const auto& r : s->records)
            if (r.gstep == gstep) return r.timestamp;
    return std::nullopt;
}

} // namespace

void MainWindow::createNotesDock() {
    m_notesTree = new QTreeWidget(this);
    m_notesTree->setObjectName(QStringLiteral("notesTree"));
    m_notesTree->setHeaderLabels({tr("Where"), tr("Marks"), tr("Note")});
    m_notesTree->setRootIsDecorated(false);
    m_notesTree->setUniformRowHeights(true);
    m_notesTree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_notesTree->setContextMenuPolicy(Qt::CustomContextMenu);
    auto idOf = [](QTreeWidgetItem* item) { return item ? item->data(0, kNoteIdRole).toInt() : 0; };
    connect(m_notesTree, &QTreeWidget::itemActivated, this,
            [this, idOf](QTreeWidgetItem* item) { goToNote(idOf(item)); });
    auto* remove = new QAction(tr("&Delete Note"), m_notesTree);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    connect(remove, &QAction::triggered, this,
            [this, idOf] { m_notes->remove(idOf(m_notesTree->currentItem())); });
    m_notesTree->addAction(remove);
    connect(m_notesTree, &QWidget::customContextMenuRequested, this,
            [this, idOf, remove](QPoint p) {
                const int id = idOf(m_notesTree->itemAt(p));
                if (!id) return;
                QMenu menu(this);
                menu.addAction(tr("&Go to Note"), this, [this, id] { goToNote(id); });
                menu.addAction(tr("&Edit Note..."), this, [this, id] { editNote(id); });
                menu.addAction(remove);
                menu.exec(m_notesTree->viewport()->mapToGlobal(p));
            });
    auto* dock = new QDockWidget(tr("Notes"), this);
    dock->setObjectName(QStringLiteral("NotesDock"));
    dock->setWidget(m_notesTree);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
}

void MainWindow::createDesktopActions() {
    QAction* help = menuBar()->actions().last();
    auto withPlot = [this](auto fn) {
        return [this, fn] {
            if (KeyView* v = currentKeyView()) fn(v);
        };
    };
    auto toggle = [this, withPlot](QMenu* menu, const QString& text, QKeySequence key,
                                   bool StatPlotOptions::*field) {
        QAction* a = menu->addAction(text, this, withPlot([field](KeyView* v) {
                                         StatPlotOptions o = v->statPlot()->options();
                                         o.*field = !(o.*field);
                                         v->setOptions(o);
                                     }));
        a->setShortcut(key);
        a->setEnabled(false);
        m_plotActions << a;
    };
    QMenu* plot = new QMenu(tr("&Plot"), this);
    menuBar()->insertMenu(help, plot);
    toggle(plot, tr("Log &X Axis"), QKeySequence(Qt::CTRL | Qt::Key_L), &StatPlotOptions::logX);
    toggle(plot, tr("Log &Y Axis"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
           &StatPlotOptions::logY);
    toggle(plot, tr("&Aggregate Ranks (median, range, outliers)"),
           QKeySequence(Qt::CTRL | Qt::Key_G), &StatPlotOptions::aggregateRanks);
    QAction* ranks =
        plot->addAction(tr("Ranks \u00d7 &Steps Heatmap"), this, withPlot([](KeyView* v) {
                            QTabWidget* t = v->lowerTabs();
                            t->setCurrentIndex(t->currentIndex() == 1 ? 0 : 1);
                        }));
    ranks->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    ranks->setEnabled(false);
    m_plotActions << ranks;

    QMenu* measure = new QMenu(tr("&Measure"), this);
    menuBar()->insertMenu(help, measure);
    measure->addAction(tr("Set Cursor &A at the Mouse"), this, [this] { placeCursor(Cursor::A); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    measure->addAction(tr("Set Cursor &B at the Mouse"), this, [this] { placeCursor(Cursor::B); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    measure->addAction(tr("&Clear Cursors"), this, &MainWindow::clearCursors)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    measure->addAction(tr("C&opy Cursor Values"), this, &MainWindow::copyCursors)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    measure->addSeparator();
    measure->addAction(tr("Add &Note..."), this, &MainWindow::addNoteDialog)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    measure->addAction(findChild<QDockWidget*>(QStringLiteral("NotesDock"))->toggleViewAction());
    m_exportNotesAction = measure->addAction(tr("Include Notes in &Exported Images"));
    m_exportNotesAction->setCheckable(true);
    m_exportNotesAction->setChecked(m_settings->value(kExportNotesKey, true).toBool());
    connect(m_exportNotesAction, &QAction::toggled, this, [this](bool on) {
        m_settings->setValue(kExportNotesKey, on);
        m_settings->sync();
    });
}

bool MainWindow::exportsNotes() const {
    return m_exportNotesAction && m_exportNotesAction->isChecked();
}

void MainWindow::placeCursor(Cursor c) {
    if (KeyView* v = currentKeyView())
        v->statPlot()->placeCursor(c);
    else if (TimelinePage* page = currentTimelinePage())
        page->view()->placeCursor(c);
}

void MainWindow::clearCursors() {
    if (KeyView* v = currentKeyView())
        v->statPlot()->clearCursors();
    else if (TimelinePage* page = currentTimelinePage())
        page->view()->clearCursors();
}

void MainWindow::copyCursors() {
    QString text;
    if (KeyView* v = currentKeyView()) {
        text = v->statPlot()->cursorText();
        v->statPlot()->copyCursors();
    } else if (TimelinePage* page = currentTimelinePage()) {
        text = page->view()->cursorText();
        page->view()->copyCursors();
    }
    m_statusLabel->setText(text.isEmpty() ? tr("No cursor to copy: Ctrl+1 and Ctrl+2 set them")
                                          : tr("Copied the cursor values"));
}

void MainWindow::addNoteDialog() {
    Note base;
    std::vector<NoteDialog::Place> places;
    using Kind = Note::Kind;
    if (KeyView* v = currentKeyView(); v && v->run()) {
        base.target = runIdentity(*v->run());
        StatPlot* p = v->statPlot();
        const auto a = p->cursorAt(Cursor::A), b = p->cursorAt(Cursor::B);
        if (const auto g = p->stepCursor())
            places.push_back({tr("step %1 (the step cursor)").arg(*g), Kind::Step, *g, *g});
        if (a && b) {
            places.push_back(
                {tr("steps %1..%2 (cursors A..B)").arg(std::min(*a, *b)).arg(std::max(*a, *b)),
                 Kind::StepRange, *a, *b});
            const auto ta = timestampOf(*v->run(), v->key(), *a);
            const auto tb = timestampOf(*v->run(), v->key(), *b);
            if (ta && tb)
                places.push_back({tr("the time of steps %1..%2 (cursors A..B)")
                                      .arg(std::min(*a, *b))
                                      .arg(std::max(*a, *b)),
                                  Kind::TimeRange, *ta, *tb});
        }
        for (const auto& [c, name] : {std::pair{a, "A"}, std::pair{b, "B"}})
            if (c)
                places.push_back({tr("step %1 (cursor %2)").arg(*c).arg(QLatin1String(name)),
                                  Kind::Step, *c, *c});
        if (places.empty()) {
            m_statusLabel->setText(tr("Click the plot to put the step cursor where the note "
                                      "goes, or set cursors A and B (Ctrl+1, Ctrl+2)"));
            return;
        }
    } else if (TimelinePage* page = currentTimelinePage();
               page && !page->view()->layers().empty()) {
        TimelineView* tv = page->view();
        base.target = page->identity();
        base.onTimeline = true;
        const qint64 origin = tv->traceBegin();
        auto span = [&](qint64 t0, qint64 t1) { return formatTraceRange(t0, t1, origin); };
        if (const auto r = tv->selectedRange())
            places.push_back({tr("the selected range: %1").arg(span(r->first, r->second)),
                              Kind::TimeRange, r->first, r->second});
        const auto a = tv->cursorAt(Cursor::A), b = tv->cursorAt(Cursor::B);
        if (a && b)
            places.push_back({tr("cursors A..B: %1").arg(span(std::min(*a, *b), std::max(*a, *b))),
                              Kind::TimeRange, *a, *b});
        for (const auto& [c, name] : {std::pair{a, "A"}, std::pair{b, "B"}})
            if (c)
                places.push_back({tr("cursor %1 at %2")
                                      .arg(QLatin1String(name))
                                      .arg(formatTraceDuration(double(*c - origin))),
                                  Kind::TimeRange, *c, *c});
        const qint64 mid = tv->viewStart() + (tv->viewEnd() - tv->viewStart()) / 2;
        places.push_back(
            {tr("the middle of the view at %1").arg(formatTraceDuration(double(mid - origin))),
             Kind::TimeRange, mid, mid});
    } else {
        m_statusLabel->setText(tr("Notes go on a plot or a timeline: open one first"));
        return;
    }
    NoteDialog dialog(base, std::move(places), this);
    if (dialog.exec() != QDialog::Accepted) return;
    m_notes->add(dialog.note());
    m_statusLabel->setText(tr("Note added"));
}

void MainWindow::editNote(int id) {
    const Note* n = m_notes->find(id);
    if (!n) return;
    const Note note = *n;
    NoteDialog dialog(
        note, {{describeNoteRange(note, note.onTimeline), note.kind, note.begin, note.end}}, this);
    if (dialog.exec() == QDialog::Accepted) m_notes->update(dialog.note());
}

void MainWindow::updateNotes() {
    for (int i = 0; i < m_tabs->count(); ++i) {
        QWidget* w = m_tabs->widget(i);
        if (auto* v = qobject_cast<KeyView*>(w); v && v->run())
            v->setNotes(m_notes->notesFor(runIdentity(*v->run())));
        else if (auto* page = qobject_cast<TimelinePage*>(w))
            page->view()->setNotes(m_notes->notesFor(page->identity()));
        else if (auto* c = qobject_cast<CompareView*>(w);
                 c && c->request().a.run && c->request().b.run) {
            const QString a = runIdentity(*c->request().a.run);
            const QString b = runIdentity(*c->request().b.run);
            // Two ranks of one run: its notes once.
            c->setNotes(m_notes->notesFor(a), a == b ? std::vector<Note>{} : m_notes->notesFor(b));
        }
    }
}

QString MainWindow::noteTargetName(const QString& target) const {
    for (const auto& e : m_runModel->entries())
        if (runIdentity(*e.run) == target) return e.name();
    const QString file = QFileInfo(target).fileName();
    return file.isEmpty() ? target : file;
}

void MainWindow::updateNotesDock() {
    if (!m_notesTree) return;
    m_notesTree->clear();
    for (const Note& n : m_notes->all()) {
        qint64 origin = 0;
        for (auto* page : timelinePages())
            if (n.onTimeline && page->identity() == n.target) origin = page->view()->traceBegin();
        auto* item = new QTreeWidgetItem(
            m_notesTree, {noteTargetName(n.target), describeNoteRange(n, n.onTimeline, origin),
                          n.text.isEmpty() ? tr("(no text)") : n.text});
        QPixmap swatch(12, 12);
        swatch.fill(n.colour);
        item->setIcon(2, QIcon(swatch));
        item->setToolTip(0, n.target);
        item->setData(0, kNoteIdRole, n.id);
    }
    auto* dock = findChild<QDockWidget*>(QStringLiteral("NotesDock"));
    dock->setWindowTitle(m_notes->all().empty() ? tr("Notes")
                                                : tr("Notes (%1)").arg(m_notes->all().size()));
}

void MainWindow::goToNote(int id) {
    const Note* n = m_notes->find(id);
    if (!n) return;
    m_center->setCurrentIndex(1);
    for (int i = 0; i < m_tabs->count(); ++i) {
        QWidget* w = m_tabs->widget(i);
        if (auto* page = qobject_cast<TimelinePage*>(w);
            page && n->onTimeline && page->identity() == n->target) {
            m_tabs->setCurrentIndex(i);
            const qint64 pad = std::max<qint64>((n->end - n->begin) / 4, 1000000);
            page->view()->setViewWindow(n->begin - pad, n->end + pad);
            return;
        }
        auto* v = qobject_cast<KeyView*>(w);
        if (!v || !v->run() || n->onTimeline || runIdentity(*v->run()) != n->target) continue;
        m_tabs->setCurrentIndex(i);
        const auto steps = noteSteps(*n, v->run()->seriesOf(v->key().toStdString()));
        if (steps) {
            m_cursorStep = steps->first;
            for (int j = 0; j < m_tabs->count(); ++j)
                if (auto* other = qobject_cast<KeyView*>(m_tabs->widget(j));
                    other && other->run() == v->run())
                    other->setStepCursor(steps->first);
            m_inspector->setContext(v->run(), v->key(), m_cursorStep);
        }
        return;
    }
    m_statusLabel->setText(tr("Open a tab of %1 to see this note").arg(noteTargetName(n->target)));
}

} // namespace xt::widgets
