#pragma once
// Table columns sized to their content: each column as wide as its widest cell or its header.
// When the view is too narrow for all of them, the widest columns give way first: `stretchColumn`
// (the one with long free text: a key, a name, a message) down to 16 characters, the others
// down to 24 (short ones never), their text elided in the view's elide mode; past that the view
// scrolls. A cell whose text does not fit shows it whole as its tooltip (unless the model has
// one). Fitted again when rows change and when the view is resized; room to spare goes to
// `stretchColumn`.

#include <QList>

class QTableView;

namespace xt::widgets {

void fitColumnsToContents(QTableView* view, int stretchColumn);

// Widths for columns of `content` widths that must fit in `available` pixels: the content widths
// when they fit, else the widest cut to one common width but never below their `floor`.
QList<int> fittedColumnWidths(const QList<int>& content, const QList<int>& floor, int available);

} // namespace xt::widgets
