#include "widgets/export_dialog.h"

#include "core/analysis/cpu_backend.h"
#include "core/export/atomic_file.h"
#include "core/export/stats_csv.h"
#include "widgets/run_browser_model.h"
#include "widgets/text_format.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QVBoxLayout>
#include <mutex>
#include <regex>

namespace xt::widgets {

Result<std::uint64_t> writeStatsCsv(const LoadedRun& loaded, const std::string& path,
                                    const ProgressCallback& progress) {
    // A run still being summarised gets every key's statistics first.
    RunSnapshot completed;
    if (!loaded.complete) {
        CompleteResult c = completeRun(std::make_shared<const LoadedRun>(loaded),
                                       summary::StoreOptions{}, progress);
        if (!c.after) return c.status;
        completed = c.after;
    }
    const LoadedRun& run = completed ? *completed : loaded;
    XT_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(path));
    std::uint64_t total = 0, rows = 0;
    for (const auto& k : run.keys)
        total += k.records;
    std::string buf;
    appendStatsCsvHeader(buf);
    auto write = [&](const analysis::KeySeries& s) -> Status {
        for (const auto& r : s.records) {
            appendStatsCsvRow(buf, s.rank, s.key, r);
            ++rows;
            if (buf.size() > (1u << 20)) {
                file.write(buf);
                buf.clear();
                if (!reportProgress(progress, rows, total, "writing CSV"))
                    return Status(ErrorCode::Cancelled, "export cancelled"); // temp file removed
            }
        }
        return Status::ok();
    };
    if (!run.seriesOnDemand) {
        for (const auto& s : run.series)
            XT_RETURN_IF_ERROR(write(s));
    } else { // one (rank, key) at a time from the summaries: the run's series are not held
        analysis::CpuBackend cpu(1);
        for (const auto& rank : run.reader->ranks())
            for (const auto& key : rank.keys()) {
                analysis::KeyStatsOptions o;
                o.rank = rank.rank();
                o.keyFilter = [&key](std::string_view k) { return k == key; };
                o.summaries = run.summaries.get();
                Diagnostics reported; // the open reported them
                XT_ASSIGN_OR_RETURN(auto series,
                                    analysis::computeKeyStats(*run.reader, cpu, o, reported));
                for (const auto& s : series)
                    XT_RETURN_IF_ERROR(write(s));
            }
    }
    file.write(buf);
    XT_RETURN_IF_ERROR(file.commit());
    reportProgress(progress, total, total, "writing CSV");
    return rows;
}

namespace {

struct Hdf5JobResult {
    std::optional<Hdf5ExportReport> report;
    QString error;
    std::size_t diagnostics = 0;
};

std::optional<std::int64_t> stepOf(const QLineEdit* e, bool* ok) {
    *ok = true;
    const QString t = e->text().trimmed();
    if (t.isEmpty()) return std::nullopt;
    const qlonglong v = t.toLongLong(ok);
    return *ok ? std::optional<std::int64_t>(v) : std::nullopt;
}

} // namespace

