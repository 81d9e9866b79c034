#include "core/export/hdf5_objects.h"

#include <cmath>
#include <set>

namespace xt::h5 {

namespace {

// Creates attribute `name` on `obj` and writes `data` (memory layout `memType`) into it.
Status writeAttr(hid_t obj, const char* name, hid_t fileType, hid_t memType, const Handle& space,
                 const void* data) {
    Handle attr(H5Acreate2(obj, name, fileType, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attr.valid() || H5Awrite(attr.get(), memType, data) < 0)
        return h5Error(std::string("write attribute ") + name);
    return Status::ok();
}

const std::set<std::string> kReserved = {"values", "offsets",   "shapes", "gstep",
                                         "lstep",  "timestamp", "stats",  "meta"};

struct MetaRow {
    const char* file;
    std::int64_t index, lstepBegin, lstepEnd, gstepBegin, gstepEnd, timestampBegin, timestampEnd;
    std::uint8_t finalised;
};

} // namespace

Status h5Error(const std::string& what) {
    return Status(ErrorCode::IoError, "HDF5: cannot " + what);
}

Handle stringType() {
    Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(t.get(), H5T_VARIABLE);
    H5Tset_cset(t.get(), H5T_CSET_UTF8);
    return t;
}

Status writeStringAttr(hid_t obj, const char* name, const std::string& value) {
    Handle type = stringType();
    const char* p = value.c_str();
    return writeAttr(obj, name, type.get(), type.get(), Handle(H5Screate(H5S_SCALAR), H5Sclose),
                     &p);
}

Status writeStringListAttr(hid_t obj, const char* name, const std::vector<std::string>& values) {
    Handle type = stringType();
    hsize_t n = values.size();
    std::vector<const char*> ptrs;
    for (const auto& v : values)
        ptrs.push_back(v.c_str());
    return writeAttr(obj, name, type.get(), type.get(),
                     Handle(H5Screate_simple(1, &n, nullptr), H5Sclose), ptrs.data());
}

Status writeIntAttr(hid_t obj, const char* name, std::int64_t value) {
    return writeAttr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64,
                     Handle(H5Screate(H5S_SCALAR), H5Sclose), &value);
}

H5Types typesOf(xdl::Dtype t) {
    auto copy = [](hid_t base) { return Handle(H5Tcopy(base), H5Tclose); };
    switch (t) {
    case xdl::Dtype::Int8:
        return {copy(H5T_STD_I8LE), copy(H5T_NATIVE_INT8)};
    case xdl::Dtype::Int16:
        return {copy(H5T_STD_I16LE), copy(H5T_NATIVE_INT16)};
    case xdl::Dtype::Int32:
        return {copy(H5T_STD_I32LE), copy(H5T_NATIVE_INT32)};
    case xdl::Dtype::Int64:
        return {copy(H5T_STD_I64LE), copy(H5T_NATIVE_INT64)};
    case xdl::Dtype::Float:
        return {copy(H5T_IEEE_F32LE), copy(H5T_NATIVE_FLOAT)};
    case xdl::Dtype::Double:
        return {copy(H5T_IEEE_F64LE), copy(H5T_NATIVE_DOUBLE)};
    case xdl::Dtype::Byte:
        return {copy(H5T_STD_U8LE), copy(H5T_NATIVE_UINT8)};
    case xdl::Dtype::Bool: {
        auto makeEnum = [](hid_t base) {
            Handle e(H5Tenum_create(base), H5Tclose);
            std::int8_t f = 0, t = 1;
            H5Tenum_insert(e.get(), "FALSE", &f);
            H5Tenum_insert(e.get(), "TRUE", &t);
            return e;
        };
        return {makeEnum(H5T_STD_I8LE), makeEnum(H5T_NATIVE_INT8)};
    }
    }
    return {copy(H5T_STD_U8LE), copy(H5T_NATIVE_UINT8)};
}

Handle statsType(bool file) {
    Handle t(H5Tcreate(H5T_COMPOUND, sizeof(StatsRow)), H5Tclose);
    hid_t u = file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    hid_t d = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    H5Tinsert(t.get(), "count", HOFFSET(StatsRow, count), u);
    H5Tinsert(t.get(), "nan", HOFFSET(StatsRow, nan), u);
    H5Tinsert(t.get(), "inf", HOFFSET(StatsRow, inf), u);
    H5Tinsert(t.get(), "zeros", HOFFSET(StatsRow, zeros), u);
    H5Tinsert(t.get(), "min", HOFFSET(StatsRow, min), d);
    H5Tinsert(t.get(), "max", HOFFSET(StatsRow, max), d);
    H5Tinsert(t.get(), "mean", HOFFSET(StatsRow, mean), d);
    H5Tinsert(t.get(), "std", HOFFSET(StatsRow, std), d);
    H5Tinsert(t.get(), "l2", HOFFSET(StatsRow, l2), d);
    if (file) H5Tpack(t.get());
    return t;
}

// A key's group path below /rank{R}: "/" nests; components that HDF5 cannot name or that
// collide with this layout's dataset names get a trailing "_". The `key` attribute keeps the
// original.
std::string groupPathOf(const std::string& key) {
    std::string out;
    std::size_t start = 0;
    while (true) {
        std::size_t slash = key.find('/', start);
        std::string c =
            key.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (c.empty() || c == "." || c == ".." || kReserved.count(c)) c += "_";
        out += "/" + c;
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return out;
}

Result<Handle> ensureGroups(hid_t parent, const std::string& path) {
    Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    std::string rel = path.substr(1);
    htri_t exists = H5Lexists(parent, rel.c_str(), H5P_DEFAULT);
    hid_t g = exists > 0 ? H5Gopen2(parent, rel.c_str(), H5P_DEFAULT)
                         : H5Gcreate2(parent, rel.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return h5Error("create group " + path);
    return Handle(g, H5Gclose);
}

Status writeMetaTable(hid_t rankGroup, const xdl::RankReader& rank) {
    Handle str = stringType();
    auto makeType = [&](bool file) {
        Handle t(H5Tcreate(H5T_COMPOUND, sizeof(MetaRow)), H5Tclose);
        hid_t i64 = file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
        H5Tinsert(t.get(), "file", HOFFSET(MetaRow, file), str.get());
        H5Tinsert(t.get(), "index", HOFFSET(MetaRow, index), i64);
        H5Tinsert(t.get(), "lstep_begin", HOFFSET(MetaRow, lstepBegin), i64);
        H5Tinsert(t.get(), "lstep_end", HOFFSET(MetaRow, lstepEnd), i64);
        H5Tinsert(t.get(), "gstep_begin", HOFFSET(MetaRow, gstepBegin), i64);
        H5Tinsert(t.get(), "gstep_end", HOFFSET(MetaRow, gstepEnd), i64);
        H5Tinsert(t.get(), "timestamp_begin", HOFFSET(MetaRow, timestampBegin), i64);
        H5Tinsert(t.get(), "timestamp_end", HOFFSET(MetaRow, timestampEnd), i64);
        H5Tinsert(t.get(), "finalised", HOFFSET(MetaRow, finalised),
                  file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
        if (file) H5Tpack(t.get());
        return t;
    };
    std::vector<MetaRow> rows;
    for (const auto& p : rank.parts()) {
        const auto& pf = p->part();
        bool fin = pf.metaState == xdl::MetaState::Finalised;
        xdl::MetaInfo m = fin ? pf.meta : xdl::MetaInfo{};
        rows.push_back({pf.path.c_str(), pf.index, m.lstepBegin, m.lstepEnd, m.gstepBegin,
                        m.gstepEnd, m.timestampBegin, m.timestampEnd, std::uint8_t(fin)});
    }
    Handle fileType = makeType(true), memType = makeType(false);
    hsize_t n = rows.size();
    Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    Handle ds(H5Dcreate2(rankGroup, "meta", fileType.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
    if (!ds.valid() ||
        H5Dwrite(ds.get(), memType.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()) < 0)
        return h5Error("write the meta table");
    return Status::ok();
}

} // namespace xt::h5
