// The hand-written encoder must produce protobuf's exact bytes, and the decoder must read what
// protobuf writes, for every dtype and shape kind.
#include "core/xdl/wire.h"
#include "xdl_test_util.h"

#include <gtest/gtest.h>
#include <limits>

using namespace xt;
using namespace xt::xdl;
using xt::test::rawBytes;

namespace {

using xt::test::asBytes;

struct ColumnCase {
    Dtype dtype;
    std::vector<std::int64_t> shape;
    std::string data;
};

std::vector<ColumnCase> allColumnCases() {
    std::vector<ColumnCase> cases;
    cases.push_back({Dtype::Int8, {3}, rawBytes(std::vector<std::int8_t>{-128, 0, 127})});
    cases.push_back(
        {Dtype::Int16, {2, 2}, rawBytes(std::vector<std::int16_t>{-1, 2, -300, 32767})});
    cases.push_back({Dtype::Int32, {}, rawBytes(std::vector<std::int32_t>{-7})}); // 0-d scalar
    cases.push_back({Dtype::Int64, {2}, rawBytes(std::vector<std::int64_t>{INT64_MIN, INT64_MAX})});
    cases.push_back({Dtype::Float, {0}, ""}); // trace_once placeholder
    cases.push_back({Dtype::Double, {1, 3}, rawBytes(std::vector<double>{0.1, -2.5e300, 1e-310})});
    cases.push_back({Dtype::Bool, {4}, std::string("\x01\x00\x00\x01", 4)});
    cases.push_back({Dtype::Byte, {2}, std::string("\xff\x00", 2)});
    std::vector<float> large(300000);
    for (size_t i = 0; i < large.size(); ++i)
        large[i] = static_cast<float>(i) * 0.5f;
    cases.push_back({Dtype::Float, {300, 1000}, rawBytes(large)}); // multi-byte length varints
    cases.push_back({Dtype::Float, {2, 0, 3}, ""});                // empty with zero dim
    return cases;
}

::xdl::proto::Record protoRecord(std::int64_t gstep, std::int64_t lstep, std::int64_t ts,
                                 const std::vector<ColumnCase>& cols) {
    ::xdl::proto::Record r;
    r.set_gstep(gstep);
    r.set_lstep(lstep);
    r.set_timestamp(ts);
    for (const auto& c : cols) {
        auto* pc = r.add_column();
        pc->set_dtype(static_cast<::xdl::proto::Type>(c.dtype));
        for (auto d : c.shape)
            pc->add_shape(static_cast<std::int32_t>(d));
        pc->set_data(c.data);
    }
    return r;
}

std::string encodeWithOurs(std::int64_t gstep, std::int64_t lstep, std::int64_t ts,
                           const std::vector<ColumnCase>& cols) {
    RecordEncoder enc;
    enc.begin(gstep, lstep);
    for (const auto& c : cols)
        enc.addColumn(c.dtype, c.shape, asBytes(c.data));
    EXPECT_TRUE(enc.finish(ts).isOk());
    auto f = enc.framed();
    return std::string(reinterpret_cast<const char*>(f.data()), f.size());
}

} // namespace

TEST(Wire, RecordBytesEqualProtobufForEveryDtype) {
    auto cases = allColumnCases();
    for (const auto& c : cases) {
        auto ours = encodeWithOurs(5, 6, 1700000000123, {c});
        auto theirs = xt::test::frame(protoRecord(5, 6, 1700000000123, {c}).SerializeAsString());
        EXPECT_EQ(ours, theirs) << "dtype " << dtypeName(c.dtype);
    }
    // All columns together, zero steps (omitted on the wire), negative steps (10-byte varints).
    for (auto [g, l, t] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{0, 0, 0},
                           {-1, -5, -1700000000000},
                           {INT64_MAX, 1, INT64_MIN}}) {
        auto ours = encodeWithOurs(g, l, t, cases);
        auto theirs = xt::test::frame(protoRecord(g, l, t, cases).SerializeAsString());
        EXPECT_EQ(ours, theirs) << g << " " << l << " " << t;
    }
}

TEST(Wire, NegativeShapeDimIsEncodedLikeProtobuf) {
    ColumnCase c{Dtype::Float, {-1, 2}, ""};
    EXPECT_EQ(encodeWithOurs(1, 1, 1, {c}),
              xt::test::frame(protoRecord(1, 1, 1, {c}).SerializeAsString()));
}