Hdf5ExportDialog::Hdf5ExportDialog(RunSnapshot run, QWidget* parent)
    : QDialog(parent), m_run(std::move(run)), m_jobs(new JobTracker(this)),
      m_output(new QLineEdit(this)), m_keys(new QLineEdit(this)), m_keyCount(new QLabel(this)),
      m_first(new QLineEdit(this)), m_last(new QLineEdit(this)), m_deflate(new QSpinBox(this)),
      m_progress(new ProgressStrip(tr("planning export 100%"), 0, this)),
      m_message(new QLabel(this)) {
    setWindowTitle(tr("Export to HDF5"));
    setMinimumWidth(560);
    auto* browse = new QPushButton(tr("Browse..."), this);
    auto* out = new QHBoxLayout;
    out->addWidget(m_output, 1);
    out->addWidget(browse);
    m_keys->setPlaceholderText(tr("every key (ECMAScript regex, searched in the key)"));
    m_keys->setClearButtonEnabled(true);
    auto* steps = new QHBoxLayout;
    const auto* integer =
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("-?[0-9]{0,19}")), this);
    for (QLineEdit* e : {m_first, m_last})
        e->setValidator(integer);
    m_first->setPlaceholderText(tr("first"));
    m_last->setPlaceholderText(tr("last"));
    steps->addWidget(m_first);
    steps->addWidget(new QLabel(tr("to"), this));
    steps->addWidget(m_last);
    m_deflate->setRange(0, 9);
    m_deflate->setToolTip(tr("0: no compression; 1-9: gzip level"));
    auto* form = new QFormLayout;
    form->addRow(tr("Run"),
                 new QLabel(m_run ? runIdentity(*m_run).toHtmlEscaped() : tr("(none)"), this));
    form->addRow(tr("Output file"), out);
    form->addRow(tr("Keys"), m_keys);
    form->addRow(QString(), m_keyCount);
    form->addRow(tr("Global steps"), steps);
    form->addRow(tr("Deflate level"), m_deflate);
    m_progress->hide();
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(this);
    m_start = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(tr("Cancel"), QDialogButtonBox::RejectRole);
    m_start->setDefault(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_message);
    layout->addStretch(1);
    layout->addWidget(buttons);

    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export to HDF5"), m_output->text(), tr("HDF5 file (*.h5 *.hdf5)"));
        if (!path.isEmpty()) m_output->setText(path);
    });
    connect(m_keys, &QLineEdit::textChanged, this, &Hdf5ExportDialog::updateKeyCount);
    connect(m_start, &QPushButton::clicked, this, &Hdf5ExportDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &Hdf5ExportDialog::reject);
    m_progressTimer.setInterval(50);
    connect(&m_progressTimer, &QTimer::timeout, this, &Hdf5ExportDialog::updateProgress);
    connect(m_jobs, &JobTracker::runningChanged, this, [this](bool running) {
        m_progress->setVisible(running || m_progress->bar()->value() > 0);
        m_start->setEnabled(!running);
        m_cancel->setText(running ? tr("Cancel") : tr("Close"));
        if (running)
            m_progressTimer.start();
        else
            m_progressTimer.stop();
    });
    updateKeyCount();
}

void Hdf5ExportDialog::setOutputPath(const QString& path) {
    m_output->setText(path);
}
void Hdf5ExportDialog::setKeyRegex(const QString& regex) {
    m_keys->setText(regex);
}
void Hdf5ExportDialog::setGstepRange(std::optional<std::int64_t> first,
                                     std::optional<std::int64_t> last) {
    m_first->setText(first ? QString::number(*first) : QString());
    m_last->setText(last ? QString::number(*last) : QString());
}
void Hdf5ExportDialog::setDeflateLevel(int level) {
    m_deflate->setValue(level);
}

QString Hdf5ExportDialog::keyCountText() const {
    return m_keyCount->text();
}

void Hdf5ExportDialog::updateKeyCount() {
    // The exporter's own semantics: std::regex ECMAScript, searched anywhere in the key.
    const std::string pattern = m_keys->text().toStdString();
    m_matching = 0;
    if (!m_run) {
        m_keyCount->setText(tr("no run"));
        return;
    }
    if (pattern.empty()) {
        m_matching = totalKeys();
    } else {
        try {
            const std::regex re(pattern, std::regex::ECMAScript);
            for (const auto& k : m_run->keys)
                m_matching += std::regex_search(k.key, re) ? 1 : 0;
        } catch (const std::regex_error& e) {
            m_matching = -1;
            m_keyCount->setStyleSheet(QStringLiteral("QLabel { color: #d03030; }"));
            m_keyCount->setText(tr("invalid pattern: %1").arg(QString::fromUtf8(e.what())));
            m_start->setEnabled(false);
            return;
        }
    }
    m_keyCount->setStyleSheet(m_matching == 0 ? QStringLiteral("QLabel { color: #d03030; }")
                                              : QString());
    m_keyCount->setText(tr("%1 of %2 keys match").arg(m_matching).arg(totalKeys()));
    m_start->setEnabled(!m_jobs->isRunning());
}

