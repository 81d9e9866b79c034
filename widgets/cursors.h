#pragma once
// The two measuring cursors of the plots and the timeline, A and B, and how they are drawn.

#include <QColor>

namespace xt::widgets {

enum class Cursor { A, B };

inline QColor cursorColour(Cursor c) {
    return c == Cursor::A ? QColor(0x20, 0x70, 0xd0) : QColor(0xc0, 0x30, 0x90);
}
inline const char* cursorName(Cursor c) {
    return c == Cursor::A ? "A" : "B";
}

} // namespace xt::widgets
