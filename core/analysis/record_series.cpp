#include "core/analysis/record_series.h"

#include <algorithm>

namespace xt::analysis {

void RecordSeries::grow() {
    // A series that filled a chunk fills the next one too: no copies on the way there.
    m_tail.reserve(m_chunks.empty() ? std::min(kChunk, std::max<std::size_t>(8, 2 * m_tail.size()))
                                    : kChunk);
}

void RecordSeries::seal() {
    auto chunk = std::make_shared<std::vector<RecordStats>>();
    chunk->swap(m_tail);
    m_chunks.push_back(std::move(chunk));
}

std::size_t RecordSeries::sharedChunks() const {
    std::size_t n = 0;
    for (const auto& c : m_chunks)
        n += c.use_count() > 1;
    return n;
}

} // namespace xt::analysis
