#include "widgets/compare_dialog.h"

#include "widgets/run_browser_model.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace xt::widgets {

CompareDialog::CompareDialog(std::vector<RunSnapshot> runs, int current, QWidget* parent,
                             QStringList names)
    : QDialog(parent), m_runs(std::move(runs)),
      m_names(names.size() == int(m_runs.size()) ? std::move(names) : runNames(m_runs)),
      m_runA(new QComboBox(this)), m_rankA(new QComboBox(this)), m_runB(new QComboBox(this)),
      m_rankB(new QComboBox(this)), m_align(new QComboBox(this)), m_atol(new QLineEdit(this)),
      m_rtol(new QLineEdit(this)), m_problem(new QLabel(this)) {
    setWindowTitle(tr("Compare Runs"));
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        for (QComboBox* c : {m_runA, m_runB}) {
            c->addItem(m_names[int(i)]);
            c->setItemData(c->count() - 1, runIdentity(*m_runs[i]), Qt::ToolTipRole);
        }
    m_align->addItem(tr("global step (gstep)"), int(analysis::StepAlign::Gstep));
    m_align->addItem(tr("local step (lstep)"), int(analysis::StepAlign::Lstep));
    m_align->addItem(tr("relative step (from each side's first gstep)"),
                     int(analysis::StepAlign::Relative));
    for (QLineEdit* e : {m_atol, m_rtol}) {
        auto* v = new QDoubleValidator(0, 1e300, 30, e);
        v->setNotation(QDoubleValidator::ScientificNotation);
        e->setValidator(v);
    }
    m_atol->setText(QStringLiteral("1e-08"));
    m_rtol->setText(QStringLiteral("1e-05"));
    m_problem->setStyleSheet(QStringLiteral("QLabel { color: #d03030; }"));

    auto side = [this](QComboBox* run, QComboBox* rank) {
        auto* h = new QHBoxLayout;
        h->addWidget(run, 1);
        h->addWidget(new QLabel(tr("rank"), this));
        h->addWidget(rank);
        return h;
    };
    auto* form = new QFormLayout;
    form->addRow(tr("Run A (blue)"), side(m_runA, m_rankA));
    form->addRow(tr("Run B (orange)"), side(m_runB, m_rankB));
    form->addRow(tr("Align by"), m_align);
    form->addRow(tr("atol"), m_atol);
    form->addRow(tr("rtol"), m_rtol);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Compare"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    connect(m_runA, &QComboBox::currentIndexChanged, this, [this] {
        fillRanks(m_runA, m_rankA, m_rankA->currentData().toInt());
        validate();
    });
    connect(m_runB, &QComboBox::currentIndexChanged, this, [this] {
        fillRanks(m_runB, m_rankB, m_rankB->currentData().toInt());
        validate();
    });
    connect(m_rankA, &QComboBox::currentIndexChanged, this, &CompareDialog::validate);
    connect(m_rankB, &QComboBox::currentIndexChanged, this, &CompareDialog::validate);
    connect(m_atol, &QLineEdit::textChanged, this, &CompareDialog::validate);
    connect(m_rtol, &QLineEdit::textChanged, this, &CompareDialog::validate);

    // Defaults: the current run against another run, or its first two ranks.
    const int a = current >= 0 && current < int(m_runs.size()) ? current : 0;
    if (m_runs.size() > 1) {
        const int b = a == 0 ? 1 : 0;
        const auto& ra = m_runs[std::size_t(a)]->reader->ranks();
        const int rank = ra.empty() ? 0 : ra.front().rank();
        if (!select(a, rank, b, rank)) {
            m_runA->setCurrentIndex(a);
            m_runB->setCurrentIndex(b);
        }
    } else if (!m_runs.empty()) {
        const auto& ranks = m_runs.front()->reader->ranks();
        m_runA->setCurrentIndex(0);
        m_runB->setCurrentIndex(0);
        fillRanks(m_runA, m_rankA, 0);
        fillRanks(m_runB, m_rankB, 0);
        if (ranks.size() > 1) select(0, ranks[0].rank(), 0, ranks[1].rank());
    }
    validate();
}

void CompareDialog::fillRanks(QComboBox* runs, QComboBox* ranks, int preferred) {
    const QSignalBlocker block(ranks);
    ranks->clear();
    const int i = runs->currentIndex();
    if (i < 0 || i >= int(m_runs.size())) return;
    for (const auto& r : m_runs[std::size_t(i)]->reader->ranks())
        ranks->addItem(QString::number(r.rank()), r.rank());
    const int keep = ranks->findData(preferred);
    ranks->setCurrentIndex(keep >= 0 ? keep : 0);
}

bool CompareDialog::select(int runA, int rankA, int runB, int rankB) {
    if (runA < 0 || runB < 0 || runA >= int(m_runs.size()) || runB >= int(m_runs.size()))
        return false;
    m_runA->setCurrentIndex(runA);
    m_runB->setCurrentIndex(runB);
    fillRanks(m_runA, m_rankA, rankA);
    fillRanks(m_runB, m_rankB, rankB);
    validate();
    return m_rankA->currentData().toInt() == rankA && m_rankB->currentData().toInt() == rankB;
}

void CompareDialog::setAlign(analysis::StepAlign align) {
    m_align->setCurrentIndex(m_align->findData(int(align)));
}

CompareRequest CompareDialog::request() const {
    CompareRequest r;
    const int a = m_runA->currentIndex(), b = m_runB->currentIndex();
    if (a >= 0 && a < int(m_runs.size()))
        r.a = {m_runs[std::size_t(a)], m_rankA->currentData().toInt(), m_names[a]};
    if (b >= 0 && b < int(m_runs.size()))
        r.b = {m_runs[std::size_t(b)], m_rankB->currentData().toInt(), m_names[b]};
    r.align = analysis::StepAlign(m_align->currentData().toInt());
    r.atol = m_atol->text().toDouble();
    r.rtol = m_rtol->text().toDouble();
    return r;
}

bool CompareDialog::isValid() const {
    return m_problem->text().isEmpty();
}

void CompareDialog::validate() {
    QString problem;
    bool okA = false, okR = false;
    m_atol->text().toDouble(&okA);
    m_rtol->text().toDouble(&okR);
    if (m_runs.empty())
        problem = tr("No run is open.");
    else if (m_rankA->count() == 0 || m_rankB->count() == 0)
        problem = tr("A run without ranks cannot be compared.");
    else if (m_runA->currentIndex() == m_runB->currentIndex() &&
             m_rankA->currentData() == m_rankB->currentData())
        problem = tr("A and B are the same rank of the same run.");
    else if (!okA || !okR)
        problem = tr("The tolerances must be numbers >= 0.");
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_ok->setEnabled(problem.isEmpty());
}

} // namespace xt::widgets
