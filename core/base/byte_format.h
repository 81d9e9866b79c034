#pragma once
// What the first bytes of a file hold, by content alone: the one rule every reader and opener
// uses to tell containers and encodings apart (core/open adds file names on top of it).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace xt {

enum class ByteFormat {
    Empty,
    Gzip,           // 1f 8b
    Zip,            // PK\3\4
    JsonText,       // '{' or '[' after an optional UTF-8 byte-order mark and JSON whitespace
    LengthPrefixed, // a u32 little-endian length that fits the file, then a protobuf field tag
    Protobuf,       // a bare message whose first field is field 1, length-delimited, and fits
    Other,
};
const char* byteFormatName(ByteFormat f);

// How many leading bytes to pass to sniffBytes.
inline constexpr std::size_t kSniffBytes = 4096;

// Classifies `head`, the first bytes of a file of `fileSize` bytes (at most kSniffBytes are
// looked at; a JSON start later than that is Other). Checked in the order of the enum.
ByteFormat sniffBytes(std::string_view head, std::uint64_t fileSize);
// The offset of the first byte after a UTF-8 byte-order mark and JSON whitespace.
std::size_t skipBomAndWhitespace(std::string_view text);

} // namespace xt
