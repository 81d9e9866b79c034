#include "widgets/slice_details.h"

#include "widgets/logic/timeline_geometry.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace xt::widgets {

using timeline::kNoIndex;
using timeline::TraceStore;

namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
QString dur(std::int64_t ns) {
    return QString::fromStdString(view::formatDuration(ns));
}

const char* const kFieldKeys[] = {"name",     "category", "track",  "start",   "absolute",
                                  "duration", "self",     "parent", "children"};

} // namespace

SliceDetails::SliceDetails(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("SliceDetails"));
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(2, 2, 2, 2);
    m_title = new QLabel(tr("No slice selected"), this);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fields = new QTableWidget(int(std::size(kFieldKeys)), 1, this);
    m_fields->horizontalHeader()->hide();
    m_fields->horizontalHeader()->setStretchLastSection(true);
    m_fields->setEditTriggers(QAbstractItemView::NoEditTriggers);
    const QStringList labels = {tr("Name"),  tr("Category"), tr("Track"),
                                tr("Start"), tr("Absolute"), tr("Duration"),
                                tr("Self"),  tr("Parent"),   tr("Children")};
    m_fields->setVerticalHeaderLabels(labels);
    m_args = new QTableWidget(0, 2, this);
    m_args->setHorizontalHeaderLabels({tr("Arg"), tr("Value")});
    m_args->horizontalHeader()->setStretchLastSection(true);
    m_args->verticalHeader()->hide();
    m_args->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_flows = new QTreeWidget(this);
    m_flows->setHeaderLabels({tr("Flow"), tr("Slice"), tr("Start")});
    m_flows->setRootIsDecorated(false);
    connect(m_flows, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (m_layer >= 0) emit jumpToSlice(m_layer, item->data(0, Qt::UserRole).toUInt());
    });
    connect(m_flows, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        if (m_layer >= 0) emit jumpToSlice(m_layer, item->data(0, Qt::UserRole).toUInt());
    });
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_fields);
    split->addWidget(m_args);
    split->addWidget(m_flows);
    v->addWidget(m_title);
    v->addWidget(split, 1);
}

std::int64_t SliceDetails::selfTime(const TraceStore& s, quint32 slice, std::uint32_t* children) {
    const auto& track = s.tracks()[s.sliceTrack()[slice]];
    const auto parent = s.sliceParent();
    const std::int64_t a = s.sliceStart()[slice], b = s.sliceEnd(slice);
    // Children start inside the parent, after it in the track's start order.
    const auto starts = s.sliceStart();
    std::int64_t covered = 0;
    std::uint32_t n = 0;
    const auto begin = starts.begin() + track.sliceBegin, end = starts.begin() + track.sliceEnd;
    for (auto it = std::lower_bound(begin, end, a); it != end && *it <= b; ++it) {
        const auto c = std::uint32_t(it - starts.begin());
        if (c == slice || parent[c] != slice) continue;
        ++n;
        covered += std::max<std::int64_t>(0, std::min(b, s.sliceEnd(c)) - std::max(a, *it));
    }
    if (children) *children = n;
    return std::max<std::int64_t>(0, (b - a) - covered);
}

void SliceDetails::setSlice(const TimelineLayer& layer, int layerIndex, quint32 slice) {
    const TraceStore& s = *layer.store;
    if (slice >= s.sliceCount()) {
        clear();
        return;
    }
    m_layer = layerIndex;
    const auto& track = s.tracks()[s.sliceTrack()[slice]];
    const QString name = qs(s.str(s.sliceName()[slice]));
    std::uint32_t children = 0;
    const std::int64_t self = selfTime(s, slice, &children);
    const std::uint32_t parent = s.sliceParent()[slice];
    const QString trackName = QString::fromStdString(s.processLabel(track.process)) +
                              QStringLiteral(" / ") +
                              (track.kind == timeline::TrackKind::Thread
                                   ? QString::fromStdString(s.threadLabel(track.thread))
                                   : qs(s.str(track.name)));
    const std::int64_t start = s.sliceStart()[slice];
    const QStringList values = {name,
                                qs(s.str(s.sliceCategory()[slice])),
                                trackName,
                                dur(start - s.beginTime()),
                                QStringLiteral("%1 us").arg(double(start) / 1000.0, 0, 'f', 3),
                                dur(s.sliceDuration()[slice]),
                                dur(self),
                                parent == kNoIndex ? tr("none") : qs(s.str(s.sliceName()[parent])),
                                QString::number(children)};
    for (int i = 0; i < values.size(); ++i) {
        auto* item = new QTableWidgetItem(values[i]);
        item->setToolTip(values[i]);
        m_fields->setItem(i, 0, item);
    }
    m_title->setText(QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped()));

    const auto args = s.decodeArgs(s.sliceArgs(slice));
    m_args->setRowCount(int(args.size()));
    for (int i = 0; i < int(args.size()); ++i) {
        m_args->setItem(i, 0,
                        new QTableWidgetItem(QString::fromStdString(args[std::size_t(i)].first)));
        auto* v = new QTableWidgetItem(QString::fromStdString(args[std::size_t(i)].second));
        v->setToolTip(v->text());
        m_args->setItem(i, 1, v);
    }

    m_flows->clear();
    for (const auto& f : s.flows()) {
        const bool out = f.fromSlice == slice, in = f.toSlice == slice;
        if (!out && !in) continue;
        const std::uint32_t other = out ? f.toSlice : f.fromSlice;
        if (other == kNoIndex) continue;
        auto* item = new QTreeWidgetItem(m_flows);
        item->setText(0, (out ? QStringLiteral("\u2192 ") : QStringLiteral("\u2190 ")) +
                             qs(s.str(f.name)));
        item->setText(1, qs(s.str(s.sliceName()[other])));
        item->setText(2, dur(s.sliceStart()[other] - s.beginTime()));
        item->setData(0, Qt::UserRole, other);
    }
}

void SliceDetails::clear() {
    m_layer = -1;
    m_title->setText(tr("No slice selected"));
    for (int i = 0; i < m_fields->rowCount(); ++i)
        m_fields->setItem(i, 0, nullptr);
    m_args->setRowCount(0);
    m_flows->clear();
}

QString SliceDetails::field(const QString& key) const {
    for (int i = 0; i < int(std::size(kFieldKeys)); ++i)
        if (key == QLatin1String(kFieldKeys[i]))
            return m_fields->item(i, 0) ? m_fields->item(i, 0)->text() : QString();
    return {};
}

} // namespace xt::widgets
