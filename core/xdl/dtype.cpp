#include "core/xdl/dtype.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace xt::xdl {

std::string_view dtypeName(Dtype t) {
    switch (t) {
    case Dtype::Int8:
        return "int8";
    case Dtype::Int16:
        return "int16";
    case Dtype::Int32:
        return "int32";
    case Dtype::Int64:
        return "int64";
    case Dtype::Float:
        return "float32";
    case Dtype::Double:
        return "float64";
    case Dtype::Bool:
        return "bool";
    case Dtype::Byte:
        return "uint8";
    }
    return "unknown";
}

std::optional<Dtype> parseDtype(std::string_view name) {
    std::string s(name);
    if (s.size() > 1 && s[0] == 'k' && std::isupper(static_cast<unsigned char>(s[1])))
        s.erase(0, 1);
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    struct Alias {
        std::string_view name;
        Dtype type;
    };
    static constexpr std::array<Alias, 14> kAliases{{
        {"int8", Dtype::Int8},
        {"int16", Dtype::Int16},
        {"int32", Dtype::Int32},
        {"int64", Dtype::Int64},
        {"float", Dtype::Float},
        {"float32", Dtype::Float},
        {"double", Dtype::Double},
        {"float64", Dtype::Double},
        {"bool", Dtype::Bool},
        {"byte", Dtype::Byte},
        {"uint8", Dtype::Byte},
        {"int", Dtype::Int32},
        {"long", Dtype::Int64},
        {"short", Dtype::Int16},
    }};
    for (const auto& a : kAliases)
        if (a.name == s) return a.type;
    return std::nullopt;
}

} // namespace xt::xdl
