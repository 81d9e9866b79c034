#pragma once
// The HDF5 objects the exporter writes (hdf5_exporter.h has the layout): owned identifiers,
// attributes, the types of XDL dtypes and of a stats row, key groups and the meta table.
// Internal to xt_export.

#include "core/analysis/backend.h"
#include "core/base/status.h"
#include "core/xdl/trace_reader.h"

#include <hdf5.h>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace xt::h5 {

// Owns an HDF5 identifier and closes it with the matching function.
class Handle {
public:
    Handle() = default;
    Handle(hid_t id, herr_t (*close)(hid_t)) : m_id(id), m_close(close) {}
    Handle(Handle&& o) noexcept
        : m_id(std::exchange(o.m_id, H5I_INVALID_HID)), m_close(o.m_close) {}
    Handle& operator=(Handle&& o) noexcept {
        reset();
        m_id = std::exchange(o.m_id, H5I_INVALID_HID);
        m_close = o.m_close;
        return *this;
    }
    ~Handle() { reset(); }
    hid_t get() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    void reset() {
        if (m_id >= 0 && m_close) m_close(m_id);
        m_id = H5I_INVALID_HID;
    }

private:
    hid_t m_id = H5I_INVALID_HID;
    herr_t (*m_close)(hid_t) = nullptr;
};

Status h5Error(const std::string& what);
Handle stringType();
Status writeStringAttr(hid_t obj, const char* name, const std::string& value);
Status writeStringListAttr(hid_t obj, const char* name, const std::vector<std::string>& values);
Status writeIntAttr(hid_t obj, const char* name, std::int64_t value);

// File and memory types of an XDL dtype. Bool is h5py's convention: an enum over int8.
struct H5Types {
    Handle file, memory;
};
H5Types typesOf(xdl::Dtype t);

// One row of a `stats` dataset: NaN for min..l2 when the tensor has no finite element.
struct StatsRow {
    std::uint64_t count, nan, inf, zeros;
    double min, max, mean, std, l2;
};
// Inline: a call returns the row through memory written 8 bytes at a time and read back at once
// in 16, a load that waits for the stores (with the call, 3% of a small-row export).
inline StatsRow toRow(const analysis::TensorStats& s) {
    const double none = std::numeric_limits<double>::quiet_NaN();
    return s.hasFinite()
               ? StatsRow{s.count, s.nan, s.inf, s.zeros, s.min, s.max, s.mean, s.std, s.l2}
               : StatsRow{s.count, s.nan, s.inf, s.zeros, none, none, none, none, none};
}
Handle statsType(bool file);

// A key's group path below /rank{R}: "/" nests; components that HDF5 cannot name or that
// collide with this layout's dataset names get a trailing "_".
std::string groupPathOf(const std::string& key);
// Creates every missing group on the path below `parent`.
Result<Handle> ensureGroups(hid_t parent, const std::string& path);
// /rank{R}/meta: one row per part file.
Status writeMetaTable(hid_t rankGroup, const xdl::RankReader& rank);

} // namespace xt::h5
