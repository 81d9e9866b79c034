#pragma once
// The viewer's one analysis backend (core/analysis/shared_backend.h): every job of the
// application (statistics, histograms, comparisons) takes it from here with its work size, and
// the main window notes the size of the runs it opens.

#include "core/analysis/shared_backend.h"

namespace xt::widgets {

analysis::SharedBackend& appBackend();

} // namespace xt::widgets
