#pragma once
// XDL element types (the wire values of enum xdl.proto.Type) and their sizes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace xt::xdl {

enum class Dtype : std::int32_t {
    Int8 = 0,
    Int16 = 1,
    Int32 = 2,
    Int64 = 3,
    Float = 4,
    Double = 5,
    Bool = 6, // one byte, 0 or 1
    Byte = 7, // uint8
};

inline constexpr int kDtypeCount = 8;

constexpr bool isKnownDtype(std::int64_t wire) {
    return wire >= 0 && wire < kDtypeCount;
}

constexpr std::size_t elementSize(Dtype t) {
    switch (t) {
    case Dtype::Int8:
    case Dtype::Bool:
    case Dtype::Byte:
        return 1;
    case Dtype::Int16:
        return 2;
    case Dtype::Int32:
    case Dtype::Float:
        return 4;
    case Dtype::Int64:
    case Dtype::Double:
        return 8;
    }
    return 0;
}

// "float32", "int64", "bool", ... (numpy-style names).
std::string_view dtypeName(Dtype t);
// Accepts numpy-style names and the proto enum names ("Float", "kFloat").
std::optional<Dtype> parseDtype(std::string_view name);

// The C++ type that holds one element of T.
template <Dtype T> struct DtypeTraits;
template <> struct DtypeTraits<Dtype::Int8> { using type = std::int8_t; };
template <> struct DtypeTraits<Dtype::Int16> { using type = std::int16_t; };
template <> struct DtypeTraits<Dtype::Int32> { using type = std::int32_t; };
template <> struct DtypeTraits<Dtype::Int64> { using type = std::int64_t; };
template <> struct DtypeTraits<Dtype::Float> { using type = float; };
template <> struct DtypeTraits<Dtype::Double> { using type = double; };
template <> struct DtypeTraits<Dtype::Bool> { using type = std::uint8_t; };
template <> struct DtypeTraits<Dtype::Byte> { using type = std::uint8_t; };

// Calls f(std::type_identity<T>{}) with the element type of `t`; returns what f returns.
template <class F> decltype(auto) visitDtype(Dtype t, F&& f) {
    switch (t) {
    case Dtype::Int8:
        return f(std::type_identity<std::int8_t>{});
    case Dtype::Int16:
        return f(std::type_identity<std::int16_t>{});
    case Dtype::Int32:
        return f(std::type_identity<std::int32_t>{});
    case Dtype::Int64:
        return f(std::type_identity<std::int64_t>{});
    case Dtype::Float:
        return f(std::type_identity<float>{});
    case Dtype::Double:
        return f(std::type_identity<double>{});
    case Dtype::Bool:
    case Dtype::Byte:
        return f(std::type_identity<std::uint8_t>{});
    }
    return f(std::type_identity<std::uint8_t>{});
}

} // namespace xt::xdl