void Hdf5ExportDialog::showError(const QString& error) {
    m_error = error;
    m_message->setStyleSheet(QStringLiteral("QLabel { color: #d03030; }"));
    m_message->setText(error);
}

bool Hdf5ExportDialog::start() {
    if (m_jobs->isRunning()) return false;
    m_error.clear();
    m_report.reset();
    bool okFirst = false, okLast = false;
    const auto first = stepOf(m_first, &okFirst);
    const auto last = stepOf(m_last, &okLast);
    const QString out = m_output->text().trimmed();
    if (!m_run) {
        showError(tr("No run is open."));
        return false;
    }
    if (out.isEmpty()) {
        showError(tr("Choose an output file."));
        return false;
    }
    if (QFileInfo(out).isDir()) {
        showError(tr("'%1' is a directory.").arg(out));
        return false;
    }
    if (!QFileInfo(QFileInfo(out).absolutePath()).isDir()) {
        showError(tr("The folder %1 does not exist.").arg(QFileInfo(out).absolutePath()));
        return false;
    }
    if (m_matching < 0) {
        showError(tr("The key pattern is not a valid regular expression."));
        return false;
    }
    if (m_matching == 0) {
        showError(tr("No key matches the pattern."));
        return false;
    }
    if (!okFirst || !okLast || (first && last && *first > *last)) {
        showError(tr("The global step range is not valid."));
        return false;
    }
    Hdf5ExportOptions options;
    options.keyRegex = m_keys->text().toStdString();
    options.gstepFirst = first;
    options.gstepLast = last;
    options.deflateLevel = m_deflate->value();
    m_message->setStyleSheet({});
    m_message->setText(tr("Exporting..."));
    m_progress->reset();
    m_jobs->startJob(
        [run = m_run, path = out.toStdString(), options](JobContext& ctx) {
            Hdf5JobResult r;
            Diagnostics diag;
            // The HDF5 library is not thread-safe: a cancelled export may still be winding down.
            static std::mutex hdf5Mutex;
            const std::lock_guard lock(hdf5Mutex);
            auto report = exportHdf5(*run->reader, path, options, diag, ctx.callback());
            r.diagnostics = diag.total();
            if (report.isOk())
                r.report = *report;
            else
                r.error = QString::fromStdString(report.status().toString());
            return r;
        },
        [this, out](Hdf5JobResult r) {
            m_progress->reset(r.report.has_value());
            if (!r.report) {
                showError(tr("Export failed: %1").arg(r.error));
                emit exportFinished(false);
                return;
            }
            m_report = r.report;
            m_message->setStyleSheet({});
            QString text = tr("Wrote %1: %2 key groups, %3 rows, %4 of values")
                               .arg(out)
                               .arg(r.report->keys)
                               .arg(r.report->rows)
                               .arg(formatBytes(r.report->valueBytes));
            if (r.diagnostics)
                text += tr(" (%n diagnostic(s) while reading)", nullptr, int(r.diagnostics));
            m_message->setText(text);
            emit exportFinished(true);
        });
    return true;
}

void Hdf5ExportDialog::cancel() {
    if (!m_jobs->isRunning()) return;
    m_jobs->cancel(); // the exporter stops at its next progress report and removes its file
    m_progress->reset();
    m_message->setStyleSheet({});
    m_message->setText(tr("Export cancelled; nothing was written."));
}

void Hdf5ExportDialog::reject() {
    if (m_jobs->isRunning()) {
        cancel();
        return;
    }
    QDialog::reject();
}

void Hdf5ExportDialog::updateProgress() {
    auto ctx = m_jobs->current();
    if (!ctx) return;
    // Before the exporter knows its total, the bar stays where it is.
    if (const auto total = ctx->total.load(); total > 0)
        m_progress->setProgress(ctx->done.load(), total, ctx->stage());
}

} // namespace xt::widgets
