#pragma once
// A TraceStore imported from Chrome-trace JSON text, for tests: a failed import fails the test
// with its status and gives an empty store.

#include "core/timeline/chrome_trace_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace xt::timeline::test {

inline TraceStore importJson(const std::string& json, const ImportOptions& options = {}) {
    auto r = importChromeTraceBytes(json, options);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? std::move(r.value()) : TraceStore{};
}

} // namespace xt::timeline::test
