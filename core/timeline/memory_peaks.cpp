#include "core/timeline/memory_peaks.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace xt::timeline {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

std::string_view valueOf(const std::vector<std::pair<std::string, std::string>>& kv,
                         std::string_view key, bool& found) {
    for (const auto& [k, v] : kv)
        if (k == key) {
            found = true;
            return v;
        }
    found = false;
    return {};
}

// "allocation_description {\n  requested_bytes: 8\n  allocator_name: cpu\n}" inside the text
// format of a TensorDescription (timeline.py strips the quotes; they are accepted too).
void parseAllocation(std::string_view text, TensorAllocation& a) {
    const auto at = text.find("allocation_description {");
    if (at == std::string_view::npos) return;
    std::string_view block = text.substr(at);
    block = block.substr(0, block.find('}'));
    while (!block.empty()) {
        const auto nl = block.find('\n');
        const std::string_view line = trim(block.substr(0, nl));
        block = nl == std::string_view::npos ? std::string_view() : block.substr(nl + 1);
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, colon);
        std::string_view value = trim(line.substr(colon + 1));
        if (key == "requested_bytes") {
            std::from_chars(value.data(), value.data() + value.size(), a.bytes);
        } else if (key == "allocator_name") {
            if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
                value = value.substr(1, value.size() - 2);
            a.allocator = value;
        }
    }
}

// Whether timeline.py's allocator maximum at `ts` holds this tensor. Its sweep takes the
// allocations (created, +bytes) and frees (destroyed, -bytes) in order of time, then bytes
// (frees first), adds the tensor at an entry of bytes >= 0 and drops it at one below 0, and
// keeps the set as it is after the peak's last entry. So the tensor's last entry at or before
// `ts` decides (a tensor freed when it is created stays in, as does one of 0 bytes).
bool inAllocatorMaximum(const ObjectLifetime& o, std::int64_t bytes, std::int64_t ts) {
    if (o.created > ts) return false;
    if (o.destroyed == kNoTime || o.destroyed > ts) return bytes >= 0;
    if (o.destroyed > o.created) return -bytes >= 0;
    if (o.destroyed < o.created) return bytes >= 0;
    return true; // both at one time: the entry of larger bytes comes last, and it is >= 0
}

// "node:1" -> "node" (timeline.py names a node's outputs "node", "node:1", ...).
std::string_view nodeOf(std::string_view tensor) {
    const auto colon = tensor.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == tensor.size()) return tensor;
    for (const char c : tensor.substr(colon + 1))
        if (c < '0' || c > '9') return tensor;
    return tensor.substr(0, colon);
}

// The op slice that produced each live tensor: timeline.py writes it starting at the tensor's
// creation with args {"name": node}.
void findProducers(const TraceStore& store, std::vector<MemoryPeak>& peaks) {
    const auto objects = store.objects();
    std::unordered_set<std::int64_t> times;
    for (const MemoryPeak& p : peaks)
        for (const std::uint32_t o : p.liveObjects)
            if (p.byAllocator) times.insert(objects[o].created);
    std::map<std::pair<std::int64_t, std::string>, std::uint32_t> producer;
    const auto start = store.sliceStart();
    for (std::uint32_t s = 0; !times.empty() && s < store.sliceCount(); ++s) {
        if (!times.count(start[s])) continue;
        bool found = false;
        const auto args = store.decodeArgs(store.sliceArgs(s));
        const std::string_view name = valueOf(args, "name", found);
        if (found) producer.try_emplace({start[s], std::string(name)}, s);
    }
    for (MemoryPeak& p : peaks) {
        if (!p.byAllocator) continue;
        for (const std::uint32_t o : p.liveObjects) {
            const auto it = producer.find(std::pair<std::int64_t, std::string>(
                objects[o].created, nodeOf(store.str(objects[o].name))));
            p.producers.push_back(it == producer.end() ? kNoIndex : it->second);
        }
    }
}

} // namespace

TensorAllocation tensorAllocation(const TraceStore& store, const ObjectLifetime& object) {
    TensorAllocation a;
    if (object.lastSnapshot.empty()) return a;
    bool found = false;
    const auto args = store.decodeArgs(object.lastSnapshot);
    const std::string_view snapshot = valueOf(args, "snapshot", found);
    if (!found) return a;
    const auto fields = decodeJsonObject(snapshot);
    const std::string_view text = valueOf(fields, "tensor_description", found);
    if (!found) return a;
    a.known = true;
    parseAllocation(text, a);
    return a;
}

std::vector<MemoryPeak> memoryPeaks(const TraceStore& store) {
    std::vector<MemoryPeak> out;
    const auto counters = store.counters();
    const auto objects = store.objects();
    std::vector<std::int64_t> bytes(objects.size(), 0);
    std::unordered_map<std::string, std::vector<std::uint32_t>> tensorsOf; // by allocator
    for (std::uint32_t o = 0; o < objects.size(); ++o) {
        TensorAllocation a = tensorAllocation(store, objects[o]);
        if (!a.known) continue;
        bytes[o] = a.bytes;
        tensorsOf[std::move(a.allocator)].push_back(o);
    }
    for (std::uint32_t i = 0; i < counters.size(); ++i) {
        const CounterSeries& cs = counters[i];
        if (cs.values.empty()) continue;
        const auto it = std::max_element(cs.values.begin(), cs.values.end());
        MemoryPeak mp;
        mp.series = i;
        mp.peak = *it;
        mp.ts = cs.ts[static_cast<std::size_t>(it - cs.values.begin())];
        if (const auto t = tensorsOf.find(std::string(store.str(cs.key))); t != tensorsOf.end()) {
            mp.byAllocator = true;
            for (const std::uint32_t o : t->second) {
                mp.allocatedBytes += bytes[o];
                // timeline.py never records a maximum that does not rise above 0.
                if (mp.peak > 0 && inAllocatorMaximum(objects[o], bytes[o], mp.ts))
                    mp.liveObjects.push_back(o);
            }
            std::stable_sort(mp.liveObjects.begin(), mp.liveObjects.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return bytes[a] > bytes[b]; });
            for (const std::uint32_t o : mp.liveObjects)
                mp.liveBytes.push_back(bytes[o]);
            out.push_back(std::move(mp));
            continue;
        }
        auto liveAt = [&](const ObjectLifetime& ob) {
            return ob.created <= mp.ts && (ob.destroyed == kNoTime || ob.destroyed > mp.ts);
        };
        for (std::uint32_t o = 0; o < objects.size(); ++o)
            if (objects[o].process == cs.process && liveAt(objects[o])) mp.liveObjects.push_back(o);
        // Objects in a process of their own get every object alive at the peak.
        if (mp.liveObjects.empty())
            for (std::uint32_t o = 0; o < objects.size(); ++o)
                if (liveAt(objects[o])) mp.liveObjects.push_back(o);
        out.push_back(std::move(mp));
    }
    findProducers(store, out);
    std::stable_sort(out.begin(), out.end(),
                     [](const MemoryPeak& a, const MemoryPeak& b) { return a.peak > b.peak; });
    return out;
}

} // namespace xt::timeline
