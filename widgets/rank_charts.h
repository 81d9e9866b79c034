#pragma once
// Charts of the Ranks panel, painted directly (no plot library):
//  * RankBarsChart: one horizontal stacked bar per rank, each normalised to 100% of its total
//    (e.g. idle / compute / non-compute of the GPU window), with a legend and the share in each
//    segment wide enough to hold it.
//  * RankHeatmap: ranks x steps, one cell per (rank, step) coloured from the smallest to the
//    largest value of the map, or (relative) by how far a cell is above its column's smallest,
//    so a straggler stands out whatever the step's length; a marked cell per column (e.g. the
//    step's slowest rank) is outlined; a click on a cell emits cellActivated.

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

namespace xt::widgets {

class RankBarsChart : public QWidget {
    Q_OBJECT
public:
    struct Series {
        QString name;
        QColor colour;
    };
    struct Bar {
        QString label;
        std::vector<double> values; // one per series, >= 0
    };

    explicit RankBarsChart(QWidget* parent = nullptr);
    void setData(const QString& title, std::vector<Series> series, std::vector<Bar> bars);
    const std::vector<Bar>& bars() const { return m_bars; }
    // The rectangle of bar `bar`'s segment `series` (empty when it has no width).
    QRectF segmentRect(int bar, int series) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;
    bool event(QEvent* e) override;

private:
    QRectF barArea(int bar) const;
    int legendLines() const;

    QString m_title;
    std::vector<Series> m_series;
    std::vector<Bar> m_bars;
};

class RankHeatmap : public QWidget {
    Q_OBJECT
public:
    explicit RankHeatmap(QWidget* parent = nullptr);
    // values[row][column] in nanoseconds; NaN where a rank has no such step.
    void setData(const QString& title, QStringList rows, QStringList columns,
                 std::vector<std::vector<double>> values, bool relative = false);
    // Per column, the row to outline (-1: none).
    void setMarked(std::vector<int> rowPerColumn);
    int rowCount() const { return int(m_rows.size()); }
    int columnCount() const { return int(m_columns.size()); }
    double value(int row, int column) const;
    QRect cellRect(int row, int column) const;
    QColor cellColour(int row, int column) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void cellActivated(int row, int column);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;

private:
    std::pair<int, int> cellAt(QPoint p) const;
    int labelWidth() const;
    int headerHeight() const;
    double cellWidth() const;
    int cellHeight() const;

    QString m_title;
    QStringList m_rows, m_columns;
    std::vector<std::vector<double>> m_values;
    std::vector<int> m_marked;
    bool m_relative = false;
    std::vector<double> m_columnMin;
    double m_min = 0, m_max = 0; // of the values, or (relative) of value - column minimum
};

} // namespace xt::widgets
