#pragma once
// The one QApplication of a GUI test executable, on the offscreen platform, created on first use.
// It is never destroyed, so Qt's post routines never run: the jobs a test left running (their
// trackers cancelled them) are waited for once all tests have run, before the statics they use
// are destroyed (a job thread that ran on into them read freed memory under ASan).

#include "widgets/job_tracker.h"

#include <QApplication>
#include <QThread>
#include <QThreadPool>
#include <gtest/gtest.h>

namespace xt::test {

class JobsDoneAtTheEnd : public ::testing::Environment {
public:
    void TearDown() override {
        // Not waitForDone(), which also ends the threads: what a library keeps for a thread
        // (OpenSSL's error state) is then unreachable, and LeakSanitizer reports it.
        for (QThreadPool* pool : {widgets::jobPool(), widgets::drawPool()})
            while (pool->activeThreadCount() > 0)
                QThread::msleep(1);
    }
};

inline QApplication& offscreenApp() {
    static int argc = 1;
    static char name[] = "xt_gui_test";
    static char* argv[] = {name, nullptr};
    static QApplication* a = [] {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        ::testing::AddGlobalTestEnvironment(new JobsDoneAtTheEnd);
        return new QApplication(argc, argv);
    }();
    return *a;
}

} // namespace xt::test
