#pragma once
// The one QApplication of a GUI test executable, on the offscreen platform, created on first use.

#include <QApplication>

namespace xt::test {

inline QApplication& offscreenApp() {
    static int argc = 1;
    static char name[] = "xt_gui_test";
    static char* argv[] = {name, nullptr};
    static QApplication* a = [] {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return new QApplication(argc, argv);
    }();
    return *a;
}

} // namespace xt::test
