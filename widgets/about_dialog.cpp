#include "widgets/about_dialog.h"

#include "core/buildinfo/build_info.h"
#include "widgets/job_tracker.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace xt::widgets {

namespace {

// The components linked into the xtview binary and their licenses (SPDX identifiers).
const char* kLicenses = R"(<h3>Licenses</h3>
<p>xtview links the following libraries; their license terms apply to the binary as shipped.
Because QCustomPlot is licensed under the GPL, a distributed xtview binary is covered by the
GNU General Public License version 3. The recorder library (<tt>libxtrecorder.so</tt>) and
<tt>xtrace</tt> do not link QCustomPlot or Qt.</p>
<table cellspacing="4">
<tr><td><b>Qt 6</b> (Core, Gui, Widgets, Concurrent, Svg, PrintSupport)</td><td>LGPL-3.0-only or GPL-2.0-or-later</td></tr>
<tr><td><b>QCustomPlot</b> 2.1</td><td>GPL-3.0-or-later</td></tr>
<tr><td><b>protocol buffers</b></td><td>BSD-3-Clause</td></tr>
<tr><td><b>HDF5</b></td><td>BSD-3-Clause (HDF5 license)</td></tr>
<tr><td><b>simdjson</b></td><td>Apache-2.0</td></tr>
<tr><td><b>oneTBB</b></td><td>Apache-2.0</td></tr>
<tr><td><b>{fmt}</b></td><td>MIT</td></tr>
<tr><td><b>CLI11</b></td><td>BSD-3-Clause</td></tr>
<tr><td><b>libcurl</b></td><td>curl</td></tr>
<tr><td><b>zlib</b></td><td>Zlib</td></tr>
<tr><td><b>libzip</b></td><td>BSD-3-Clause</td></tr>
</table>
<p>The full license texts of the Debian packages are in <tt>/usr/share/doc/*/copyright</tt>.</p>)";

QTreeWidgetItem* addFact(QTreeWidget* tree, const QString& name, const QString& value) {
    return new QTreeWidgetItem(tree, {name, value});
}

} // namespace

AboutDialog::AboutDialog(QWidget* parent)
    : QDialog(parent), m_facts(new QTreeWidget(this)), m_probe(new JobTracker(this)) {
    setObjectName(QStringLiteral("AboutDialog"));
    setWindowTitle(tr("About xtview"));

    auto* icon = new QLabel(this);
    icon->setPixmap(QApplication::windowIcon().pixmap(64, 64));
    auto* title = new QLabel(
        tr("<h2>xtview %1</h2><p>Trace viewer and analyzer for deep-learning training: XDL "
           "tensor traces and Chrome-trace timelines.</p>")
            .arg(QString::fromUtf8(buildinfo::version())),
        this);
    title->setWordWrap(true);
    auto* header = new QHBoxLayout;
    header->addWidget(icon, 0, Qt::AlignTop);
    header->addWidget(title, 1);

    m_facts->setObjectName(QStringLiteral("buildFacts"));
    m_facts->setColumnCount(2);
    m_facts->setHeaderLabels({tr("Build"), tr("Value")});
    m_facts->setRootIsDecorated(false);
    for (const buildinfo::Fact& f : buildinfo::buildFacts())
        addFact(m_facts, QString::fromStdString(f.name), QString::fromStdString(f.value));
    addFact(m_facts, QStringLiteral("Qt (run time)"), QString::fromLatin1(qVersion()));
    addFact(m_facts, QStringLiteral("Qt platform"), QGuiApplication::platformName());
    m_cudaRow = addFact(m_facts, QStringLiteral("CUDA device"), tr("probing..."));
    m_facts->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);

    auto* licenses = new QTextBrowser(this);
    licenses->setObjectName(QStringLiteral("licenses"));
    licenses->setOpenExternalLinks(true);
    licenses->setHtml(QString::fromUtf8(kLicenses));

    auto* tabs = new QTabWidget(this);
    tabs->addTab(m_facts, tr("Build"));
    tabs->addTab(licenses, tr("Licenses"));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("&Copy build info"), QDialogButtonBox::ActionRole);
    connect(copy, &QPushButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(buildInfoText()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(tabs, 1);
    layout->addWidget(buttons);
    resize(560, 460);

    // Asking the CUDA driver can take a while (context creation): never on the GUI thread.
    m_probe->startJob([](JobContext&) { return buildinfo::cudaRuntimeStatus(); },
                      [this](const std::string& status) {
                          m_cudaRow->setText(1, QString::fromStdString(status));
                          m_cudaProbed = true;
                          emit cudaProbeFinished();
                      });
}

QString AboutDialog::buildInfoText() const {
    QString text = QStringLiteral("xtview %1\n").arg(QString::fromUtf8(buildinfo::version()));
    for (int i = 0; i < m_facts->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = m_facts->topLevelItem(i);
        text += QStringLiteral("%1: %2\n").arg(item->text(0), item->text(1));
    }
    return text;
}

void showAboutDialog(QWidget* parent) {
    AboutDialog dialog(parent);
    dialog.exec();
}

} // namespace xt::widgets