TEST(Wire, HeaderAndMetaBytesEqualProtobuf) {
    std::vector<std::string> keys = {"fc1/weight", "gradient/fc1/weight", "", "k\xc3\xa9y"};
    EXPECT_EQ(encodeHeader(keys), xt::test::headerBytes(keys));
    EXPECT_EQ(encodeHeader({}), "");

    MetaInfo m{1, 100, 0, 99, 1700000000000, 1700000099000};
    ::xdl::proto::Meta pm;
    pm.set_lstep_begin(1), pm.set_lstep_end(100), pm.set_gstep_begin(0), pm.set_gstep_end(99);
    pm.set_timestamp_begin(1700000000000), pm.set_timestamp_end(1700000099000);
    EXPECT_EQ(encodeMeta(m), pm.SerializeAsString());
    ::xdl::proto::Meta unknown;
    unknown.set_lstep_begin(-1), unknown.set_lstep_end(-1), unknown.set_gstep_begin(-1);
    unknown.set_gstep_end(-1), unknown.set_timestamp_begin(-1), unknown.set_timestamp_end(-1);
    EXPECT_EQ(encodeMeta(MetaInfo{}), unknown.SerializeAsString());
}

TEST(Wire, DecodesWhatProtobufWrites) {
    auto cases = allColumnCases();
    std::string msg = protoRecord(-3, 42, 1700000000999, cases).SerializeAsString();
    RecordView v;
    ASSERT_TRUE(decodeRecord(asBytes(msg), v).isOk());
    EXPECT_EQ(v.gstep, -3);
    EXPECT_EQ(v.lstep, 42);
    EXPECT_EQ(v.timestamp, 1700000000999);
    ASSERT_EQ(v.columns.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        const auto& col = v.columns[i];
        EXPECT_EQ(col.check(), ColumnProblem::None) << i;
        EXPECT_EQ(col.dtype(), cases[i].dtype);
        ASSERT_EQ(col.shape.rank, static_cast<int>(cases[i].shape.size()));
        for (size_t d = 0; d < cases[i].shape.size(); ++d)
            EXPECT_EQ(col.shape.dims[d], cases[i].shape[d]);
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(col.data.data()), col.data.size()),
                  cases[i].data);
        // Zero-copy: the data span points into the message bytes.
        if (!col.data.empty()) {
            EXPECT_GE(col.data.data(), reinterpret_cast<const std::uint8_t*>(msg.data()));
            EXPECT_LE(col.data.data() + col.data.size(),
                      reinterpret_cast<const std::uint8_t*>(msg.data() + msg.size()));
        }
    }
    RecordHead head;
    ASSERT_TRUE(decodeRecordHead(asBytes(msg), head).isOk());
    EXPECT_EQ(head.columnCount, cases.size());
    EXPECT_EQ(head.timestamp, 1700000000999);

    std::vector<std::string> keys;
    ASSERT_TRUE(decodeHeader(asBytes(xt::test::headerBytes({"a", "b/c"})), keys).isOk());
    EXPECT_EQ(keys, (std::vector<std::string>{"a", "b/c"}));
}

TEST(Wire, ARecordDecodedOverAnEarlierOneKeepsNothingOfIt) {
    // A view is decoded over again record after record: each must read as if decoded fresh,
    // whatever the record before held (more columns, deeper or too deep shapes, a failure).
    std::vector<ColumnCase> deep = allColumnCases();
    ColumnCase tooDeep{Dtype::Float, std::vector<std::int64_t>(kMaxRank + 2, 1), "\0\0\0\0"};
    deep.push_back(tooDeep);
    const std::vector<ColumnCase> small = {
        {Dtype::Int64, {2}, rawBytes(std::vector<std::int64_t>{1, 2})},
        {Dtype::Float, {}, rawBytes(std::vector<float>{1.5f})}};
    const std::string deepMsg = protoRecord(1, 2, 3, deep).SerializeAsString();
    const std::string smallMsg = protoRecord(4, 5, 6, small).SerializeAsString();
    // The small record cut short: its second column does not fit, after one good column.
    const std::string cutMsg = smallMsg.substr(0, smallMsg.size() - 3);
    RecordView cut;
    ASSERT_FALSE(decodeRecord(asBytes(cutMsg), cut).isOk());
    ASSERT_EQ(cut.columns.size(), 1u);
    RecordView reused;
    for (const std::string* msg : {&deepMsg, &smallMsg, &deepMsg, &cutMsg, &smallMsg}) {
        RecordView fresh;
        const Status want = decodeRecord(asBytes(*msg), fresh);
        const Status got = decodeRecord(asBytes(*msg), reused);
        ASSERT_EQ(got.isOk(), want.isOk());
        EXPECT_EQ(reused.gstep, fresh.gstep);
        ASSERT_EQ(reused.columns.size(), fresh.columns.size());
        for (std::size_t i = 0; i < fresh.columns.size(); ++i) {
            const ColumnView &a = reused.columns[i], &b = fresh.columns[i];
            EXPECT_EQ(a.wireDtype, b.wireDtype) << i;
            EXPECT_TRUE(a.shape == b.shape) << i << ": " << a.shape.toString();
            EXPECT_EQ(a.shape.dims, b.shape.dims) << i << ": dims past the rank left over";
            EXPECT_EQ(a.rankTooLarge, b.rankTooLarge) << i;
            EXPECT_EQ(a.data.data(), b.data.data()) << i;
            EXPECT_EQ(a.data.size(), b.data.size()) << i;
        }
    }
}

