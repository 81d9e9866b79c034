#include "core/base/byte_format.h"

namespace xt {

const char* byteFormatName(ByteFormat f) {
    switch (f) {
    case ByteFormat::Empty:
        return "empty";
    case ByteFormat::Gzip:
        return "gzip";
    case ByteFormat::Zip:
        return "zip";
    case ByteFormat::JsonText:
        return "json";
    case ByteFormat::LengthPrefixed:
        return "length-prefixed protobuf";
    case ByteFormat::Protobuf:
        return "protobuf";
    case ByteFormat::Other:
        return "other";
    }
    return "?";
}

std::size_t skipBomAndWhitespace(std::string_view text) {
    std::size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        ++i;
    return i;
}

namespace {

std::uint8_t byteAt(std::string_view s, std::size_t i) {
    return static_cast<std::uint8_t>(s[i]);
}

std::uint32_t readU32(std::string_view s, std::size_t i) { // little-endian
    return std::uint32_t(byteAt(s, i)) | std::uint32_t(byteAt(s, i + 1)) << 8 |
           std::uint32_t(byteAt(s, i + 2)) << 16 | std::uint32_t(byteAt(s, i + 3)) << 24;
}

// A field tag that can open an XDL Header (field 1, bytes) or Record (fields 1, 2 and 4 as
// varints, 3 as bytes).
bool isRecordTag(std::uint8_t tag) {
    return tag == 0x08 || tag == 0x0a || tag == 0x10 || tag == 0x1a || tag == 0x20;
}

// Field 1, length-delimited, with a length varint that fits the file.
bool looksLikeMessage(std::string_view head, std::uint64_t fileSize) {
    if (head.size() < 2 || byteAt(head, 0) != 0x0a) return false;
    std::uint64_t len = 0;
    for (std::size_t i = 1; i < head.size() && i <= 10; ++i) {
        len |= std::uint64_t(byteAt(head, i) & 0x7f) << (7 * (i - 1));
        if (!(byteAt(head, i) & 0x80)) return i + 1 + len <= fileSize;
    }
    return false;
}

} // namespace

ByteFormat sniffBytes(std::string_view head, std::uint64_t fileSize) {
    if (head.size() > kSniffBytes) head = head.substr(0, kSniffBytes);
    if (head.empty()) return ByteFormat::Empty;
    if (head.size() >= 2 && byteAt(head, 0) == 0x1f && byteAt(head, 1) == 0x8b)
        return ByteFormat::Gzip;
    if (head.starts_with(std::string_view("PK\3\4", 4))) return ByteFormat::Zip;
    const std::size_t j = skipBomAndWhitespace(head);
    if (j < head.size() && (head[j] == '{' || head[j] == '[')) return ByteFormat::JsonText;
    if (head.size() >= 5) {
        const std::uint32_t len = readU32(head, 0);
        // The next length prefix, when the head holds it, must fit the file too.
        const std::uint64_t next = 4ull + len;
        bool nextFits = true;
        if (next + 4 <= head.size()) {
            nextFits = next + 4 + readU32(head, next) <= fileSize;
        }
        if (len > 0 && next <= fileSize && nextFits && isRecordTag(byteAt(head, 4)))
            return ByteFormat::LengthPrefixed;
    }
    if (looksLikeMessage(head, fileSize)) return ByteFormat::Protobuf;
    return ByteFormat::Other;
}

} // namespace xt
