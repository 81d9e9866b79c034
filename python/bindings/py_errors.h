#pragma once
// Core errors as Python exceptions: a Status becomes the xtview.errors class of its code, with
// the message, the code name and the located diagnostics of the operation (errors and warnings)
// appended to the text. Call with the GIL held.

#include "core/base/diagnostics.h"
#include "core/base/status.h"

#include <pybind11/pybind11.h>

#include <utility>

namespace xt::py {

[[noreturn]] void raise(const Status& status, const Diagnostics* diag = nullptr);

// The value of `r`, or raise(r.status(), diag).
template <class T> T take(Result<T>&& r, const Diagnostics* diag = nullptr) {
    if (!r) raise(r.status(), diag);
    return std::move(*r);
}

// Every stored diagnostic as "file:offset: record N: severity: message [code]".
pybind11::list diagnosticTexts(const Diagnostics& diag);

} // namespace xt::py
