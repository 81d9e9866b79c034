// xtview._core: the C++ core for the xtview Python package (see python/CMakeLists.txt).
#include "python/bindings/part_tasks.h"
#include "python/bindings/py_run.h"
#include "python/bindings/py_timeline.h"

#include <pybind11/pybind11.h>

PYBIND11_MODULE(_core, m) {
    m.doc() = "xtview's C++ core (XDL runs, analyses, timelines); use the xtview package.";
    xt::py::bindRun(m);
    xt::py::bindTimeline(m);
    xt::py::bindPartTasks(m);
}
