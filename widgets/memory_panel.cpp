#include "widgets/memory_panel.h"

#include "widgets/trace_time_format.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace xt::widgets {

using timeline::kNoTime;
using timeline::MemoryPeak;

namespace {

QString qstr(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
    auto* t = new QTableWidget(parent);
    t->setColumnCount(int(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 4);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    t->setWordWrap(false);
    return t;
}

QTableWidgetItem* rightItem(const QString& text) {
    auto* i = new QTableWidgetItem(text);
    i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return i;
}

} // namespace

MemoryPanel::MemoryPanel(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel(this)),
      m_peakTable(makeTable({tr("Counter"), tr("Process"), tr("Peak live bytes"),
                             tr("Sum of all allocations"), tr("Time of peak")},
                            this)),
      m_objectsLabel(new QLabel(this)),
      m_objectTable(makeTable({tr("Object"), tr("Op"), tr("Bytes"), tr("Id"), tr("Created"),
                               tr("Destroyed"), tr("Snapshots")},
                              this)),
      m_jobs(new JobTracker(this)) {
    m_summary->setWordWrap(true);
    m_objectsLabel->setWordWrap(true);
    for (int c = PeakColumn; c < PeakColumnCount; ++c)
        m_peakTable->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_peakTable->horizontalHeaderItem(AllocatedColumn)
        ->setToolTip(tr("Every allocation of the allocator added up: what it would take without "
                        "any reuse. The gap to the peak is what reuse saves."));
    auto* objects = new QWidget(this);
    auto* ol = new QVBoxLayout(objects);
    ol->setContentsMargins(0, 0, 0, 0);
    ol->addWidget(m_objectsLabel);
    ol->addWidget(m_objectTable, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_peakTable);
    split->addWidget(objects);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(2, 2, 2, 2);
    lay->addWidget(m_summary);
    lay->addWidget(split, 1);

    connect(m_peakTable, &QTableWidget::currentCellChanged, this,
            [this](int row) { selectPeak(row); });
    connect(m_peakTable, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (row >= 0 && row < int(m_peaks.size())) emit timeActivated(m_peaks[std::size_t(row)].ts);
    });
    connect(m_objectTable, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem* it = m_objectTable->item(row, ObjectNameColumn);
        if (!it || !m_store) return;
        const auto o = it->data(Qt::UserRole).toUInt();
        if (o < m_store->objects().size()) emit timeActivated(m_store->objects()[o].created);
    });
    display({});
}

void MemoryPanel::setStore(std::shared_ptr<const timeline::TraceStore> store) {
    m_store = std::move(store);
    if (!m_store) {
        m_jobs->cancel();
        display({});
        return;
    }
    std::size_t work = m_store->counters().size() * m_store->objects().size();
    for (const auto& c : m_store->counters())
        work += c.values.size();
    auto st = m_store;
    if (work <= m_backgroundWork) {
        m_jobs->cancel();
        display(timeline::memoryPeaks(*st));
        return;
    }
    m_summary->setText(tr("Finding counter peaks..."));
    m_jobs->startJob(
        [st](JobContext& ctx) {
            ctx.setStage(QStringLiteral("memory peaks"));
            return timeline::memoryPeaks(*st);
        },
        [this](std::vector<MemoryPeak> peaks) { display(std::move(peaks)); });
}

QString MemoryPanel::relTime(std::int64_t ns) const {
    if (ns == kNoTime) return QStringLiteral("-");
    const std::int64_t origin =
        m_store && m_store->beginTime() != kNoTime ? m_store->beginTime() : 0;
    return formatTraceDuration(double(ns - origin));
}

QString MemoryPanel::message() const {
    return m_peaks.empty() ? m_summary->text() : QString();
}

