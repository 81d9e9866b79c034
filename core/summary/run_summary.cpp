#include "core/summary/run_summary.h"

#include "core/base/diagnostic_codes.h"
#include "core/base/parallel_for.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <semaphore>

namespace xt::summary {

void RunSummaries::add(const std::string& partPath, std::shared_ptr<const PartSummary> s) {
    m_byPath[partPath] = std::move(s);
}

const PartSummary* RunSummaries::find(const xdl::PartReader& part) const {
    auto it = m_byPath.find(part.part().path);
    if (it == m_byPath.end()) return nullptr;
    const PartSummary& s = *it->second;
    const auto& records = part.index().records();
    if (s.records.size() != records.size()) return nullptr;
    if (!records.empty() && (s.records.back().offset != records.back().offset ||
                             s.records.front().offset != records.front().offset))
        return nullptr;
    return &s;
}

bool RunSummaries::covers(const xdl::RunReader& run) const {
    for (const auto& rank : run.ranks())
        for (const auto& part : rank.parts())
            if (!find(*part)) return false;
    return true;
}

Result<OpenedRun> openRun(const xdl::RunFiles& files, const StoreOptions& store, Diagnostics& diag,
                          const ProgressCallback& progress, const xdl::ReaderOptions& reader,
                          const ColumnTap& tap) {
    std::vector<const xdl::PartFile*> todo;
    std::uint64_t total = 0;
    for (const auto& r : files.ranks)
        for (const auto& p : r.parts) {
            todo.push_back(&p);
            total += p.size;
        }
    // Parts are opened four at a time, whatever the cores: a scan of a cold part mostly waits for
    // the disk (a cold 10 GB run of 1 MB records: 5.5 s one at a time, 3.6-4.1 s four, 2.3-3.6 s
    // eight), and each scan keeps up to 32 MB of a dense part mapped. Their summaries are checked
    // two at a time: a check passes every byte of its summary, and four at once held 200-300 MB
    // of file pages, the peak of re-opening 10 GB of 200 B records (~500 MB at two, in the same
    // time). Diagnostics are kept per part and merged in order.
    std::vector<Diagnostics> diags(todo.size());
    std::vector<std::shared_ptr<xdl::PartReader>> opened(todo.size());
    std::vector<std::shared_ptr<const PartSummary>> found(todo.size());
    std::vector<Status> failures(todo.size());
    std::vector<std::uint64_t> partDone(todo.size(), 0);
    std::mutex progressLock;
    std::uint64_t done = 0; // bytes of the parts, as far as each has come
    const auto advance = [&](std::size_t i, std::uint64_t to, std::string_view stage) {
        std::lock_guard lock(progressLock);
        done += to - std::min(to, partDone[i]);
        partDone[i] = std::max(partDone[i], to);
        return reportProgress(progress, done, total, stage);
    };
    constexpr int kOpenThreads = 4;
    std::counting_semaphore<kOpenThreads> checking(2);
    const bool finished = parallelFor(todo.size(), kOpenThreads, [&](std::size_t i) {
        const xdl::PartFile& p = *todo[i];
        const ProgressCallback partProgress = [&](const ProgressReport& rep) {
            return advance(i, rep.done, rep.stage);
        };
        checking.acquire();
        auto summary = findSummary(p, store, diags[i], tap);
        checking.release();
        auto part = summary ? xdl::PartReader::open(p, (*summary)->indexState(), diags[i],
                                                    partProgress, reader)
                            : xdl::PartReader::open(p, diags[i], partProgress, reader);
        if (!part) {
            failures[i] = part.status();
            return part.status().code() != ErrorCode::Cancelled;
        }
        opened[i] = std::move(*part);
        if (summary) found[i] = *summary;
        return advance(i, p.size, "opening");
    });
    if (!finished) return Status(ErrorCode::Cancelled, "opening " + files.label() + " cancelled");
    OpenedRun out;
    // Per rank: its parts' diagnostics in order, then what putting them together finds (a pass
    // over the rank's records, so ranks are put together several at a time).
    std::vector<std::vector<std::shared_ptr<xdl::PartReader>>> partsOf(files.ranks.size());
    std::vector<Diagnostics> rankDiags(files.ranks.size());
    std::size_t i = 0;
    for (std::size_t r = 0; r < files.ranks.size(); ++r)
        for (const auto& p : files.ranks[r].parts) {
            Diagnostics& rd = rankDiags[r];
            rd.merge(diags[i]);
            if (!opened[i]) {
                rd.add(codes::kUnreadablePart, p.displayPath(), Diagnostic::kNoOffset, -1,
                       failures[i].message());
            } else {
                if (found[i]) {
                    for (Diagnostic d : found[i]->indexDiagnostics) { // what its scan would report
                        d.file = p.path;
                        rd.add(std::move(d));
                    }
                    out.summaries.add(p.path, found[i]);
                }
                partsOf[r].push_back(std::move(opened[i]));
            }
            ++i;
        }
    std::vector<std::optional<xdl::RankReader>> made(files.ranks.size());
    parallelFor(made.size(), 0, [&](std::size_t r) {
        made[r].emplace(files.ranks[r].rank, std::move(partsOf[r]), rankDiags[r]);
        return true;
    });
    std::vector<xdl::RankReader> ranks;
    for (std::size_t r = 0; r < made.size(); ++r) {
        diag.merge(rankDiags[r]);
        ranks.push_back(std::move(*made[r]));
    }
    out.reader = xdl::RunReader::fromRanks(files, std::move(ranks));
    return out;
}

Status summarizeRun(const xdl::RunReader& run, RunSummaries& out, const StoreOptions& store,
                    Diagnostics& diag, const ProgressCallback& progress, int threads) {
    std::vector<const xdl::PartReader*> todo;
    std::uint64_t total = 0;
    for (const auto& rank : run.ranks())
        for (const auto& part : rank.parts())
            if (!out.find(*part)) {
                todo.push_back(part.get());
                total += part->part().size;
            }
    std::vector<Diagnostics> diags(todo.size());
    std::vector<std::shared_ptr<const PartSummary>> built(todo.size());
    std::vector<Status> failures(todo.size());
    std::mutex progressLock;
    std::uint64_t done = 0; // bytes of finished parts
    const bool finished = parallelFor(todo.size(), threads, [&](std::size_t i) {
        const xdl::PartReader& part = *todo[i];
        ProgressCallback partProgress = [&](const ProgressReport& r) {
            std::lock_guard lock(progressLock);
            return reportProgress(progress, done + r.done / 2, total, "summarizing");
        };
        auto loaded = loadOrBuildSummary(part.part(), store, diags[i], partProgress, &part);
        std::lock_guard lock(progressLock);
        done += part.part().size;
        if (!loaded) {
            failures[i] = loaded.status();
            return loaded.status().code() != ErrorCode::Cancelled;
        }
        built[i] = loaded->summary;
        return reportProgress(progress, done, total, "summarizing");
    });
    for (std::size_t i = 0; i < todo.size(); ++i) {
        diag.merge(diags[i]);
        if (built[i]) out.add(todo[i]->part().path, built[i]);
        if (!failures[i] && failures[i].code() != ErrorCode::Cancelled)
            diag.add(codes::kSummaryFailed, todo[i]->part().path, Diagnostic::kNoOffset, -1,
                     failures[i].message());
    }
    if (!finished) return Status(ErrorCode::Cancelled, "summarizing cancelled");
    return Status::ok();
}

std::optional<xdl::RunReader> rereadFromSummaries(const xdl::RunReader& run,
                                                  const RunSummaries& summaries,
                                                  const xdl::ReaderOptions& options) {
    bool inFiles = false;
    for (const auto& rank : run.ranks())
        for (const auto& part : rank.parts())
            if (const PartSummary* s = summaries.find(*part); s && s->records.file())
                inFiles = true;
    if (!inFiles) return std::nullopt;
    Diagnostics again; // reported when `run` was opened
    std::vector<xdl::RankReader> ranks;
    for (const auto& rank : run.ranks()) {
        std::vector<std::shared_ptr<xdl::PartReader>> parts;
        for (const auto& part : rank.parts()) {
            const PartSummary* s = summaries.find(*part);
            auto reader = xdl::PartReader::open(
                part->part(), s && s->records.file() ? s->indexState() : part->index().state(),
                again, {}, options);
            if (!reader || (*reader)->index().records().size() != part->index().records().size())
                return std::nullopt;
            parts.push_back(std::move(*reader));
        }
        ranks.emplace_back(rank.rank(), std::move(parts), again);
    }
    return xdl::RunReader::fromRanks(run.files(), std::move(ranks));
}

Result<std::vector<xdl::KeySummary>> summarizeKeys(const xdl::RunReader& run,
                                                   const RunSummaries& summaries, Diagnostics& diag,
                                                   const ProgressCallback& progress) {
    const xdl::PartReader* lastPart = nullptr;
    const PartSummary* s = nullptr;
    std::size_t released = 0; // the columns' pages are given back behind the pass
    // Without any summary, the records are decoded (on every core: no facts source).
    xdl::ColumnFactsSource facts;
    if (summaries.size())
        facts = [&](const xdl::PartReader& part, std::size_t record,
                    std::vector<xdl::ColumnFacts>& out) {
            if (&part != lastPart) {
                if (s) s->releaseBehind(s->recordCount(), released);
                lastPart = &part;
                s = summaries.find(part);
                released = 0;
            }
            if (s) s->releaseBehind(record, released);
            if (!s || s->isDamaged(record)) return false; // decoded: its message is reported
            const auto columns = s->columnsOf(record);
            out.resize(columns.size());
            for (std::size_t c = 0; c < columns.size(); ++c) {
                const ColumnSummary& col = columns[c];
                out[c] = {col.state == ColumnState::Damaged ? xdl::ColumnProblem(col.problem)
                                                            : xdl::ColumnProblem::None,
                          col.state == ColumnState::Empty, col.wireDtype, s->shapeOf(col),
                          col.dataLength};
            }
            return true;
        };
    auto keys =
        xdl::summarizeKeys(run, diag, progress, facts,
                           [&](const xdl::PartReader& part, std::vector<xdl::KeySummary>& out) {
                               // Counted when the summary was read or built; a part with damage is
                               // read record by record, so that each damaged column is reported
                               // where it is.
                               const PartSummary* p = summaries.find(part);
                               if (!p || !p->damagedRecords.empty()) return false;
                               out.assign(p->totals.size(), {});
                               for (std::size_t c = 0; c < p->totals.size(); ++c) {
                                   const ColumnTotals& t = p->totals[c];
                                   if (t.damaged) return false;
                                   out[c].records = t.data;
                                   out[c].emptyRecords = t.empty;
                                   if (!t.data) continue;
                                   out[c].dtype = xdl::Dtype(t.wireDtype);
                                   out[c].shape =
                                       t.shape == kNone ? xdl::Shape{} : p->shapes[t.shape];
                                   out[c].mixedDtypes = t.mixedDtypes;
                                   out[c].varyingShape = t.varyingShape;
                               }
                               return true;
                           });
    if (s) s->releaseBehind(s->recordCount(), released);
    return keys;
}

} // namespace xt::summary
