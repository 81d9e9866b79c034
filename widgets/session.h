#pragma once
// A saved desktop session, the `.xtview` file: the open runs and timelines, the tabs with their
// keys, views, zoom and cursors, the notes, the run names and the dock layouts, as JSON
// (docs/SESSIONS.md). Reading is tolerant: unknown members are ignored, a malformed tab or note
// is skipped and counted; only a file that is not a session at all is an error.

#include "widgets/notes.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace xt::widgets {

// A file or directory of a session: its absolute path, and the path relative to the session
// file's directory (tried when the absolute one is gone: a folder moved with its session).
struct SessionPath {
    QString path;
    QString relative;
};

struct SessionTab {
    enum class Kind { Key, Timeline, Compare };
    Kind kind = Kind::Key;
    // Key: the run (runIdentity) and key; the view (KeyView::saveState).
    QString run, key;
    QJsonObject view;
    // Timeline: the layer files, the window, the cursors (ns, layer 0's base), layer offsets.
    std::vector<SessionPath> files;
    std::optional<std::pair<qint64, qint64>> window;
    std::optional<qint64> cursorA, cursorB;
    std::vector<qint64> offsets;
    // Compare: the two sides (runIdentity and rank), alignment ("gstep", "lstep", "relative"),
    // tolerances, the statistic, the key (above) and the cursor step.
    QString runB;
    int rankA = 0, rankB = 0;
    QString align = QStringLiteral("gstep");
    double atol = 1e-8, rtol = 1e-5;
    QString statistic = QStringLiteral("mean");
    std::optional<qint64> cursorStep;
};

struct Session {
    static constexpr int kVersion = 1;
    std::vector<SessionPath> runs;    // run paths as opened (files, directories, URLs)
    QHash<QString, QString> runNames; // custom names by runIdentity
    std::vector<SessionTab> tabs;
    int currentTab = -1;
    QString currentRun; // runIdentity of the run whose keys are listed
    QString keyFilter;
    std::vector<Note> notes;
    QMap<QString, QByteArray> layouts; // dock layouts by tab kind (QMainWindow::saveState)
};

// `sessionDir`: the directory of the session file (for SessionPath::relative).
QJsonObject sessionToJson(const Session& session, const QString& sessionDir);
// A session from JSON; nullopt with `error` when `json` is not an xtview session of a version
// this build reads. `skipped` counts the tabs and notes left out as malformed.
std::optional<Session> sessionFromJson(const QJsonObject& json, QString* error,
                                       int* skipped = nullptr);

// Writes `session` atomically (a new file renamed over the old); false with `error` on failure.
bool writeSessionFile(const Session& session, const QString& path, QString* error);
// Reads a session file; nullopt with `error` (unreadable, not JSON, not a session).
std::optional<Session> readSessionFile(const QString& path, QString* error, int* skipped = nullptr);

// Where a session path is now: its absolute path when that exists (or is a URL or a glob), else the
// relative one resolved against `sessionDir` when that exists; nullopt when neither does.
std::optional<QString> locateSessionPath(const SessionPath& p, const QString& sessionDir);
// The suffix of session files, ".xtview".
inline QString sessionSuffix() {
    return QStringLiteral(".xtview");
}

} // namespace xt::widgets