TEST(Wire, ShapesCompareTheirRankAndItsDims) {
    Shape a, b;
    a.rank = b.rank = 2;
    a.dims = {3, 4, 7}; // a dim past the rank
    b.dims = {3, 4};
    EXPECT_TRUE(a == b);
    b.dims[1] = 5;
    EXPECT_FALSE(a == b);
    b.dims[1] = 4, b.rank = 3;
    EXPECT_FALSE(a == b);
    a.rank = b.rank = 0;
    EXPECT_TRUE(a == b); // scalars
}

TEST(Wire, UnpackedShapeAndUnknownFieldsAreAccepted) {
    // Column: dtype Float, shape 2 and 3 as unpacked varints, an unknown field 9, data 24 bytes.
    std::string col = "\x08\x04\x10\x02\x10\x03\x48\x07";
    col += "\x1a\x18" + std::string(24, '\0');
    std::string rec = "\x08\x05\x1a" + std::string(1, static_cast<char>(col.size())) + col +
                      "\x2a\x01z"; // unknown length-delimited field 5
    RecordView v;
    ASSERT_TRUE(decodeRecord(asBytes(rec), v).isOk());
    ASSERT_EQ(v.columns.size(), 1u);
    EXPECT_EQ(v.columns[0].shape.toString(), "[2, 3]");
    EXPECT_EQ(v.columns[0].check(), ColumnProblem::None);
}

TEST(Wire, MalformedMessagesAreErrorsNotCrashes) {
    RecordView v;
    RecordHead h;
    // Truncated varint, column length beyond the message, wrong wire type, group wire type.
    for (std::string bad :
         {std::string("\x08\xff"), std::string("\x1a\x10\x08"), std::string("\x08\x01\x0a\x01x"),
          std::string("\x0b"), std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")}) {
        EXPECT_FALSE(decodeRecord(asBytes(bad), v).isOk()) << bad.size();
        Status st = decodeRecordHead(asBytes(bad), h);
        EXPECT_FALSE(st.isOk());
        EXPECT_EQ(st.code(), ErrorCode::Corrupt);
        EXPECT_NE(st.message().find("at byte"), std::string::npos);
    }
}

TEST(Wire, ColumnChecks) {
    ColumnView c;
    c.wireDtype = 9;
    EXPECT_EQ(c.check(), ColumnProblem::UnknownDtype);
    c.wireDtype = static_cast<int>(Dtype::Float);
    c.shape.rank = 1;
    c.shape.dims[0] = 3;
    std::uint8_t buf[12] = {};
    c.data = Bytes(buf, 8);
    EXPECT_EQ(c.check(), ColumnProblem::SizeMismatch);
    c.data = Bytes(buf, 12);
    EXPECT_EQ(c.check(), ColumnProblem::None);
    c.shape.dims[0] = -3;
    EXPECT_EQ(c.check(), ColumnProblem::BadShape);
    c.shape.rank = 2;
    c.shape.dims = {1 << 30, 1 << 30};
    EXPECT_EQ(c.check(), ColumnProblem::SizeMismatch); // 2^60 elements claimed, 12 bytes given
    c.shape.rank = 3;
    c.shape.dims = {1 << 30, 1 << 30, 1 << 30};
    EXPECT_EQ(c.check(), ColumnProblem::BadShape); // 2^90 elements: overflow, not a crash
}

TEST(Wire, DtypeNames) {
    EXPECT_EQ(parseDtype("float32"), Dtype::Float);
    EXPECT_EQ(parseDtype("kInt64"), Dtype::Int64);
    EXPECT_EQ(parseDtype("Bool"), Dtype::Bool);
    EXPECT_FALSE(parseDtype("float16").has_value());
    for (int t = 0; t < kDtypeCount; ++t)
        EXPECT_EQ(parseDtype(dtypeName(static_cast<Dtype>(t))), static_cast<Dtype>(t));
}
