#pragma once
// One analysis backend for the views of an application that re-bin tensors (the histogram view,
// the compare view's histograms), shared by their jobs. It is chosen from the work size the
// application reports: with Auto, the CUDA backend is tried once the largest work seen reaches
// kCudaAutoMinBytes, and from then on every such job uses it, so its device-resident cache is
// reused (one-pass statistics take selectBackend's CPU instead). Calls into the backend are
// serialized, so jobs on several worker threads may share it.

#include "core/analysis/backend.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace xt::analysis {

class SharedBackend {
public:
    // How a backend is made (selectBackend; tests pass their own).
    using Factory = std::function<BackendSelection(BackendChoice, std::uint64_t workBytes)>;

    explicit SharedBackend(BackendChoice choice = BackendChoice::Auto, int cpuThreads = 0,
                           Factory factory = {});

    // The backend for a job of `workBytes` bytes (never null). Holders keep theirs even if a
    // later, larger job makes the application switch to CUDA.
    std::shared_ptr<Backend> get(std::uint64_t workBytes = 0);
    // Reports work to come (e.g. the size of the runs just opened) without choosing yet, so a
    // thread that must not wait for a device (the GUI thread) can report it.
    void noteWork(std::uint64_t workBytes);
    // The current backend's description ("" before the first get) and the note of the last
    // choice (why CUDA was not used, or "").
    std::string description() const;
    std::string note() const;

private:
    void chooseLocked();

    mutable std::mutex m_mutex;
    BackendChoice m_choice;
    Factory m_factory;
    std::uint64_t m_largest = 0;
    bool m_cudaTried = false;
    std::shared_ptr<Backend> m_current;
    std::string m_note;
};

} // namespace xt::analysis
