#pragma once
// The per-part work that xtview.dask hands to workers, and the listing of a run's parts that
// plans it: xtview._core.list_parts, xtview._core.summarize_part.

#include <pybind11/pybind11.h>

namespace xt::py {

void bindPartTasks(pybind11::module_& m);

} // namespace xt::py
