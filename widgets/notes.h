#pragma once
// Notes: a text and a colour on a step, a step range or a time range of a run or a timeline,
// kept in one NoteStore per window and drawn in every view of their target (plots, heatmaps,
// compare panels, the timeline). A note's target is runIdentity() of a run (its URL or its
// label) or timelineIdentity() of a timeline tab, so notes survive reloads and sessions.

#include "core/analysis/key_stats.h"

#include <QColor>
#include <QJsonArray>
#include <QObject>
#include <QString>
#include <optional>
#include <vector>

class QCPAbstractItem;
class QCPAxisRect;
class QCustomPlot;

namespace xt::widgets {

struct Note {
    enum class Kind { Step, StepRange, TimeRange };
    int id = 0; // given by NoteStore::add
    QString target;
    Kind kind = Kind::Step;
    // Global steps; or times: ms since the epoch on a run, ns of the timeline's axis on a
    // timeline. end == begin for a step.
    qint64 begin = 0, end = 0;
    QString text;
    QColor colour = QColor(0xe0, 0x8a, 0x00);
    bool onTimeline = false; // the target is a timeline tab (times in ns), else a run
    bool operator==(const Note&) const = default;
};

// "step 42", "steps 10..20", "time 12:00:01.250..12:00:03 UTC" (runs) or "1.5 ms..2 ms" from
// `timeOrigin` (timelines: the trace's first event).
QString describeNoteRange(const Note& note, bool timeline, qint64 timeOrigin = 0);
const char* noteKindName(Note::Kind kind); // "step", "steps", "time"
std::optional<Note::Kind> parseNoteKind(const QString& name);

class NoteStore : public QObject {
    Q_OBJECT
public:
    explicit NoteStore(QObject* parent = nullptr) : QObject(parent) {}

    // Adds `note` with a new id (returned).
    int add(Note note);
    // Replaces the note with note.id; false when there is none.
    bool update(const Note& note);
    bool remove(int id);
    void clear();
    // Replaces every note (ids are given anew).
    void setNotes(const std::vector<Note>& notes);
    const std::vector<Note>& all() const { return m_notes; }
    std::vector<Note> notesFor(const QString& target) const;
    const Note* find(int id) const;

    // [{"target":..., "on":"run"|"timeline", "kind":"step"|"steps"|"time", "begin":n,
    //   "end":n, "text":s, "colour":"#rrggbb"}], documented in docs/SESSIONS.md.
    QJsonArray toJson() const;
    // Notes from toJson(); entries that do not parse are skipped and counted in `skipped`.
    static std::vector<Note> fromJson(const QJsonArray& array, int* skipped = nullptr);

signals:
    void changed();

private:
    std::vector<Note> m_notes;
    int m_nextId = 1;
};

// The gstep span of `note` on a run whose records of one key are `series` (time ranges map to
// the first record at or after each end); nullopt when the run has no record there.
std::optional<std::pair<std::int64_t, std::int64_t>>
noteSteps(const Note& note, const std::vector<const analysis::KeySeries*>& series);

// Draws a note over [x0, x1] of `rect` (a line when x0 == x1, else a band) with its text at the
// top, below the plottables (over them for heatmaps, which would hide it); the items are
// appended to `items`.
void addNoteItems(QCustomPlot* plot, QCPAxisRect* rect, double x0, double x1, const Note& note,
                  std::vector<QCPAbstractItem*>& items, bool belowData = true);
// Whether `item` is part of a note drawn by addNoteItems (exports can leave them out).
bool isNoteItem(const QCPAbstractItem* item);
// Removes `items` from `plot` and clears the vector.
void removeItems(QCustomPlot* plot, std::vector<QCPAbstractItem*>& items);

} // namespace xt::widgets
