#pragma once
// A typed, read-only view of one tensor's elements, straight over the mapped file. The bytes in
// a trace file have no alignment guarantee, so elements are loaded with memcpy (which compiles
// to plain unaligned loads and vectorises).

#include "core/xdl/dtype.h"
#include "core/xdl/wire.h"

#include <cstring>
#include <vector>

namespace xt::xdl {

// Elements of type T at an arbitrary address.
template <class T> class UnalignedArray {
public:
    UnalignedArray(const std::uint8_t* p, std::size_t n) : m_p(p), m_n(n) {}
    std::size_t size() const { return m_n; }
    T operator[](std::size_t i) const {
        T v;
        std::memcpy(&v, m_p + i * sizeof(T), sizeof(T));
        return v;
    }

private:
    const std::uint8_t* m_p;
    std::size_t m_n;
};

class TensorView {
public:
    TensorView() = default;
    TensorView(Dtype dtype, const Shape& shape, Bytes data)
        : m_dtype(dtype), m_shape(shape), m_data(data) {}

    Dtype dtype() const { return m_dtype; }
    const Shape& shape() const { return m_shape; }
    Bytes bytes() const { return m_data; }
    std::size_t size() const { return m_data.size() / elementSize(m_dtype); }
    bool empty() const { return m_data.empty(); }

    // Element i as T; T must be the element type of dtype() (see DtypeTraits).
    template <class T> T at(std::size_t i) const { return array<T>()[i]; }
    template <class T> UnalignedArray<T> array() const { return {m_data.data(), size()}; }
    // Element i converted to double (bool as 0/1, integers converted).
    double valueAsDouble(std::size_t i) const {
        return visitDtype(m_dtype, [&](auto t) {
            using T = typename decltype(t)::type;
            return static_cast<double>(at<T>(i));
        });
    }
    // Calls f(UnalignedArray<T>) with the element type of dtype().
    template <class F> decltype(auto) visit(F&& f) const {
        return visitDtype(m_dtype, [&](auto t) {
            using T = typename decltype(t)::type;
            return f(array<T>());
        });
    }
    std::vector<double> toDoubles() const {
        std::vector<double> out(size());
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = valueAsDouble(i);
        return out;
    }

private:
    Dtype m_dtype = Dtype::Float;
    Shape m_shape;
    Bytes m_data;
};

} // namespace xt::xdl
