#pragma once
// Runs -> ranks -> part files of the loaded runs, with their state (finalised, live, damaged),
// record counts and sizes. Runs are listed by names that tell them apart, which the user can
// change (an editable name cell).

#include "widgets/run_loader.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QStringList>

namespace xt::widgets {

// A loaded run as the Runs dock lists it.
struct RunEntry {
    RunSnapshot run;
    QString autoName;   // tells the run apart from the other open runs (runNames)
    QString customName; // given by the user; "" = none. Kept over reloads by runIdentity
    QString liveStatus; // a followed run's status (LiveRuns); "" = from its metas
    QString name() const { return customName.isEmpty() ? autoName : customName; }
};

// What a run's custom name and notes stick to, and where the GUI says the run is: its URL when
// it was read from one (not the mirror's path), else its label.
QString runIdentity(const LoadedRun& run);
// Names that tell `runs` apart (xdl::distinctRunNames over their directories, own names and
// URLs' hosts and paths), in order.
QStringList runNames(const std::vector<RunSnapshot>& runs);

class RunBrowserModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Columns { NameColumn, StatusColumn, RecordsColumn, SizeColumn, ColumnCount };
    enum Roles {
        RunIndexRole = Qt::UserRole, // int: index of the run in runs()
        RankRole,                    // int: rank, -1 on a run row
        PathRole,                    // QString: the part file, or the run's label
    };

    explicit RunBrowserModel(QObject* parent = nullptr);
    // Custom names of runs with the same identity as before stay (also after closing them).
    void setRuns(std::vector<RunSnapshot> runs);
    std::vector<RunSnapshot> runs() const;
    const std::vector<RunEntry>& entries() const { return m_entries; }
    // The name of `run` (matched by identity, so a snapshot replaced by a reload still has
    // one); its label's file name when it is not open.
    QString nameOf(const RunSnapshot& run) const;
    // Gives the run at `index` a custom name; an empty name gives it its automatic name back.
    void renameRun(int index, const QString& name);
    // A newer snapshot of the same run (more statistics, or more records, parts and ranks of a
    // followed run): same name, new data; the rows are rebuilt when parts or ranks were added.
    void replaceRun(const RunSnapshot& before, const RunSnapshot& after);
    // A followed run's status ("live, last record 0.4 s ago", "writer gone", ...).
    void setLiveStatus(const RunSnapshot& run, const QString& status);
    // Custom names by runIdentity, also of runs not open now (sessions save and restore them).
    const QHash<QString, QString>& customNames() const { return m_customNames; }
    void setCustomNames(const QHash<QString, QString>& names);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

signals:
    // A run's name changed: new runs, or a rename.
    void runNamesChanged();

private:
    std::vector<RunEntry> m_entries;
    QHash<QString, QString> m_customNames; // by runIdentity
};

} // namespace xt::widgets
