#pragma once
// Result columns handed to Python as numpy arrays without a copy: the vector moves into a
// capsule that the array owns.

#include <pybind11/numpy.h>

#include <vector>

namespace xt::py {

template <class T> pybind11::array_t<T> toArray(std::vector<T>&& values) {
    auto* owned = new std::vector<T>(std::move(values));
    pybind11::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return pybind11::array_t<T>({owned->size()}, {sizeof(T)}, owned->data(), owner);
}

} // namespace xt::py
