#pragma once
// Builds the traces of a distributed job from one real Kineto trace: N copies, each with its
// own distributedInfo.rank and clock offset (rank r's times + r x clockStepUs); one rank can get
// a delay inserted inside one step, at the end of a GPU event followed by a gap (so no GPU event
// runs then): everything from that moment on is later by the delay, and what runs across it
// (the step, the ops around) lasts longer by the delay. File names hold no rank number.

#include "core/timeline/trace_bytes.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace xt::test {

struct RankSetSpec {
    int ranks = 4;
    std::int64_t clockStepUs = 1000000;
    int delayedRank = -1;
    std::string delayedStep; // e.g. "ProfilerStep#18"
    std::int64_t delayUs = 0;
};

struct RankSet {
    std::vector<std::string> files; // by rank
    std::int64_t cutUs = -1;        // where the delay went, in the source's clock
    std::string error;
    bool ok() const { return error.empty(); }
};

inline RankSet writeRankSet(const std::string& source, const std::string& dir,
                            const RankSetSpec& spec) {
    namespace dom = simdjson::dom;
    RankSet out;
    auto bytes = timeline::TraceBytes::load(source, {}, std::uint64_t(8) << 30);
    if (!bytes) {
        out.error = bytes.status().toString();
        return out;
    }
    dom::parser parser;
    simdjson::padded_string text(bytes->text());
    dom::element root;
    dom::array events;
    if (parser.parse(text).get(root) || root["traceEvents"].get_array().get(events)) {
        out.error = "not a Kineto trace: " + source;
        return out;
    }
    auto str = [](dom::element e, const char* key) {
        std::string_view v;
        return e[key].get_string().get(v) ? std::string_view() : v;
    };
    auto num = [](dom::element e, const char* key, double& v) {
        return !e[key].get_double().get(v);
    };
    // The cut: the end of a GPU event inside the delayed step, followed by a gap.
    if (spec.delayedRank >= 0) {
        std::vector<std::pair<double, double>> gpu;
        double stepTs = 0, stepEnd = -1;
        for (dom::element e : events) {
            double ts = 0, dur = 0;
            if (str(e, "ph") != "X" || !num(e, "ts", ts)) continue;
            num(e, "dur", dur);
            const std::string_view cat = str(e, "cat");
            if (cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" ||
                cat == "gpu_memset" || cat == "Memset")
                gpu.emplace_back(ts, ts + dur);
            else if (str(e, "name") == spec.delayedStep && !cat.starts_with("gpu_"))
                stepTs = ts, stepEnd = ts + dur;
        }
        std::sort(gpu.begin(), gpu.end());
        double reach = -1e300; // latest end so far
        for (std::size_t i = 0; i + 1 < gpu.size() && out.cutUs < 0; ++i) {
            reach = std::max(reach, gpu[i].second);
            const double end = gpu[i].second;
            if (end == reach && end > stepTs && end < stepEnd && gpu[i + 1].first > end)
                out.cutUs = static_cast<std::int64_t>(end);
        }
        if (out.cutUs < 0) {
            out.error = "no GPU gap inside " + spec.delayedStep;
            return out;
        }
    }
    for (int r = 0; r < spec.ranks; ++r) {
        const bool delayed = r == spec.delayedRank;
        const std::string file = dir + "/host" + std::string(1, char('a' + r)) + ".json";
        std::ofstream f(file, std::ios::binary);
        f << R"({"distributedInfo":{"backend":"nccl","rank":)" << r << R"(,"world_size":)"
          << spec.ranks << R"(},"traceEvents":[)";
        bool firstEvent = true;
        char buf[64];
        for (dom::element e : events) {
            dom::object obj;
            if (e.get_object().get(obj)) continue;
            double ts = 0, dur = 0;
            const bool hasTs = num(e, "ts", ts);
            const bool hasDur = num(e, "dur", dur);
            const bool isX = str(e, "ph") == "X";
            f << (firstEvent ? "\n{" : ",\n{");
            firstEvent = false;
            bool firstField = true;
            for (auto [key, value] : obj) {
                f << (firstField ? "\"" : ",\"") << key << "\":";
                firstField = false;
                if (key == "ts" && hasTs) {
                    double t = ts;
                    if (delayed && ts >= double(out.cutUs)) t += double(spec.delayUs);
                    t += double(r) * double(spec.clockStepUs);
                    std::snprintf(buf, sizeof buf, t == double(std::int64_t(t)) ? "%.0f" : "%.3f",
                                  t);
                    f << buf;
                } else if (key == "dur" && hasDur && isX) {
                    double d = dur;
                    if (delayed && ts < double(out.cutUs) && ts + dur > double(out.cutUs))
                        d += double(spec.delayUs);
                    std::snprintf(buf, sizeof buf, d == double(std::int64_t(d)) ? "%.0f" : "%.3f",
                                  d);
                    f << buf;
                } else {
                    f << simdjson::to_string(value);
                }
            }
            f << '}';
        }
        f << "\n]}\n";
        if (!f) {
            out.error = "cannot write " + file;
            return out;
        }
        out.files.push_back(file);
    }
    return out;
}

} // namespace xt::test
