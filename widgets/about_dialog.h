#pragma once
// Help > About xtview: version and description, the build facts of core/buildinfo (git commit,
// build type, compiler, CUDA, library versions) plus the Qt run-time version and whether CUDA
// runs here (probed off the GUI thread through a JobTracker), and the licenses of the
// components the binary contains. "Copy" puts the build facts on the clipboard for bug reports.

#include <QDialog>
#include <QString>

class QTreeWidget;
class QTreeWidgetItem;

namespace xt::widgets {

class JobTracker;

class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);

    // The facts as "name: value" lines, as the Copy button copies them.
    QString buildInfoText() const;
    // Whether the CUDA probe has finished (its row shows the result).
    bool cudaProbed() const { return m_cudaProbed; }

signals:
    void cudaProbeFinished();

private:
    QTreeWidget* m_facts = nullptr;
    QTreeWidgetItem* m_cudaRow = nullptr;
    JobTracker* m_probe = nullptr;
    bool m_cudaProbed = false;
};

// Opens the About dialog (modal) over `parent`.
void showAboutDialog(QWidget* parent);

} // namespace xt::widgets
