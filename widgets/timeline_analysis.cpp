#include "widgets/timeline_analysis.h"

#include "widgets/memory_panel.h"
#include "widgets/op_summary_diff_panel.h"
#include "widgets/op_summary_panel.h"
#include "widgets/step_breakdown_chart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace xt::widgets {

namespace {

// Steps offered per layer in the diff choices; a long profile has thousands.
constexpr std::size_t kMaxStepChoices = 500;

} // namespace

TimelineAnalysis::TimelineAnalysis(TimelinePage* page) : QObject(page), m_page(page) {
    connect(page, &TimelinePage::layerLoaded, this, [this] { layerAdded(); });
}

void TimelineAnalysis::layerAdded() {
    TimelineView* view = m_page->view();
    const auto& layers = view->layers();
    if (layers.empty()) return;
    const int added = int(layers.size()) - 1;

    if (added == 0) {
        const auto store = layers.front().store;
        m_opSummary = new OpSummaryPanel(m_page);
        m_opSummary->setStore(store);
        connect(view, &TimelineView::rangeSelected, m_opSummary, &OpSummaryPanel::setRange);
        connect(view, &TimelineView::selectionCleared, m_opSummary, [this, view] {
            if (!view->selectedRange()) m_opSummary->clearRange();
        });
        connect(m_opSummary, &OpSummaryPanel::nameActivated, view,
                [view](quint32 name) { view->highlightName(0, name); });
        m_page->addPanel(m_opSummary, tr("Op summary"));

        m_steps = new StepBreakdownChart(m_page);
        m_steps->setStore(store);
        connect(m_steps, &StepBreakdownChart::stepActivated, view, &TimelineView::setViewWindow);
        m_page->addPanel(m_steps, tr("Steps"));

        m_memory = new MemoryPanel(m_page);
        m_memory->setStore(store);
        connect(m_memory, &MemoryPanel::timeActivated, view, [view](qint64 ns) {
            const qint64 half = (view->viewEnd() - view->viewStart()) / 2;
            view->setViewWindow(ns - half, ns + half);
        });
        m_page->addPanel(m_memory, tr("Memory"));
    } else {
        // A second profile: align its first step with layer 0's on the shared axis.
        const auto& first = layers.front().stepMarkers;
        const auto& mine = layers.back().stepMarkers;
        if (!first.empty() && !mine.empty())
            view->alignLayer(added, mine.front(), 0, first.front());
    }
    rebuildDiffChoices();
}

void TimelineAnalysis::rebuildDiffChoices() {
    const auto& layers = m_page->view()->layers();
    std::vector<Side> sides;
    QStringList labels;
    for (int l = 0; l < int(layers.size()); ++l) {
        const auto& layer = layers[std::size_t(l)];
        sides.push_back({l, {}});
        labels << layer.title;
        const std::size_t n = std::min(layer.stepMarkers.size(), kMaxStepChoices);
        for (std::size_t k = 0; k < n; ++k) {
            const auto name = layer.store->str(layer.store->sliceName()[layer.stepMarkers[k]]);
            sides.push_back({l, QString::fromUtf8(name.data(), qsizetype(name.size()))});
            labels << QStringLiteral("%1: %2").arg(layer.title, sides.back().step);
        }
    }
    // Something to compare: two layers, or two steps of one.
    if (sides.size() < 3 && layers.size() < 2) return;

    if (!m_diff) {
        auto* box = new QWidget(m_page);
        auto* v = new QVBoxLayout(box);
        v->setContentsMargins(0, 0, 0, 0);
        auto* row = new QHBoxLayout;
        m_diffA = new QComboBox(box);
        m_diffB = new QComboBox(box);
        for (QComboBox* c : {m_diffA, m_diffB})
            c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        row->addWidget(new QLabel(tr("Baseline"), box));
        row->addWidget(m_diffA);
        row->addWidget(new QLabel(tr("Candidate"), box));
        row->addWidget(m_diffB);
        row->addStretch(1);
        v->addLayout(row);
        m_diff = new OpSummaryDiffPanel(box);
        v->addWidget(m_diff, 1);
        connect(m_diff, &OpSummaryDiffPanel::nameActivated, this, [this](const QString& name) {
            TimelineView* view = m_page->view();
            const auto id = view->layers().front().store->strings().find(name.toStdString());
            if (id != timeline::StringTable::kNotFound) view->highlightName(0, id);
        });
        for (QComboBox* c : {m_diffA, m_diffB})
            connect(c, &QComboBox::currentIndexChanged, this, [this] { applyDiff(); });
        m_page->addPanel(box, tr("Trace diff"));
    }

    // Defaults: layer 0 against the newest layer, else the first two steps of layer 0.
    const int a = 0;
    int b = 1;
    if (layers.size() > 1)
        for (int i = 0; i < int(sides.size()); ++i)
            if (sides[std::size_t(i)].layer == int(layers.size()) - 1 &&
                sides[std::size_t(i)].step.isEmpty())
                b = i;
    const int stepA = layers.size() > 1 ? a : 1, stepB = layers.size() > 1 ? b : 2;
    m_sides = std::move(sides);
    for (QComboBox* c : {m_diffA, m_diffB}) {
        const QSignalBlocker block(c);
        c->clear();
        c->addItems(labels);
        c->setCurrentIndex(c == m_diffA ? stepA : stepB);
    }
    applyDiff();
}

void TimelineAnalysis::applyDiff() {
    const int ia = m_diffA->currentIndex(), ib = m_diffB->currentIndex();
    if (ia < 0 || ib < 0 || ia >= int(m_sides.size()) || ib >= int(m_sides.size())) return;
    const Side& a = m_sides[std::size_t(ia)];
    const Side& b = m_sides[std::size_t(ib)];
    const auto& layers = m_page->view()->layers();
    const auto storeA = layers[std::size_t(a.layer)].store;
    const auto storeB = layers[std::size_t(b.layer)].store;
    m_diff->setLabels(m_diffA->currentText(), m_diffB->currentText());
    if (!a.step.isEmpty() && !b.step.isEmpty()) {
        m_diff->setSteps(storeA, a.step, storeB, b.step);
        return;
    }
    auto window = [](const timeline::TraceStore& s, const QString& step) {
        if (step.isEmpty()) return timeline::TimeWindow{};
        return timeline::findStepWindow(s, step.toStdString()).value_or(timeline::TimeWindow{});
    };
    m_diff->setStores(storeA, storeB, window(*storeA, a.step), window(*storeB, b.step));
}

} // namespace xt::widgets
