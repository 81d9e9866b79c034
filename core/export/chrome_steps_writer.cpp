#include "core/export/chrome_steps_writer.h"

#include "core/base/json_writer.h"
#include "core/export/atomic_file.h"

#include <limits>

namespace xt {

namespace {

// Milliseconds to microseconds, saturating for absurd (damaged) timestamps.
std::int64_t msToUs(std::int64_t ms) {
    std::int64_t us;
    if (__builtin_mul_overflow(ms, 1000, &us))
        return ms < 0 ? std::numeric_limits<std::int64_t>::min()
                      : std::numeric_limits<std::int64_t>::max();
    return us;
}

template <class V>
void metadataEvent(AtomicFile& out, int pid, const char* name, const char* key, const V& value,
                   bool& first) {
    JsonWriter w;
    w.beginObject().field("ph", "M").field("pid", pid).field("tid", 1).field("name", name);
    w.key("args").beginObject().field(key, value).endObject().endObject();
    out.write(first ? "\n" : ",\n");
    first = false;
    out.write(w.str());
}

} // namespace

Result<ChromeStepsReport> writeChromeSteps(const std::vector<xdl::RunReader>& runs,
                                           const std::string& outPath,
                                           const ProgressCallback& progress) {
    XT_ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::create(outPath));
    ChromeStepsReport report;
    std::uint64_t total = 0, done = 0;
    for (const auto& run : runs)
        for (const auto& rank : run.ranks())
            total += rank.recordCount();

    out.write(
        "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"xtview\"},\"traceEvents\":[");
    bool first = true;
    int pid = 0;
    for (const auto& run : runs) {
        for (const auto& rank : run.ranks()) {
            ++pid;
            metadataEvent(out, pid, "process_name", "name",
                          run.files().label() + " rank " + std::to_string(rank.rank()), first);
            metadataEvent(out, pid, "process_sort_index", "sort_index", pid, first);
            metadataEvent(out, pid, "thread_name", "name", "steps", first);
            for (std::size_t i = 0; i < rank.recordCount(); ++i, ++done) {
                if ((done & 0xfff) == 0 && !reportProgress(progress, done, total, "converting"))
                    return Status(ErrorCode::Cancelled, "conversion cancelled");
                const auto& e = rank.entry(i);
                const std::int64_t endUs = msToUs(e.timestamp); // exact integer microseconds
                const bool hasPrev = i > 0 && rank.entry(i - 1).timestamp <= e.timestamp;
                JsonWriter w;
                w.beginObject()
                    .field("name", "step " + std::to_string(e.gstep))
                    .field("cat", "xdl.step")
                    .field("pid", pid)
                    .field("tid", 1);
                if (hasPrev) {
                    const std::int64_t startUs = msToUs(rank.entry(i - 1).timestamp);
                    w.field("ph", "X").field("ts", startUs).field("dur", endUs - startUs);
                    ++report.steps;
                } else {
                    w.field("ph", "i").field("s", "t").field("ts", endUs);
                    ++report.instants;
                }
                const auto& part = *rank.parts()[rank.partOf(i)];
                w.key("args")
                    .beginObject()
                    .field("gstep", e.gstep)
                    .field("lstep", e.lstep)
                    .field("timestamp_ms", e.timestamp)
                    .field("record_bytes", static_cast<std::uint64_t>(e.length))
                    .field("part", part.part().displayPath());
                if (i > 0 && !hasPrev) w.field("note", "timestamp went backwards (restarted job?)");
                w.endObject().endObject();
                out.write(first ? "\n" : ",\n");
                first = false;
                out.write(w.str());

                JsonWriter c;
                c.beginObject()
                    .field("ph", "C")
                    .field("name", "record bytes")
                    .field("pid", pid)
                    .field("ts", endUs)
                    .key("args")
                    .beginObject()
                    .field("bytes", static_cast<std::uint64_t>(e.length))
                    .endObject()
                    .endObject();
                out.write(",\n");
                out.write(c.str());
            }
        }
    }
    out.write("\n]}\n");
    XT_RETURN_IF_ERROR(out.commit());
    reportProgress(progress, total, total, "converting");
    return report;
}

} // namespace xt
