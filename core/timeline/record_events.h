#pragma once
// Events given to a TraceStoreBuilder one record at a time by the readers of formats other than
// Chrome JSON (TensorFlow step stats, XDL steps): each event's position is its record's number,
// and its times are checked as the JSON parser checks them.

#include "core/base/diagnostic_codes.h"
#include "core/timeline/trace_store_builder.h"

namespace xt::timeline {

class RecordEvents {
public:
    explicit RecordEvents(TraceStoreBuilder& b) : m_b(b) {}
    // Starts the next record's event, counted with its phase (`ph`); false where its process
    // (and thread, when `threaded`) is not admitted.
    bool start(const char* ph, StringId pid, StringId tid, bool threaded) {
        m_b.setPosition(m_record++);
        m_b.countEvent();
        m_b.countPhase(ph);
        return m_b.admit(pid, tid, threaded);
    }
    // `us` in nanoseconds, seen as a time of the trace; false, with a warning, where it is none.
    bool time(std::int64_t us, std::int64_t& ns) {
        if (!TraceStoreBuilder::microsInRange(us)) {
            m_b.warn(codes::kTsOutOfRange, "\"ts\" is not a time within +-4.6e15 us");
            return false;
        }
        ns = us * 1000;
        m_b.seeTime(ns);
        return true;
    }
    // An X event's duration `us` in nanoseconds; 0, with a warning, where negative or too long.
    std::int64_t duration(std::int64_t us) {
        if (us >= 0 && TraceStoreBuilder::microsInRange(us)) return us * 1000;
        m_b.warn(codes::kBadDur, "X event with a negative or huge \"dur\": zero length");
        return 0;
    }
    // After the last record: the builder's position is past it.
    void end() { m_b.setPosition(m_record); }

private:
    TraceStoreBuilder& m_b;
    std::uint64_t m_record = 0;
};

} // namespace xt::timeline
