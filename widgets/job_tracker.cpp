#include "widgets/job_tracker.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QPainter>
#include <QTimerEvent>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <utility>
#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace xt::widgets {

namespace {

// A pool that lives as long as the process, as the global pool does.
QThreadPool* newPool(const char* name) {
    auto* p = new QThreadPool;
    p->setObjectName(QString::fromLatin1(name));
    return p;
}

} // namespace

// Jobs still running when the application goes (their trackers cancelled them) end first: one
// running on would meet the statics it uses (the backend) destroyed.
QThreadPool* jobPool() {
    static QThreadPool* pool = [] {
        qAddPostRoutine([] { jobPool()->waitForDone(); });
        return newPool("xtview jobs");
    }();
    return pool;
}

QThreadPool* drawPool() {
    static QThreadPool* pool = [] {
        qAddPostRoutine([] { drawPool()->waitForDone(); });
        return newPool("xtview drawing");
    }();
    return pool;
}

void showProgress(QProgressBar* bar, std::uint64_t done, std::uint64_t total) {
    bar->setUpdatesEnabled(false); // no repaint() in setValue...
    if (total > 0) {
        bar->setRange(0, 1000);
        bar->setValue(int(double(done) / double(total) * 1000));
    } else {
        bar->setRange(0, 0);
    }
    bar->setUpdatesEnabled(true); // ...but an update(), painted with the rest of the window
}

namespace {
constexpr int kSlideSteps = 50; // a busy block's positions: two seconds from edge to edge
constexpr int kSlideMs = 40;
} // namespace

void FlatProgressBar::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QPalette& pal = palette();
    const QRect frame = rect();
    painter.fillRect(frame, pal.color(QPalette::Mid));
    const QRect inside = frame.adjusted(1, 1, -1, -1);
    painter.fillRect(inside, pal.color(QPalette::Base));
    const QColor fill = isEnabled() ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid);
    if (busy()) {
        // A block of a quarter of the width, entering at the left and leaving at the right.
        const int block = std::max(4, inside.width() / 4);
        const int travel = inside.width() + block;
        const int x = inside.left() - block + travel * m_phase / kSlideSteps;
        painter.fillRect(QRect(x, inside.top(), block, inside.height()).intersected(inside), fill);
        if (!m_slide.isActive()) m_slide.start(kSlideMs, this);
        return;
    }
    m_slide.stop();
    const double span = double(maximum()) - double(minimum());
    const double done = span > 0 ? std::clamp((double(value()) - minimum()) / span, 0.0, 1.0) : 0;
    const int width = int(std::lround(done * inside.width()));
    const QRect doneRect(inside.topLeft(), QSize(width, inside.height()));
    if (width > 0) painter.fillRect(doneRect, fill);
    if (!isTextVisible()) return;
    // The text in the highlighted text colour over the part done, in the text colour elsewhere.
    for (const auto& [clip, role] : {std::pair{doneRect, QPalette::HighlightedText},
                                     std::pair{inside.adjusted(width, 0, 0, 0), QPalette::Text}}) {
        if (clip.isEmpty()) continue;
        painter.setClipRect(clip);
        painter.setPen(pal.color(role));
        painter.drawText(inside, Qt::AlignCenter, text());
    }
}

void FlatProgressBar::timerEvent(QTimerEvent* event) {
    if (event->timerId() != m_slide.timerId()) return QProgressBar::timerEvent(event);
    if (!busy() || !isVisible()) {
        m_slide.stop(); // painting starts it again
        return;
    }
    m_phase = (m_phase + 1) % (kSlideSteps + 1);
    update();
}

ProgressStrip::ProgressStrip(const QString& widest, int barWidth, QWidget* parent)
    : QWidget(parent), m_label(new QLabel(this)), m_bar(new FlatProgressBar(this)) {
    m_label->setFixedSize(m_label->fontMetrics().horizontalAdvance(widest) + 8,
                          m_label->sizeHint().height());
    m_bar->setTextVisible(false);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    if (barWidth > 0) {
        m_bar->setFixedWidth(barWidth);
        layout->addWidget(m_bar);
        layout->addStretch(1);
    } else {
        layout->addWidget(m_bar, 1);
    }
    reset();
}

void ProgressStrip::setProgress(std::uint64_t done, std::uint64_t total, const QString& text) {
    showProgress(m_bar, done, total);
    QString shown = text;
    if (total > 0)
        shown = tr("%1 %2%")
                    .arg(text)
                    .arg(int(double(std::min(done, total)) / double(total) * 100))
                    .trimmed();
    if (shown != m_label->text()) m_label->setText(shown);
}

void ProgressStrip::reset(bool full) {
    m_bar->setRange(0, 1000);
    m_bar->setValue(full ? 1000 : 0);
    m_label->clear();
}

void ProgressStrip::setBusy() {
    m_bar->setRange(0, 0);
    m_label->clear();
}

void yieldToGui() {
#ifdef __linux__
    thread_local bool done = false;
    if (std::exchange(done, true)) return;
    const id_t self = id_t(::gettid());
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, self);
    if (errno == 0) (void)::setpriority(PRIO_PROCESS, self, std::min(19, nice + 10));
#endif
}

void JobTracker::cancel() {
    if (!m_current) return;
    m_current->cancelled.store(true);
    m_current.reset();
    ++m_jobId; // drops the result of the cancelled job
    emit runningChanged(false);
}

} // namespace xt::widgets
