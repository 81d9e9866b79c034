#include "core/base/json_writer.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace xt;

TEST(JsonWriter, NestedContainersAndEscapes) {
    JsonWriter w;
    w.beginObject()
        .field("name", "a\"b\\c\n")
        .field("n", std::int64_t{-3})
        .field("x", 0.5)
        .field("nan", std::nan(""))
        .key("list")
        .beginArray()
        .value(1)
        .value(true)
        .beginObject()
        .endObject()
        .endArray()
        .endObject();
    EXPECT_EQ(w.str(), R"({"name":"a\"b\\c\n","n":-3,"x":0.5,"nan":null,"list":[1,true,{}]})");
}

TEST(JsonWriter, InvalidUtf8BecomesReplacementCharacter) {
    std::string out;
    JsonWriter::appendEscaped(out, std::string("ok\xff\x01\xc3\xa9", 6));
    EXPECT_EQ(out, "\"ok\\ufffd\\u0001\xc3\xa9\"");
}
