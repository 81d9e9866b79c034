#pragma once
// The values of the selected key at the cursor step, for one rank: a table, and a heatmap when
// the tensor is 2-D. Tensors are views over the mapped files, so this costs no copy; their bytes
// are read (from disk, or fetched for a remote run) on a worker thread.

#include "widgets/run_loader.h"
#include "widgets/value_table_model.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableView;
class QTabWidget;
class QCustomPlot;
class QCPColorMap;

namespace xt::widgets {

class ValueInspector : public QWidget {
    Q_OBJECT
public:
    explicit ValueInspector(QWidget* parent = nullptr);

    void setContext(RunSnapshot run, const QString& key, std::optional<std::int64_t> gstep);
    // Shows the values of `rank` (when the key has it); the next contexts keep it.
    void setRank(int rank);
    ValueTableModel* model() const { return m_model; }

private:
    void refresh();
    void showTensor(const xdl::RankReader& reader, std::size_t record,
                    const Result<xdl::TensorView>& t);

    QComboBox* m_rank;
    QLabel* m_info;
    QTabWidget* m_tabs;
    QTableView* m_table;
    QCustomPlot* m_heatmap;
    QCPColorMap* m_map;
    ValueTableModel* m_model;
    RunSnapshot m_run;
    QString m_key;
    std::optional<std::int64_t> m_gstep;
    std::uint64_t m_reads = 0; // the ticket of the newest tensor read
};

} // namespace xt::widgets
