#pragma once
// A digest of everything a TraceStore holds, for tests that pin an import exactly: counts and
// sums to read, plus one hash over every table with strings by value (not by id), so that two
// stores compare equal only when they hold the same slices, tracks, flows, instants, counters,
// objects and args text in the same order.

#include "core/timeline/trace_store.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace xt::timeline::test {

struct StoreDigest {
    std::uint64_t slices = 0, flows = 0, counters = 0, instants = 0, objects = 0, tracks = 0;
    std::int64_t durationSum = 0; // ns, all slices
    std::uint64_t depthSum = 0;   // a depth histogram in one number: sum of depth^2
    std::uint64_t storeHash = 0;  // every table (args as text, not offsets)
    std::uint64_t reportHash = 0; // events, phases and every stored diagnostic, located
};

class Fnv {
public:
    void bytes(const void* p, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i)
            m_h = (m_h ^ b[i]) * 0x100000001b3ull;
    }
    template <class T> void pod(T v) { bytes(&v, sizeof v); }
    void str(std::string_view s) {
        pod(s.size());
        bytes(s.data(), s.size());
    }
    std::uint64_t value() const { return m_h; }

private:
    std::uint64_t m_h = 0xcbf29ce484222325ull;
};

inline std::uint64_t hashStore(const TraceStore& st) {
    Fnv h;
    auto s = [&](StringId id) { h.str(st.str(id)); };
    for (const Process& p : st.processes()) {
        s(p.pid), s(p.name), s(p.labels);
        h.pod(p.sortIndex);
    }
    for (const Thread& t : st.threads()) {
        h.pod(t.process), s(t.tid), s(t.name);
        h.pod(t.sortIndex);
    }
    for (const Track& t : st.tracks()) {
        h.pod(static_cast<int>(t.kind)), h.pod(t.process), h.pod(t.thread), s(t.name);
        h.pod(t.sliceBegin), h.pod(t.sliceEnd), h.pod(t.maxDepth);
    }
    for (std::uint32_t i = 0; i < st.sliceCount(); ++i) {
        h.pod(st.sliceStart()[i]), h.pod(st.sliceDuration()[i]);
        s(st.sliceName()[i]), s(st.sliceCategory()[i]);
        h.pod(st.sliceDepth()[i]), h.pod(st.sliceParent()[i]), h.pod(st.sliceTrack()[i]);
        h.str(st.argsJson(st.sliceArgs(i)));
    }
    for (const Flow& f : st.flows()) {
        h.pod(f.fromSlice), h.pod(f.toSlice);
        s(f.name), s(f.cat);
    }
    for (const Instant& in : st.instants()) {
        h.pod(in.ts), s(in.name), s(in.cat), h.pod(in.process), h.pod(in.thread);
        h.pod(static_cast<int>(in.scope)), h.pod(in.phase);
    }
    for (const CounterSeries& c : st.counters()) {
        h.pod(c.process), s(c.name), s(c.key);
        for (std::size_t i = 0; i < c.ts.size(); ++i)
            h.pod(c.ts[i]), h.pod(c.values[i]);
    }
    for (const ObjectLifetime& o : st.objects()) {
        h.pod(o.process), s(o.name), s(o.id), h.pod(o.created), h.pod(o.destroyed);
        h.pod(o.snapshots), h.str(st.argsJson(o.lastSnapshot));
    }
    h.pod(st.beginTime()), h.pod(st.endTime());
    return h.value();
}

// `located`: diagnostics' byte offsets count too (a JSON import); without it only code,
// severity, record and message do (offsets of a store built without text mean nothing).
inline std::uint64_t hashReport(const ImportReport& r, bool located) {
    Fnv h;
    h.pod(r.events);
    for (const auto& [ph, n] : r.phases)
        h.str(ph), h.pod(n);
    for (const auto& [code, n] : r.diagnostics.countsByCode())
        h.str(code), h.pod(n);
    for (const Diagnostic& d : r.diagnostics.items()) {
        h.pod(static_cast<int>(d.severity)), h.str(d.code), h.pod(d.record), h.str(d.message);
        if (located) h.pod(d.offset);
    }
    h.str(r.displayTimeUnit), h.str(r.distributedInfo), h.pod(r.objectForm);
    return h.value();
}

inline StoreDigest digest(const TraceStore& st, bool located = true) {
    StoreDigest d;
    d.slices = st.sliceCount();
    d.flows = st.flows().size();
    d.counters = st.counters().size();
    d.instants = st.instants().size();
    d.objects = st.objects().size();
    d.tracks = st.tracks().size();
    for (std::uint32_t i = 0; i < st.sliceCount(); ++i) {
        d.durationSum = std::int64_t(std::uint64_t(d.durationSum) + // wraps, as a sum to compare
                                     std::uint64_t(st.sliceDuration()[i]));
        d.depthSum += std::uint64_t(st.sliceDepth()[i]) * st.sliceDepth()[i];
    }
    d.storeHash = hashStore(st);
    d.reportHash = hashReport(st.report(), located);
    return d;
}

} // namespace xt::timeline::test
