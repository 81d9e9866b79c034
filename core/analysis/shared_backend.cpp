#include "core/analysis/shared_backend.h"

namespace xt::analysis {

namespace {

// Serializes every call into one backend.
class SerializedBackend final : public Backend {
public:
    explicit SerializedBackend(std::unique_ptr<Backend> inner) : m_inner(std::move(inner)) {}
    BackendKind kind() const override { return m_inner->kind(); }
    std::string description() const override {
        std::lock_guard lock(m_mutex);
        return m_inner->description();
    }
    Status computeStats(std::span<const xdl::TensorView> batch,
                        std::span<TensorStats> out) override {
        std::lock_guard lock(m_mutex);
        return m_inner->computeStats(batch, out);
    }
    Status histogram(std::span<const xdl::TensorView> batch, const BinLayout& layout,
                     std::span<Histogram> out) override {
        std::lock_guard lock(m_mutex);
        return m_inner->histogram(batch, layout, out);
    }
    void releaseCache() override {
        std::lock_guard lock(m_mutex);
        m_inner->releaseCache();
    }

private:
    mutable std::mutex m_mutex;
    std::unique_ptr<Backend> m_inner;
};

} // namespace

SharedBackend::SharedBackend(BackendChoice choice, int cpuThreads, Factory factory)
    : m_choice(choice), m_factory(std::move(factory)) {
    if (!m_factory)
        m_factory = [cpuThreads](BackendChoice c, std::uint64_t workBytes) {
            return selectBackend(c, workBytes, cpuThreads);
        };
}

void SharedBackend::chooseLocked() {
    m_cudaTried = m_choice == BackendChoice::Cuda ||
                  (m_choice == BackendChoice::Auto && m_largest >= kCudaAutoMinBytes);
    BackendSelection sel = m_factory(m_choice, m_largest);
    m_note = std::move(sel.note);
    m_current = std::make_shared<SerializedBackend>(std::move(sel.backend));
}

std::shared_ptr<Backend> SharedBackend::get(std::uint64_t workBytes) {
    std::lock_guard lock(m_mutex);
    m_largest = std::max(m_largest, workBytes);
    if (!m_current || (m_choice == BackendChoice::Auto && !m_cudaTried &&
                       m_largest >= kCudaAutoMinBytes && m_current->kind() == BackendKind::Cpu))
        chooseLocked();
    return m_current;
}

void SharedBackend::noteWork(std::uint64_t workBytes) {
    std::lock_guard lock(m_mutex);
    m_largest = std::max(m_largest, workBytes);
}

std::string SharedBackend::description() const {
    std::lock_guard lock(m_mutex);
    return m_current ? m_current->description() : std::string();
}

std::string SharedBackend::note() const {
    std::lock_guard lock(m_mutex);
    return m_note;
}

} // namespace xt::analysis
