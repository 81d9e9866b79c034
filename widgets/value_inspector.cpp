#include "widgets/value_inspector.h"

#include "widgets/axis_ticks.h"
#include "widgets/job_tracker.h"
#include "widgets/plot_widget.h"
#include "widgets/text_format.h"

#include <QComboBox>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <cmath>
#include <qcustomplot.h>

namespace xt::widgets {

namespace {
constexpr int kMaxHeatmapSide = 1024; // larger matrices show their top-left corner
}

ValueInspector::ValueInspector(QWidget* parent)
    : QWidget(parent), m_rank(new QComboBox(this)), m_info(new QLabel(this)),
      m_tabs(new QTabWidget(this)), m_table(new QTableView(this)), m_heatmap(new PlotWidget(this)),
      m_model(new ValueTableModel(this)) {
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(new QLabel(tr("Rank"), this));
    bar->addWidget(m_rank);
    bar->addWidget(m_info, 1);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_info->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_table->horizontalHeader()->setDefaultSectionSize(110);
    m_tabs->addTab(m_table, tr("Table"));
    m_tabs->addTab(m_heatmap, tr("Heatmap"));
    m_tabs->setDocumentMode(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_tabs, 1);

    adaptTicks(m_heatmap);
    m_map = new QCPColorMap(m_heatmap->xAxis, m_heatmap->yAxis);
    auto* scale = new QCPColorScale(m_heatmap);
    m_heatmap->plotLayout()->addElement(0, 1, scale);
    m_map->setColorScale(scale);
    QCPColorGradient g(QCPColorGradient::gpPolar);
    g.setNanHandling(QCPColorGradient::nhHighestColor);
    m_map->setGradient(g);
    m_map->setInterpolate(false);
    m_heatmap->yAxis->setRangeReversed(true);
    m_heatmap->xAxis->setLabel(tr("column"));
    m_heatmap->yAxis->setLabel(tr("row"));
    m_heatmap->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_heatmap->setBackground(palette().brush(QPalette::Base));
    connect(m_rank, &QComboBox::activated, this, &ValueInspector::refresh);
}

void ValueInspector::setContext(RunSnapshot run, const QString& key,
                                std::optional<std::int64_t> gstep) {
    const bool newKey = run != m_run || key != m_key;
    m_run = std::move(run);
    m_key = key;
    m_gstep = gstep;
    if (newKey) {
        const int previous = m_rank->currentData().isValid() ? m_rank->currentData().toInt() : -1;
        m_rank->clear();
        if (m_run)
            for (const auto* s : m_run->seriesOf(key.toStdString()))
                m_rank->addItem(QString::number(s->rank), s->rank);
        const int keep = m_rank->findData(previous);
        if (keep >= 0) m_rank->setCurrentIndex(keep);
    }
    refresh();
}

void ValueInspector::setRank(int rank) {
    const int i = m_rank->findData(rank);
    if (i < 0 || i == m_rank->currentIndex()) return;
    m_rank->setCurrentIndex(i);
    refresh();
}

void ValueInspector::refresh() {
    ++m_reads; // a read still running for the previous context is not shown
    m_model->setTensor(nullptr, {});
    m_map->data()->clear();
    m_tabs->setTabEnabled(1, false);
    if (!m_run || m_key.isEmpty() || m_rank->count() == 0) {
        m_info->setText(m_key.isEmpty() ? tr("Select a key") : tr("No data for %1").arg(m_key));
        m_heatmap->replot();
        return;
    }
    const int rank = m_rank->currentData().toInt();
    const auto* reader = m_run->reader->rank(rank);
    const std::string key = m_key.toStdString();
    // The record at the cursor, or the last record holding the key.
    std::optional<std::size_t> record;
    if (m_gstep) {
        // Several records may share a gstep; take the first one that holds this key.
        for (const auto* s : m_run->seriesOf(key))
            if (s->rank == rank) {
                using Field = analysis::RecordSeries::Field;
                const std::size_t at = s->records.find(Field::Gstep, double(*m_gstep));
                if (at < s->records.size()) record = s->records[at].record;
            }
    } else {
        for (const auto* s : m_run->seriesOf(key))
            if (s->rank == rank && !s->records.empty()) record = s->records.back().record;
    }
    if (!reader || !record) {
        m_info->setText(tr("%1: no record at gstep %2 on rank %3")
                            .arg(m_key)
                            .arg(m_gstep.value_or(-1))
                            .arg(rank));
        m_heatmap->replot();
        return;
    }
    // The bytes may have to come from disk or, for a remote run, from the server: read them on
    // a worker thread and show them if the context is still the same by then.
    m_info->setText(tr("Reading %1 at record %2 of rank %3...")
                        .arg(m_key.toHtmlEscaped())
                        .arg(*record)
                        .arg(rank));
    using Read = std::shared_ptr<Result<xdl::TensorView>>;
    const std::uint64_t ticket = ++m_reads;
    auto* watcher = new QFutureWatcher<Read>(this);
    connect(watcher, &QFutureWatcher<Read>::finished, this,
            [this, watcher, ticket, run = m_run, reader, record = *record] {
                watcher->deleteLater();
                if (ticket == m_reads && run == m_run)
                    showTensor(*reader, record, *watcher->result());
            });
    watcher->setFuture(QtConcurrent::run(jobPool(), [run = m_run, reader, record = *record, key] {
        yieldToGui();
        return std::make_shared<Result<xdl::TensorView>>(reader->tensor(record, key));
    }));
}

void ValueInspector::showTensor(const xdl::RankReader& reader, std::size_t record,
                                const Result<xdl::TensorView>& t) {
    if (!t.isOk()) {
        m_info->setText(QString::fromStdString(t.status().toString()));
        m_heatmap->replot();
        return;
    }
    const auto& e = reader.entry(record);
    m_model->setTensor(m_run, *t);
    m_info->setText(tr("<b>%1</b> gstep %2, lstep %3, %4 &nbsp; %5 %6")
                        .arg(m_key.toHtmlEscaped())
                        .arg(e.gstep)
                        .arg(e.lstep)
                        .arg(formatTimestampMs(e.timestamp))
                        .arg(QString::fromUtf8(xdl::dtypeName(t->dtype()).data()))
                        .arg(QString::fromStdString(t->shape().toString())));
    const auto& s = t->shape();
    if (s.rank == 2 && s.dims[0] > 0 && s.dims[1] > 0) {
        const int rows = int(std::min<std::int64_t>(s.dims[0], kMaxHeatmapSide));
        const int cols = int(std::min<std::int64_t>(s.dims[1], kMaxHeatmapSide));
        m_map->data()->setSize(cols, rows);
        m_map->data()->setRange(QCPRange(0, std::max(cols - 1, 1)),
                                QCPRange(0, std::max(rows - 1, 1)));
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                m_map->data()->setCell(
                    c, r,
                    t->valueAsDouble(std::size_t(r) * std::size_t(s.dims[1]) + std::size_t(c)));
        m_map->rescaleDataRange(true);
        m_heatmap->rescaleAxes();
        m_tabs->setTabEnabled(1, true);
    } else if (m_tabs->currentIndex() == 1) {
        m_tabs->setCurrentIndex(0);
    }
    m_heatmap->replot();
}

} // namespace xt::widgets
