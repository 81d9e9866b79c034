#include "widgets/app_backend.h"

namespace xt::widgets {

analysis::SharedBackend& appBackend() {
    static analysis::SharedBackend backend(analysis::BackendChoice::Auto);
    return backend;
}

} // namespace xt::widgets
