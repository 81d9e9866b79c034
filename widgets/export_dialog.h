#pragma once
// Exports from the viewer, off the GUI thread:
//   Hdf5ExportDialog - "Export to HDF5...": output file, key filter (ECMAScript regex, as the
//                      exporter uses it, with a live count of matching keys), gstep range and
//                      deflate level; runs exportHdf5 in the background with progress and
//                      cancel. A cancelled or failed export leaves no file behind.
//   writeStatsCsv    - the per-record statistics of a loaded run as the CSV of `xtrace stats`
//                      (core/export/stats_csv), written atomically (core/export/atomic_file).

#include "core/export/hdf5_exporter.h"
#include "widgets/job_tracker.h"
#include "widgets/run_loader.h"

#include <QDialog>
#include <QTimer>
#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace xt::widgets {

// Rows written (header excluded). Cancelled when `progress` says stop; nothing is left behind
// then or on failure.
Result<std::uint64_t> writeStatsCsv(const LoadedRun& run, const std::string& path,
                                    const ProgressCallback& progress = {});

class Hdf5ExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit Hdf5ExportDialog(RunSnapshot run, QWidget* parent = nullptr);

    void setOutputPath(const QString& path);
    void setKeyRegex(const QString& regex);
    // Empty = unbounded on that side.
    void setGstepRange(std::optional<std::int64_t> first, std::optional<std::int64_t> last);
    void setDeflateLevel(int level);

    // Keys of the run matching the filter (-1 when the pattern is invalid), and all keys.
    int matchingKeys() const { return m_matching; }
    int totalKeys() const { return int(m_run ? m_run->keys.size() : 0); }
    QString keyCountText() const;

    // Starts the export; false (with errorText() set) when the fields are not valid.
    bool start();
    void cancel();
    bool isRunning() const { return m_jobs->isRunning(); }
    // The error of the fields or of the last export; "" when none.
    const QString& errorText() const { return m_error; }
    const std::optional<Hdf5ExportReport>& report() const { return m_report; }

signals:
    // An export ended (not after cancel()); ok = the file was written.
    void exportFinished(bool ok);

protected:
    void reject() override;

private:
    void updateKeyCount();
    void showError(const QString& error);
    void updateProgress();

    RunSnapshot m_run;
    JobTracker* m_jobs;
    QLineEdit* m_output;
    QLineEdit* m_keys;
    QLabel* m_keyCount;
    QLineEdit* m_first;
    QLineEdit* m_last;
    QSpinBox* m_deflate;
    ProgressStrip* m_progress;
    QLabel* m_message;
    QPushButton* m_start;
    QPushButton* m_cancel;
    QTimer m_progressTimer;
    int m_matching = 0;
    QString m_error;
    std::optional<Hdf5ExportReport> m_report;
};

} // namespace xt::widgets
