#include "python/bindings/py_timeline.h"

#include "core/timeline/chrome_trace_reader.h"
#include "core/timeline/op_summary.h"
#include "core/timeline/step_breakdown.h"
#include "python/bindings/numpy_columns.h"
#include "python/bindings/py_errors.h"

#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <string>

namespace xt::py {

namespace pyb = pybind11;
using namespace pybind11::literals;
using namespace xt::timeline;

namespace {

// Microseconds as the CSVs print them (exact for integer nanoseconds below 2^53).
double micros(std::int64_t ns) {
    return static_cast<double>(ns) / 1000.0;
}

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class PyTimeline {
public:
    explicit PyTimeline(const std::string& path) : m_path(path) {
        // The TensorFlow RunMetadata / StepStats reader needs the protobuf runtime, which this
        // module does not load (it would clash with TensorFlow's or python3-protobuf's).
        if (endsWith(path, ".pb") || endsWith(path, ".pbtxt"))
            raise(Status(ErrorCode::Unsupported,
                         path + ": TensorFlow RunMetadata/StepStats files are read by `xtrace "
                                "timeline` and the viewer, not by the Python module (it loads no "
                                "protobuf runtime); export a Chrome trace instead"));
        Result<TraceStore> store = Status(ErrorCode::Internal, "not run");
        {
            pyb::gil_scoped_release nogil;
            store = importChromeTrace(path);
        }
        m_store = std::make_unique<TraceStore>(take(std::move(store)));
    }

    const std::string& path() const { return m_path; }

    pyb::dict report() const {
        const ImportReport& r = m_store->report();
        pyb::dict phases;
        for (const auto& [ph, n] : r.phases)
            phases[pyb::str(ph)] = n;
        pyb::dict warnings;
        for (const auto& [code, n] : r.diagnostics.countsByCode())
            warnings[pyb::str(code)] = n;
        const std::int64_t span =
            m_store->beginTime() == kNoTime ? 0 : m_store->endTime() - m_store->beginTime();
        return pyb::dict(
            "events"_a = r.events, "phases"_a = phases, "processes"_a = m_store->processes().size(),
            "threads"_a = m_store->threads().size(), "flows"_a = m_store->flows().size(),
            "counters"_a = m_store->counters().size(), "span_us"_a = micros(span),
            "warnings"_a = warnings, "diagnostics"_a = diagnosticTexts(r.diagnostics));
    }

    // name[, category], count, total_us, self_us, avg_us, min_us, max_us: `xtrace timeline --csv`
    // (every op of every track, by total time descending); avg_us rounded to the nanosecond.
    pyb::dict opSummary(bool byCategory) const {
        OpSummaryOptions o;
        o.byCategory = byCategory;
        std::vector<OpStat> rows;
        {
            pyb::gil_scoped_release nogil;
            rows = timeline::opSummary(*m_store, o);
        }
        pyb::list names, cats;
        std::vector<std::int64_t> count;
        std::vector<double> total, self, avg, min, max;
        for (const OpStat& r : rows) {
            names.append(std::string(m_store->str(r.name)));
            if (byCategory) cats.append(std::string(m_store->str(r.cat)));
            count.push_back(static_cast<std::int64_t>(r.count));
            total.push_back(micros(r.totalNs));
            self.push_back(micros(r.selfNs));
            avg.push_back(micros(static_cast<std::int64_t>(std::llround(r.avgNs()))));
            min.push_back(micros(r.minNs));
            max.push_back(micros(r.maxNs));
        }
        pyb::dict d;
        d["name"] = names;
        if (byCategory) d["category"] = cats;
        d["count"] = toArray(std::move(count));
        d["total_us"] = toArray(std::move(total));
        d["self_us"] = toArray(std::move(self));
        d["avg_us"] = toArray(std::move(avg));
        d["min_us"] = toArray(std::move(min));
        d["max_us"] = toArray(std::move(max));
        return d;
    }

    // `xtrace timeline --steps-csv`: name, start_us, dur_us, bottleneck, then <category>_us.
    pyb::dict stepBreakdown(const std::string& markerPrefix) const {
        StepOptions o;
        o.markerPrefix = markerPrefix;
        std::vector<StepBreakdown> steps;
        {
            pyb::gil_scoped_release nogil;
            steps = timeline::stepBreakdown(*m_store, o);
        }
        pyb::list names, bottleneck;
        std::vector<double> start, dur;
        std::vector<std::vector<double>> cat(kStepCategoryCount);
        for (const StepBreakdown& s : steps) {
            names.append(s.name);
            bottleneck.append(stepCategoryName(s.bottleneck));
            start.push_back(micros(s.start));
            dur.push_back(micros(s.end - s.start));
            for (std::size_t c = 0; c < kStepCategoryCount; ++c)
                cat[c].push_back(micros(s.ns[c]));
        }
        pyb::dict d;
        d["name"] = names;
        d["start_us"] = toArray(std::move(start));
        d["dur_us"] = toArray(std::move(dur));
        d["bottleneck"] = bottleneck;
        for (std::size_t c = 0; c < kStepCategoryCount; ++c)
            d[pyb::str(std::string(stepCategoryName(static_cast<StepCategory>(c))) + "_us")] =
                toArray(std::move(cat[c]));
        return d;
    }

private:
    std::string m_path;
    std::unique_ptr<TraceStore> m_store;
};

} // namespace

void bindTimeline(pyb::module_& m) {
    pyb::class_<PyTimeline, std::shared_ptr<PyTimeline>>(m, "Timeline")
        .def(pyb::init<const std::string&>(), "path"_a)
        .def_property_readonly("path", &PyTimeline::path)
        .def("report", &PyTimeline::report)
        .def("op_summary", &PyTimeline::opSummary, "by_category"_a = false)
        .def("step_breakdown", &PyTimeline::stepBreakdown, "marker_prefix"_a = "ProfilerStep#");
}

} // namespace xt::py
