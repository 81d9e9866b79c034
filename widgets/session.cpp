#include "widgets/session.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

namespace xt::widgets {

namespace {

const QString kFormat = QStringLiteral("xtview-session");
const char* const kTabKinds[] = {"key", "timeline", "compare"};

bool isUrl(const QString& path) {
    return path.contains(QStringLiteral("://"));
}

bool isGlob(const QString& path) {
    return path.contains(QLatin1Char('*')) || path.contains(QLatin1Char('?')) ||
           path.contains(QLatin1Char('['));
}

// Integers are written as such (nanoseconds since the epoch need all 64 bits, more than a double
// holds); a number written with a fraction or an exponent is read through a double.
QJsonValue optionalNumber(const std::optional<qint64>& v) {
    return v ? QJsonValue(*v) : QJsonValue();
}

std::optional<qint64> numberOf(const QJsonValue& v) {
    if (!v.isDouble()) return std::nullopt;
    return v.toInteger(qint64(v.toDouble()));
}

QJsonObject pathJson(const SessionPath& p, const QString& dir) {
    QJsonObject o{{QStringLiteral("path"), p.path}};
    if (!isUrl(p.path) && !dir.isEmpty())
        o.insert(QStringLiteral("relative"), QDir(dir).relativeFilePath(p.path));
    return o;
}

std::optional<SessionPath> pathOf(const QJsonValue& v) {
    if (v.isString()) return SessionPath{v.toString(), {}};
    const QJsonObject o = v.toObject();
    const QString path = o.value(QStringLiteral("path")).toString();
    if (path.isEmpty()) return std::nullopt;
    return SessionPath{path, o.value(QStringLiteral("relative")).toString()};
}

QJsonArray pathsJson(const std::vector<SessionPath>& paths, const QString& dir) {
    QJsonArray a;
    for (const auto& p : paths)
        a.append(pathJson(p, dir));
    return a;
}

std::vector<SessionPath> pathsOf(const QJsonValue& v) {
    std::vector<SessionPath> out;
    for (const QJsonValue& e : v.toArray())
        if (auto p = pathOf(e)) out.push_back(*p);
    return out;
}

QJsonObject tabJson(const SessionTab& t, const QString& dir) {
    QJsonObject o{{QStringLiteral("kind"), QLatin1String(kTabKinds[int(t.kind)])}};
    switch (t.kind) {
    case SessionTab::Kind::Key:
        o.insert(QStringLiteral("run"), t.run);
        o.insert(QStringLiteral("key"), t.key);
        o.insert(QStringLiteral("view"), t.view);
        break;
    case SessionTab::Kind::Timeline: {
        o.insert(QStringLiteral("files"), pathsJson(t.files, dir));
        if (t.window)
            o.insert(QStringLiteral("window"), QJsonArray{t.window->first, t.window->second});
        o.insert(QStringLiteral("cursorA"), optionalNumber(t.cursorA));
        o.insert(QStringLiteral("cursorB"), optionalNumber(t.cursorB));
        QJsonArray offsets;
        for (qint64 v : t.offsets)
            offsets.append(v);
        o.insert(QStringLiteral("offsets"), offsets);
        break;
    }
    case SessionTab::Kind::Compare:
        o.insert(QStringLiteral("runA"), t.run);
        o.insert(QStringLiteral("rankA"), t.rankA);
        o.insert(QStringLiteral("runB"), t.runB);
        o.insert(QStringLiteral("rankB"), t.rankB);
        o.insert(QStringLiteral("align"), t.align);
        o.insert(QStringLiteral("atol"), t.atol);
        o.insert(QStringLiteral("rtol"), t.rtol);
        o.insert(QStringLiteral("statistic"), t.statistic);
        o.insert(QStringLiteral("key"), t.key);
        o.insert(QStringLiteral("cursorStep"), optionalNumber(t.cursorStep));
        break;
    }
    return o;
}

std::optional<SessionTab> tabOf(const QJsonObject& o) {
    SessionTab t;
    const QString kind = o.value(QStringLiteral("kind")).toString();
    int k = -1;
    for (int i = 0; i < 3; ++i)
        if (kind == QLatin1String(kTabKinds[i])) k = i;
    if (k < 0) return std::nullopt;
    t.kind = SessionTab::Kind(k);
    switch (t.kind) {
    case SessionTab::Kind::Key:
        t.run = o.value(QStringLiteral("run")).toString();
        t.key = o.value(QStringLiteral("key")).toString();
        t.view = o.value(QStringLiteral("view")).toObject();
        if (t.run.isEmpty() || t.key.isEmpty()) return std::nullopt;
        break;
    case SessionTab::Kind::Timeline: {
        t.files = pathsOf(o.value(QStringLiteral("files")));
        if (t.files.empty()) return std::nullopt;
        const QJsonArray w = o.value(QStringLiteral("window")).toArray();
        const auto t0 = numberOf(w.at(0)), t1 = numberOf(w.at(1));
        if (w.size() == 2 && t0 && t1) t.window = std::make_pair(*t0, *t1);
        t.cursorA = numberOf(o.value(QStringLiteral("cursorA")));
        t.cursorB = numberOf(o.value(QStringLiteral("cursorB")));
        for (const QJsonValue& v : o.value(QStringLiteral("offsets")).toArray())
            t.offsets.push_back(numberOf(v).value_or(0));
        break;
    }
    case SessionTab::Kind::Compare:
        t.run = o.value(QStringLiteral("runA")).toString();
        t.runB = o.value(QStringLiteral("runB")).toString();
        if (t.run.isEmpty() || t.runB.isEmpty()) return std::nullopt;
        t.rankA = o.value(QStringLiteral("rankA")).toInt();
        t.rankB = o.value(QStringLiteral("rankB")).toInt();
        t.align = o.value(QStringLiteral("align")).toString(t.align);
        t.atol = o.value(QStringLiteral("atol")).toDouble(t.atol);
        t.rtol = o.value(QStringLiteral("rtol")).toDouble(t.rtol);
        t.statistic = o.value(QStringLiteral("statistic")).toString(t.statistic);
        t.key = o.value(QStringLiteral("key")).toString();
        t.cursorStep = numberOf(o.value(QStringLiteral("cursorStep")));
        break;
    }
    return t;
}

} // namespace

QJsonObject sessionToJson(const Session& s, const QString& dir) {
    QJsonObject names;
    for (auto it = s.runNames.begin(); it != s.runNames.end(); ++it)
        names.insert(it.key(), it.value());
    QJsonArray tabs;
    for (const auto& t : s.tabs)
        tabs.append(tabJson(t, dir));
    NoteStore notes;
    notes.setNotes(s.notes);
    QJsonObject layouts;
    for (auto it = s.layouts.begin(); it != s.layouts.end(); ++it)
        layouts.insert(it.key(), QString::fromLatin1(it.value().toBase64()));
    return {{QStringLiteral("format"), kFormat},
            {QStringLiteral("version"), Session::kVersion},
            {QStringLiteral("runs"), pathsJson(s.runs, dir)},
            {QStringLiteral("runNames"), names},
            {QStringLiteral("tabs"), tabs},
            {QStringLiteral("currentTab"), s.currentTab},
            {QStringLiteral("currentRun"), s.currentRun},
            {QStringLiteral("keyFilter"), s.keyFilter},
            {QStringLiteral("notes"), notes.toJson()},
            {QStringLiteral("layouts"), layouts}};
}

std::optional<Session> sessionFromJson(const QJsonObject& o, QString* error, int* skipped) {
    auto fail = [&](const QString& why) -> std::optional<Session> {
        if (error) *error = why;
        return std::nullopt;
    };
    if (o.value(QStringLiteral("format")).toString() != kFormat)
        return fail(QObject::tr("not an xtview session (no \"format\": \"%1\")").arg(kFormat));
    const int version = o.value(QStringLiteral("version")).toInt(0);
    if (version < 1 || version > Session::kVersion)
        return fail(QObject::tr("session version %1 is not supported (this build reads up to %2)")
                        .arg(version)
                        .arg(Session::kVersion));
    Session s;
    int bad = 0;
    s.runs = pathsOf(o.value(QStringLiteral("runs")));
    const QJsonObject names = o.value(QStringLiteral("runNames")).toObject();
    for (auto it = names.begin(); it != names.end(); ++it)
        if (!it.value().toString().isEmpty()) s.runNames.insert(it.key(), it.value().toString());
    for (const QJsonValue& v : o.value(QStringLiteral("tabs")).toArray()) {
        if (auto t = tabOf(v.toObject()))
            s.tabs.push_back(std::move(*t));
        else
            ++bad;
    }
    s.currentTab = o.value(QStringLiteral("currentTab")).toInt(-1);
    s.currentRun = o.value(QStringLiteral("currentRun")).toString();
    s.keyFilter = o.value(QStringLiteral("keyFilter")).toString();
    int badNotes = 0;
    s.notes = NoteStore::fromJson(o.value(QStringLiteral("notes")).toArray(), &badNotes);
    bad += badNotes;
    const QJsonObject layouts = o.value(QStringLiteral("layouts")).toObject();
    for (auto it = layouts.begin(); it != layouts.end(); ++it)
        s.layouts.insert(it.key(), QByteArray::fromBase64(it.value().toString().toLatin1()));
    if (skipped) *skipped = bad;
    return s;
}

bool writeSessionFile(const Session& session, const QString& path, QString* error) {
    QSaveFile f(path);
    const QByteArray bytes =
        QJsonDocument(sessionToJson(session, QFileInfo(path).absolutePath())).toJson();
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        if (error) *error = QObject::tr("could not write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

std::optional<Session> readSessionFile(const QString& path, QString* error, int* skipped) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) *error = QObject::tr("cannot open %1: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = QObject::tr("%1: not JSON (%2 at byte %3)")
                         .arg(path, parse.errorString())
                         .arg(parse.offset);
        return std::nullopt;
    }
    QString why;
    auto s = sessionFromJson(doc.object(), &why, skipped);
    if (!s && error) *error = QStringLiteral("%1: %2").arg(path, why);
    return s;
}

std::optional<QString> locateSessionPath(const SessionPath& p, const QString& dir) {
    if (isUrl(p.path) || isGlob(p.path) || QFileInfo::exists(p.path)) return p.path;
    if (!p.relative.isEmpty()) {
        const QString moved = QDir::cleanPath(QDir(dir).absoluteFilePath(p.relative));
        if (QFileInfo::exists(moved)) return moved;
    }
    return std::nullopt;
}

} // namespace xt::widgets
