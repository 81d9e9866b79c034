#include "widgets/axis_ticks.h"

#include <QFontMetricsF>
#include <algorithm>
#include <qcustomplot.h>

namespace xt::widgets {

namespace {

constexpr int kMaxTicks = 12;
constexpr int kMaxPasses = 24;
constexpr int kMaxPrecision = 15;
// The number precision an axis had before fitTicks first saw it.
constexpr const char* kBasePrecision = "xtBasePrecision";

bool isHorizontal(const QCPAxis* a) {
    return a->orientation() == Qt::Horizontal;
}

// The size QCustomPlot gives a tick label: "1.5e+06" with beautiful powers is "1.5·10" and a
// smaller "6" (QCPAxisPainterPrivate::getTickLabelData).
QSizeF labelSize(const QCPAxis* axis, const QString& text) {
    const QFont font = axis->tickLabelFont();
    const QFontMetricsF fm(font);
    const int e = text.indexOf(QLatin1Char('e'));
    if (!axis->numberFormat().contains(QLatin1Char('b')) || e <= 0 || !text.at(e - 1).isDigit())
        return fm.boundingRect(QRectF(), Qt::TextDontClip | Qt::AlignHCenter, text).size();
    QString exponent = text.mid(e + 1);
    while (exponent.size() > 2 && exponent.at(1) == QLatin1Char('0'))
        exponent.remove(1, 1);
    if (exponent.startsWith(QLatin1Char('+'))) exponent.remove(0, 1);
    QFont small = font;
    if (small.pointSizeF() > 0)
        small.setPointSizeF(small.pointSizeF() * 0.75);
    else
        small.setPixelSize(int(small.pixelSize() * 0.75));
    const QSizeF base = fm.boundingRect(text.left(e) + QChar(183) + QStringLiteral("10")).size();
    const QSizeF exp = QFontMetricsF(small).boundingRect(exponent).size();
    return {base.width() + exp.width() + 2, base.height()};
}

// Whether two neighbouring labels are closer than a gap (half a character across, a fifth of
// a line up).
bool crowded(const QCPAxis* axis) {
    const QVector<QRectF> rects = tickLabelRects(axis);
    const QFontMetricsF fm(axis->tickLabelFont());
    const bool h = isHorizontal(axis);
    const double gap = h ? fm.averageCharWidth() * 0.5 : fm.height() * 0.2;
    for (int i = 1; i < rects.size(); ++i) {
        const QRectF& a = rects[i - 1];
        const QRectF& b = rects[i];
        const double apart = h ? std::max(b.left() - a.right(), a.left() - b.right())
                               : std::max(b.top() - a.bottom(), a.top() - b.bottom());
        if (apart < gap) return true;
    }
    return false;
}

// Whether two neighbouring tick labels read the same: a range narrower than the labels' digits
// (0.2499999, 0.25 and 0.2500001 all read "0.25").
bool repeated(const QCPAxis* axis) {
    const QVector<QString> labels = axis->tickVectorLabels();
    for (int i = 1; i < labels.size(); ++i)
        if (labels[i] == labels[i - 1]) return true;
    return false;
}

// Whether the labels are numbers written with the axis' number precision.
bool numeric(QCPAxis* axis) {
    return !qSharedPointerDynamicCast<QCPAxisTickerDateTime>(axis->ticker()) &&
           !qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker()) &&
           !qSharedPointerDynamicCast<QCPAxisTickerTime>(axis->ticker());
}

int mostTicks(const QCPAxis* axis) {
    const QFontMetricsF fm(axis->tickLabelFont());
    const QRect r = axis->axisRect()->rect();
    const double n = isHorizontal(axis) ? r.width() / (fm.averageCharWidth() * 10)
                                        : r.height() / (fm.height() * 2.5);
    return std::clamp(int(n), 2, kMaxTicks);
}

QList<QCPAxis*> labelledAxes(QCustomPlot* plot) {
    QList<QCPAxis*> out;
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
        QList<QCPAxis*> axes;
        if (auto* rect = qobject_cast<QCPAxisRect*>(e))
            axes = rect->axes();
        else if (auto* scale = qobject_cast<QCPColorScale*>(e))
            axes = {scale->axis()};
        for (QCPAxis* a : axes)
            if (a->visible() && a->tickLabels() && a->ticker() && !out.contains(a)) out << a;
    }
    return out;
}

void fitTicks(QCustomPlot* plot) {
    const QList<QCPAxis*> axes = labelledAxes(plot);
    if (axes.isEmpty()) return;
    QCPLayoutGrid* layout = plot->plotLayout();
    for (QCPAxis* a : axes) {
        a->ticker()->setTickCount(mostTicks(a));
        const QVariant base = a->property(kBasePrecision);
        if (base.isValid())
            a->setNumberPrecision(base.toInt());
        else
            a->setProperty(kBasePrecision, a->numberPrecision());
    }
    layout->update(QCPLayoutElement::upPreparation); // regenerates every axis' ticks
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        bool changed = false;
        for (QCPAxis* a : axes) {
            if (numeric(a) && a->numberPrecision() < kMaxPrecision && repeated(a)) {
                a->setNumberPrecision(a->numberPrecision() + 1); // a digit more
                changed = true;
            } else if (a->ticker()->tickCount() > 1 && crowded(a)) {
                a->ticker()->setTickCount(a->ticker()->tickCount() - 1);
                changed = true;
            }
        }
        if (!changed) break;
        layout->update(QCPLayoutElement::upPreparation);
    }
    // The labels may have changed width: place the axis rects again.
    layout->update(QCPLayoutElement::upMargins);
    layout->update(QCPLayoutElement::upLayout);
}

} // namespace

QVector<QRectF> tickLabelRects(const QCPAxis* axis) {
    QVector<QRectF> out;
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const bool h = isHorizontal(axis);
    for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
        const QSizeF s = labelSize(axis, labels[i]);
        const double p = axis->coordToPixel(ticks[i]);
        out << (h ? QRectF(p - s.width() / 2, 0, s.width(), s.height())
                  : QRectF(0, p - s.height() / 2, s.width(), s.height()));
    }
    return out;
}

void adaptTicks(QCustomPlot* plot) {
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] { fitTicks(plot); });
}

} // namespace xt::widgets
