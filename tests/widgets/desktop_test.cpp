// Desktop integration: Help > About shows the build facts of core/buildinfo plus the Qt run-time
// version and the CUDA probe's answer; the window icon comes from the compiled-in SVG; and the
// main window's settings are written atomically (a new file renamed over the old one, never
// rewritten in place), so a crash during a write cannot leave a truncated settings file.
#include "core/buildinfo/build_info.h"
#include "temp_dir.h"
#include "widgets/about_dialog.h"
#include "widgets/main_window.h"

#include "offscreen_app.h"
#include <QAction>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using xt::test::TempDir;
using xt::widgets::AboutDialog;
using xt::widgets::MainWindow;

QApplication& app() {
    return ::xt::test::offscreenApp();
}

ino_t inodeOf(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

QByteArray readAll(const std::string& path) {
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

TEST(AboutDialog, ShowsTheBuildFactsQtRunTimeAndTheCudaProbe) {
    app();
    AboutDialog dialog;
    QSignalSpy probed(&dialog, &AboutDialog::cudaProbeFinished);
    ASSERT_TRUE(dialog.cudaProbed() || probed.wait(30000));
    const QString text = dialog.buildInfoText();
    EXPECT_TRUE(text.startsWith(QStringLiteral("xtview %1\n").arg(xt::buildinfo::version())))
        << text.toStdString();
    const auto facts = xt::buildinfo::buildFacts();
    ASSERT_GE(facts.size(), 6u);
    for (const auto& f : facts)
        EXPECT_TRUE(text.contains(QString::fromStdString(f.name + ": " + f.value + "\n")))
            << f.name << " missing in\n"
            << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("Qt (run time): %1\n").arg(qVersion())));
    EXPECT_TRUE(text.contains(
        QString::fromStdString("CUDA device: " + xt::buildinfo::cudaRuntimeStatus() + "\n")))
        << text.toStdString();
    for (const char* name : {"git commit", "build type", "compiler", "protobuf", "HDF5", "simdjson",
                             "oneTBB", "CUDA backend"})
        EXPECT_TRUE(text.contains(QString::fromLatin1(name) + QStringLiteral(": ")))
            << name << " missing in\n"
            << text.toStdString();
    auto* licenses = dialog.findChild<QTextBrowser*>(QStringLiteral("licenses"));
    ASSERT_NE(licenses, nullptr);
    EXPECT_TRUE(licenses->toPlainText().contains(QStringLiteral("QCustomPlot")));
    EXPECT_TRUE(licenses->toPlainText().contains(QStringLiteral("GPL-3.0")));
}

TEST(AboutDialog, HelpMenuActionOpensIt) {
    app();
    TempDir dir;
    MainWindow window(QString::fromStdString(dir.file("settings.ini")));
    QAction* about = nullptr;
    for (QAction* a : window.menuBar()->findChildren<QAction*>())
        if (a->text() == QStringLiteral("&About xtview")) about = a;
    ASSERT_NE(about, nullptr);
    bool opened = false;
    // exec() is modal: close the dialog from the event loop it runs.
    QTimer::singleShot(0, &window, [&opened] {
        auto* d = qobject_cast<AboutDialog*>(QApplication::activeModalWidget());
        if (!d) {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* a = qobject_cast<AboutDialog*>(w); a && a->isVisible()) d = a;
        }
        opened = d != nullptr;
        if (d) d->reject();
    });
    about->trigger();
    EXPECT_TRUE(opened);
}

TEST(Settings, MainWindowWritesThemAtomically) {
    app();
    TempDir dir;
    const std::string file = dir.file("settings.ini");
    {
        QSettings s(QString::fromStdString(file), QSettings::IniFormat);
        s.setValue(QStringLiteral("export/dir"), QStringLiteral("/data/plots"));
        s.sync();
        ASSERT_EQ(s.status(), QSettings::NoError);
        EXPECT_TRUE(s.isAtomicSyncRequired()); // Qt's default: no in-place fallback
    }
    const QByteArray before = readAll(file);
    ASSERT_FALSE(before.isEmpty());
    // A second name for the old file: if the write went in place, it would change too.
    const std::string oldLink = dir.file("settings.before");
    ASSERT_EQ(::link(file.c_str(), oldLink.c_str()), 0);
    const ino_t inodeBefore = inodeOf(file);

    {
        MainWindow window(QString::fromStdString(file));
        window.resize(900, 700);
        window.show();
        window.close(); // saves geometry and dock state, then syncs
    }

    EXPECT_NE(inodeOf(file), inodeBefore) << "settings were rewritten in place";
    EXPECT_EQ(readAll(oldLink), before) << "the old settings file was modified";
    QSettings after(QString::fromStdString(file), QSettings::IniFormat);
    EXPECT_EQ(after.value(QStringLiteral("export/dir")).toString(), QStringLiteral("/data/plots"));
    EXPECT_FALSE(after.value(QStringLiteral("window/geometry")).toByteArray().isEmpty());
    // The dock layout of the welcome page, the kind of view shown (one per kind of tab).
    EXPECT_FALSE(after.value(QStringLiteral("layout/start")).toByteArray().isEmpty());
    // Nothing left behind: no temporary file, no lock file.
    const QStringList entries =
        QDir(QString::fromStdString(dir.str())).entryList(QDir::Files | QDir::Hidden);
    EXPECT_EQ(entries,
              QStringList({QStringLiteral("settings.before"), QStringLiteral("settings.ini")}))
        << entries.join(QLatin1Char(' ')).toStdString();
}

TEST(Settings, WritesFromTwoWindowsAreMergedNotLost) {
    app();
    TempDir dir;
    const QString file = QString::fromStdString(dir.file("settings.ini"));
    // Another xtview instance (its own QSettings object) records an export directory between
    // this window's start and its close; closing must not drop it.
    MainWindow window(file);
    window.show();
    {
        QSettings other(file, QSettings::IniFormat);
        other.setValue(QStringLiteral("export/dir"), QStringLiteral("/elsewhere"));
    }
    window.close();
    QSettings after(file, QSettings::IniFormat);
    EXPECT_EQ(after.value(QStringLiteral("export/dir")).toString(), QStringLiteral("/elsewhere"));
    EXPECT_FALSE(after.value(QStringLiteral("window/geometry")).toByteArray().isEmpty());
}

TEST(WindowIcon, ComesFromTheCompiledInSvg) {
    app();
    // The resource is compiled into xtview; this test links the same .qrc.
    QIcon icon(QStringLiteral(":/xtview/xtview.svg"));
    ASSERT_FALSE(icon.isNull());
    const QImage img = icon.pixmap(64, 64).toImage();
    ASSERT_EQ(img.width(), 64);
    // The rounded square is opaque in the middle and transparent in the corner.
    EXPECT_EQ(qAlpha(img.pixel(32, 8)), 255);
    EXPECT_EQ(qAlpha(img.pixel(0, 0)), 0);
}

} // namespace