void MemoryPanel::display(std::vector<MemoryPeak> peaks) {
    m_peaks = std::move(peaks);
    m_selected = -1;
    m_peakTable->clearContents();
    m_peakTable->setRowCount(int(m_peaks.size()));
    if (!m_store) {
        m_summary->setText(tr("No trace."));
    } else if (m_peaks.empty()) {
        m_summary->setText(tr("No counters: this trace has no \"C\" events (TensorFlow's "
                              "show_memory=True and PyTorch's profile_memory=True write them)."));
    } else {
        m_summary->setText(tr("%1 counter series, %2 objects; peaks are the largest value of "
                              "each series, first reached at the time shown.")
                               .arg(m_peaks.size())
                               .arg(m_store->objects().size()));
    }
    for (int r = 0; r < int(m_peaks.size()); ++r) {
        const MemoryPeak& p = m_peaks[std::size_t(r)];
        const timeline::CounterSeries& cs = m_store->counters()[p.series];
        const std::string process = m_store->processLabel(cs.process);
        const bool bytes = looksLikeBytes(m_store->str(cs.name), process);
        auto* name = new QTableWidgetItem(cs.name ? qstr(m_store->str(cs.name)) : tr("(unnamed)"));
        name->setData(Qt::UserRole, p.series);
        m_peakTable->setItem(r, SeriesColumn, name);
        m_peakTable->setItem(r, ProcessColumn,
                             new QTableWidgetItem(QString::fromStdString(process)));
        auto* peak = rightItem(formatCounterValue(p.peak, bytes));
        peak->setToolTip(QString::number(p.peak, 'g', 17));
        m_peakTable->setItem(r, PeakColumn, peak);
        m_peakTable->setItem(r, AllocatedColumn,
                             rightItem(p.byAllocator
                                           ? formatCounterValue(double(p.allocatedBytes), true)
                                           : QStringLiteral("-")));
        m_peakTable->setItem(r, TimeColumn, rightItem(relTime(p.ts)));
    }
    m_objectTable->clearContents();
    m_objectTable->setRowCount(0);
    m_objectsLabel->setText(tr("Select a peak to list the objects alive at that moment."));
    if (!m_peaks.empty()) selectPeak(0);
    emit peaksReady();
}

void MemoryPanel::selectPeak(int index) {
    if (index < 0 || index >= int(m_peaks.size()) || !m_store) return;
    if (m_peakTable->currentRow() != index) {
        const QSignalBlocker block(m_peakTable);
        m_peakTable->setCurrentCell(index, 0);
    }
    m_selected = index;
    const MemoryPeak& p = m_peaks[std::size_t(index)];
    const auto objects = m_store->objects();
    if (p.byAllocator) {
        const double peak = p.peak, all = double(p.allocatedBytes);
        m_objectsLabel->setText(
            tr("%1 tensors of allocator \"%2\" live at its peak (%3): peak live bytes %4, sum "
               "of all allocations %5 (reuse saves %6)")
                .arg(p.liveObjects.size())
                .arg(qstr(m_store->str(m_store->counters()[p.series].key)))
                .arg(relTime(p.ts))
                .arg(formatCounterValue(peak, true), formatCounterValue(all, true),
                     formatCounterValue(std::max(0.0, all - peak), true)));
    } else {
        m_objectsLabel->setText(tr("%1 objects alive at the peak of \"%2\" (%3)")
                                    .arg(p.liveObjects.size())
                                    .arg(m_peakTable->item(index, SeriesColumn)->text())
                                    .arg(relTime(p.ts)));
    }
    m_objectTable->setSortingEnabled(false);
    m_objectTable->clearContents();
    m_objectTable->setRowCount(int(p.liveObjects.size()));
    for (int r = 0; r < int(p.liveObjects.size()); ++r) {
        const std::uint32_t oi = p.liveObjects[std::size_t(r)];
        const timeline::ObjectLifetime& o = objects[oi];
        auto* name = new QTableWidgetItem(qstr(m_store->str(o.name)));
        name->setData(Qt::UserRole, oi);
        m_objectTable->setItem(r, ObjectNameColumn, name);
        if (p.byAllocator) {
            const std::uint32_t op = p.producers[std::size_t(r)];
            auto* opItem = new QTableWidgetItem(op == timeline::kNoIndex
                                                    ? QStringLiteral("-")
                                                    : qstr(m_store->str(m_store->sliceName()[op])));
            m_objectTable->setItem(r, OpColumn, opItem);
            auto* bytes = rightItem(formatCounterValue(double(p.liveBytes[std::size_t(r)]), true));
            bytes->setToolTip(QString::number(p.liveBytes[std::size_t(r)]));
            m_objectTable->setItem(r, BytesColumn, bytes);
        }
        m_objectTable->setItem(r, ObjectIdColumn, new QTableWidgetItem(qstr(m_store->str(o.id))));
        m_objectTable->setItem(r, CreatedColumn, rightItem(relTime(o.created)));
        m_objectTable->setItem(
            r, DestroyedColumn,
            rightItem(o.destroyed == kNoTime ? tr("alive at end") : relTime(o.destroyed)));
        m_objectTable->setItem(r, SnapshotsColumn, rightItem(QString::number(o.snapshots)));
    }
}

} // namespace xt::widgets
