#pragma once
// "Compare Runs...": picks run A / rank A and run B / rank B among the loaded runs (two runs,
// or two ranks of one run), the step alignment and the tolerance of a compare tab.

#include "widgets/compare_view.h"

#include <QDialog>
#include <QStringList>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace xt::widgets {

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    // `current` is the run shown in the main window (A by default). `names` lists the runs by
    // the names the main window gives them (default: runNames).
    CompareDialog(std::vector<RunSnapshot> runs, int current, QWidget* parent = nullptr,
                  QStringList names = {});

    // Selects runs by index in `runs` and ranks by rank number; false when one does not exist.
    bool select(int runA, int rankA, int runB, int rankB);
    void setAlign(analysis::StepAlign align);
    CompareRequest request() const;
    // Whether the selection can be compared (both sides set and not the same rank of one run).
    bool isValid() const;

private:
    void fillRanks(QComboBox* runs, QComboBox* ranks, int preferred);
    void validate();

    std::vector<RunSnapshot> m_runs;
    QStringList m_names;
    QComboBox* m_runA;
    QComboBox* m_rankA;
    QComboBox* m_runB;
    QComboBox* m_rankB;
    QComboBox* m_align;
    QLineEdit* m_atol;
    QLineEdit* m_rtol;
    QLabel* m_problem;
    QPushButton* m_ok;
};

} // namespace xt::widgets
