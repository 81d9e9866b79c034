#pragma once
// xtview._core.Timeline: a Chrome trace imported for Python, with the op summary and the step
// breakdown as numpy columns named as in the CLI's CSVs (core/export/op_summary_csv.h).

#include <pybind11/pybind11.h>

namespace xt::py {

void bindTimeline(pybind11::module_& m);

} // namespace xt::py
