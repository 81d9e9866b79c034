#pragma once
// Memory panel of the timeline page: the peak of every counter series (name, process, peak value
// as bytes when the series looks like memory, beside the sum of all allocations for an
// allocator's series, time of the peak relative to the trace start), largest first, and for the
// selected peak the objects (N/O/D lifetimes) alive at that moment: for an allocator, its own
// tensors with their producing op and bytes. Double-clicking a peak emits timeActivated(peak
// time); double-clicking an object emits its creation time. memoryPeaks of big traces runs in the
// background (JobTracker).

#include "core/timeline/memory_peaks.h"
#include "core/timeline/trace_store.h"
#include "widgets/job_tracker.h"

#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QTableWidget;

namespace xt::widgets {

class MemoryPanel : public QWidget {
    Q_OBJECT
public:
    enum PeakColumn {
        SeriesColumn,
        ProcessColumn,
        PeakColumn,      // peak live bytes
        AllocatedColumn, // sum of all allocations (allocator series), else "-"
        TimeColumn,
        PeakColumnCount
    };
    enum ObjectColumn {
        ObjectNameColumn,
        OpColumn,    // the op that produced the tensor
        BytesColumn, // its requested bytes
        ObjectIdColumn,
        CreatedColumn,
        DestroyedColumn,
        SnapshotsColumn,
        ObjectColumnCount
    };

    explicit MemoryPanel(QWidget* parent = nullptr);

    void setStore(std::shared_ptr<const timeline::TraceStore> store);
    // memoryPeaks(store), in the order of the peak table's rows.
    const std::vector<timeline::MemoryPeak>& peaks() const { return m_peaks; }
    // Shows the live objects of peaks()[index] (also what clicking a peak row does).
    void selectPeak(int index);
    int selectedPeak() const { return m_selected; }
    QTableWidget* peakTable() const { return m_peakTable; }
    QTableWidget* objectTable() const { return m_objectTable; }
    QString message() const; // shown when there is no counter; else empty
    bool isBusy() const { return m_jobs->isRunning(); }
    // Work (counter points + counters x objects) above which peaks run in the background.
    void setBackgroundThreshold(std::size_t work) { m_backgroundWork = work; }

signals:
    void timeActivated(qint64 ns);
    void peaksReady();

private:
    void display(std::vector<timeline::MemoryPeak> peaks);
    QString relTime(std::int64_t ns) const;

    std::shared_ptr<const timeline::TraceStore> m_store;
    std::vector<timeline::MemoryPeak> m_peaks;
    int m_selected = -1;
    std::size_t m_backgroundWork = 2000000;
    QLabel* m_summary;
    QTableWidget* m_peakTable;
    QLabel* m_objectsLabel;
    QTableWidget* m_objectTable;
    JobTracker* m_jobs;
};

} // namespace xt::widgets
