#include "widgets/notes.h"

#include "widgets/text_format.h"
#include "widgets/trace_time_format.h"

#include <QJsonObject>
#include <algorithm>
#include <qcustomplot.h>

namespace xt::widgets {

namespace {
constexpr const char* kKindNames[] = {"step", "steps", "time"};
// Set on every item of a drawn note.
constexpr const char* kNoteItemProperty = "xtNoteItem";
} // namespace

const char* noteKindName(Note::Kind kind) {
    return kKindNames[int(kind)];
}

std::optional<Note::Kind> parseNoteKind(const QString& name) {
    for (int i = 0; i < 3; ++i)
        if (name == QLatin1String(kKindNames[i])) return Note::Kind(i);
    return std::nullopt;
}

QString describeNoteRange(const Note& note, bool timeline, qint64 timeOrigin) {
    switch (note.kind) {
    case Note::Kind::Step:
        return QObject::tr("step %1").arg(note.begin);
    case Note::Kind::StepRange:
        return QObject::tr("steps %1..%2").arg(note.begin).arg(note.end);
    case Note::Kind::TimeRange:
        break;
    }
    if (timeline) {
        const QString a = formatTraceDuration(double(note.begin - timeOrigin));
        return note.end == note.begin ? a
                                      : QStringLiteral("%1..%2").arg(
                                            a, formatTraceDuration(double(note.end - timeOrigin)));
    }
    const QString a = formatTimestampMs(note.begin);
    return note.end == note.begin ? a
                                  : QStringLiteral("%1..%2").arg(a, formatTimestampMs(note.end));
}

int NoteStore::add(Note note) {
    note.id = m_nextId++;
    if (note.end < note.begin) std::swap(note.begin, note.end);
    m_notes.push_back(std::move(note));
    emit changed();
    return m_notes.back().id;
}

bool NoteStore::update(const Note& note) {
    for (Note& n : m_notes)
        if (n.id == note.id) {
            n = note;
            if (n.end < n.begin) std::swap(n.begin, n.end);
            emit changed();
            return true;
        }
    return false;
}

bool NoteStore::remove(int id) {
    const auto n = std::erase_if(m_notes, [id](const Note& note) { return note.id == id; });
    if (n) emit changed();
    return n > 0;
}

void NoteStore::clear() {
    if (m_notes.empty()) return;
    m_notes.clear();
    emit changed();
}

void NoteStore::setNotes(const std::vector<Note>& notes) {
    m_notes.clear();
    for (Note n : notes) {
        n.id = m_nextId++;
        m_notes.push_back(std::move(n));
    }
    emit changed();
}

std::vector<Note> NoteStore::notesFor(const QString& target) const {
    std::vector<Note> out;
    for (const Note& n : m_notes)
        if (n.target == target) out.push_back(n);
    return out;
}

const Note* NoteStore::find(int id) const {
    for (const Note& n : m_notes)
        if (n.id == id) return &n;
    return nullptr;
}

QJsonArray NoteStore::toJson() const {
    QJsonArray out;
    for (const Note& n : m_notes)
        out.append(QJsonObject{{QStringLiteral("target"), n.target},
                               {QStringLiteral("on"),
                                n.onTimeline ? QStringLiteral("timeline") : QStringLiteral("run")},
                               {QStringLiteral("kind"), QLatin1String(noteKindName(n.kind))},
                               {QStringLiteral("begin"), n.begin},
                               {QStringLiteral("end"), n.end},
                               {QStringLiteral("text"), n.text},
                               {QStringLiteral("colour"), n.colour.name()}});
    return out;
}

std::vector<Note> NoteStore::fromJson(const QJsonArray& array, int* skipped) {
    std::vector<Note> out;
    int bad = 0;
    for (const QJsonValue& v : array) {
        const QJsonObject o = v.toObject();
        const auto kind = parseNoteKind(o.value(QStringLiteral("kind")).toString());
        const QJsonValue begin = o.value(QStringLiteral("begin"));
        if (!kind || !begin.isDouble() || o.value(QStringLiteral("target")).toString().isEmpty()) {
            ++bad;
            continue;
        }
        Note n;
        n.target = o.value(QStringLiteral("target")).toString();
        n.onTimeline = o.value(QStringLiteral("on")).toString() == QLatin1String("timeline");
        n.kind = *kind;
        // Exact integers (nanoseconds since the epoch need 64 bits); else through a double.
        n.begin = begin.toInteger(qint64(begin.toDouble()));
        const QJsonValue end = o.value(QStringLiteral("end"));
        n.end = end.isDouble() ? end.toInteger(qint64(end.toDouble())) : n.begin;
        if (n.end < n.begin) std::swap(n.begin, n.end);
        n.text = o.value(QStringLiteral("text")).toString();
        const QColor c(o.value(QStringLiteral("colour")).toString());
        if (c.isValid()) n.colour = c;
        out.push_back(std::move(n));
    }
    if (skipped) *skipped = bad;
    return out;
}

std::optional<std::pair<std::int64_t, std::int64_t>>
noteSteps(const Note& note, const std::vector<const analysis::KeySeries*>& series) {
    if (note.kind != Note::Kind::TimeRange) return std::make_pair(note.begin, note.end);
    // The first record at or after each end, over every rank.
    auto stepAt = [&](qint64 ms) -> std::optional<std::int64_t> {
        std::optional<std::int64_t> best; // the gstep of the earliest such record so far
        double bestTime = 0;
        for (const auto* s : series) {
            std::optional<std::size_t> at; // the record of this series that is the earliest
            s->records.scan(analysis::RecordSeries::Field::Timestamp, [&](std::size_t i, double t) {
                if (t >= double(ms) && (!(best || at) || t < bestTime)) at = i, bestTime = t;
                return true;
            });
            if (at) best = s->records[*at].gstep;
        }
        return best;
    };
    const auto a = stepAt(note.begin);
    if (!a) return std::nullopt;
    const auto b = stepAt(note.end);
    std::int64_t last = *a;
    if (!b)
        for (const auto* s : series)
            if (!s->records.empty()) last = std::max(last, s->records.back().gstep);
    return std::make_pair(*a, b ? *b : last);
}

bool isNoteItem(const QCPAbstractItem* item) {
    return item && item->property(kNoteItemProperty).toBool();
}

void addNoteItems(QCustomPlot* plot, QCPAxisRect* rect, double x0, double x1, const Note& note,
                  std::vector<QCPAbstractItem*>& items, bool belowData) {
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    const QString layer =
        belowData && plot->layer(QStringLiteral("grid")) ? QStringLiteral("grid") : QString();
    auto place = [&](QCPItemPosition* p, double px, double ratio) {
        p->setAxes(x, y);
        p->setAxisRect(rect);
        p->setTypeX(QCPItemPosition::ptPlotCoords);
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
        p->setCoords(px, ratio);
    };
    QColor fill = note.colour;
    fill.setAlpha(45);
    if (x1 > x0) {
        auto* band = new QCPItemRect(plot);
        band->setClipAxisRect(rect);
        place(band->topLeft, x0, 0);
        place(band->bottomRight, x1, 1);
        band->setPen(QPen(note.colour, 1, Qt::DashLine));
        band->setBrush(fill);
        band->setSelectable(false);
        if (!layer.isEmpty()) band->setLayer(layer);
        band->setProperty(kNoteItemProperty, true);
        items.push_back(band);
    } else {
        auto* line = new QCPItemLine(plot);
        line->setClipAxisRect(rect);
        place(line->start, x0, 0);
        place(line->end, x0, 1);
        line->setPen(QPen(note.colour, 2));
        line->setSelectable(false);
        if (!layer.isEmpty()) line->setLayer(layer);
        line->setProperty(kNoteItemProperty, true);
        items.push_back(line);
    }
    if (note.text.isEmpty()) return;
    auto* label = new QCPItemText(plot);
    label->setClipAxisRect(rect);
    place(label->position, x0, 0);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setText(note.text);
    label->setColor(note.colour.darker(140));
    const QBrush rb = rect->backgroundBrush();
    QColor bg = rb.style() == Qt::NoBrush ? QColor(Qt::white) : rb.color();
    bg.setAlpha(200);
    label->setBrush(bg);
    label->setPadding(QMargins(3, 1, 3, 1));
    label->setSelectable(false);
    label->setProperty(kNoteItemProperty, true);
    items.push_back(label);
}

void removeItems(QCustomPlot* plot, std::vector<QCPAbstractItem*>& items) {
    for (QCPAbstractItem* i : items)
        plot->removeItem(i);
    items.clear();
}

} // namespace xt::widgets
