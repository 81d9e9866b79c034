#include "python/bindings/py_errors.h"

namespace xt::py {

namespace pyb = pybind11;

namespace {
constexpr std::size_t kMaxInMessage = 10; // located diagnostics quoted in the message
}

void raise(const Status& status, const Diagnostics* diag) {
    std::string text = status.message();
    pyb::list located;
    if (diag) {
        std::size_t quoted = 0;
        for (const auto& d : diag->items()) {
            if (d.severity == Severity::Info) continue;
            located.append(d.toString());
            if (quoted++ < kMaxInMessage) text += "\n  " + d.toString();
        }
        if (diag->total() > diag->items().size())
            text += "\n  (" + std::to_string(diag->total() - diag->items().size()) +
                    " more diagnostics not shown)";
    }
    const char* code = errorCodeName(status.code());
    pyb::object cls = pyb::module_::import("xtview.errors").attr("class_for_code")(code);
    pyb::object exc = cls(text, code, located);
    PyErr_SetObject(cls.ptr(), exc.ptr());
    throw pyb::error_already_set();
}

pyb::list diagnosticTexts(const Diagnostics& diag) {
    pyb::list out;
    for (const auto& d : diag.items())
        out.append(d.toString());
    return out;
}

} // namespace xt::py
