// The CUDA backend. Tensors are packed into device slabs (each tensor 256-byte aligned) through
// two pinned staging buffers on two streams, so that the host fills one buffer (on every core:
// host_copy.h) while the other is copied and the previous group is computed. Every tensor is cut
// into slices; one launch handles all slices of a group (segmented: many small tensors per
// launch), and every loop over a slice loads kUnroll elements per thread before using them.
//
// Statistics: one block per slice of kSliceElems elements, the corrected two-pass algorithm of
// the CPU kernels with cub::BlockReduce, per-slice partials merged on the host in a fixed order
// (Chan's formula).
//
// Histograms: one block per slice, counts in shared memory when the slots fit, else global
// atomics. A group's slices are widened to give it about kHistBlocksPerSm blocks per
// multiprocessor: each block adds its counts to the output once, so fewer, longer blocks mean
// fewer global atomics on the same few thousand counters (1e9 float32 into 4096 bins on an H100:
// 3.5 -> 1.9 ms). Bins come from bin_math.h so that both backends agree; compiled with
// --fmad=false so the bin edges are computed with the same roundings as on the CPU (and numpy).

#include "core/analysis/bin_math.h"
#include "core/analysis/cuda/cuda_backend.h"
#include "core/analysis/cuda/host_copy.h"

#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

namespace xt::analysis::cuda {

namespace {

constexpr int kThreads = 256;
constexpr unsigned long long kSliceElems = 16384;      // statistics; the least for histograms
constexpr unsigned long long kMaxSliceElems = 1 << 30; // shared uint32 counters cannot overflow
constexpr int kHistBlocksPerSm = 16;
constexpr int kUnroll = 4;
constexpr std::size_t kStageBytes = std::size_t(32) << 20; // each of the two staging buffers
constexpr std::size_t kGroupBytes = kStageBytes;           // tensors packed per upload group
constexpr std::size_t kAlign = 256;
constexpr int kMaxSharedSlots = 12 * 1024;                     // 48 KB of uint32 counters
constexpr std::size_t kMaxCountBytes = std::size_t(256) << 20; // histogram rows per launch
constexpr int kMinComputeCapability = 90;                      // CMAKE_CUDA_ARCHITECTURES

// ---- device side ----

struct Slice {
    const unsigned char* data; // first element of the slice (device)
    unsigned long long count;
    int dtype; // xdl::Dtype wire value
    int tensor;
};

struct Partial {
    unsigned long long count, nan, inf, zeros, finite;
    double min, max, mean, m2, sumSq;
};

struct Pass1 {
    double sum, sq, mn, mx;
    unsigned long long finite, nan, zeros;
};

struct Pass1Sum {
    __device__ Pass1 operator()(const Pass1& a, const Pass1& b) const {
        return {a.sum + b.sum,
                a.sq + b.sq,
                a.mn < b.mn ? a.mn : b.mn,
                a.mx > b.mx ? a.mx : b.mx,
                a.finite + b.finite,
                a.nan + b.nan,
                a.zeros + b.zeros};
    }
};

struct Pass2Sum {
    __device__ double2 operator()(const double2& a, const double2& b) const {
        return make_double2(a.x + b.x, a.y + b.y);
    }
};

template <class T> __device__ inline bool finiteValue(double d) {
    if constexpr (std::is_floating_point_v<T>)
        return fabs(d) < HUGE_VAL;
    else
        return true;
}

// Calls f(double) for each element of the slice that this thread owns (stride kThreads), in
// order, loading kUnroll elements before using them so that several loads are in flight.
template <class T, class F> __device__ inline void forEachElement(const Slice& s, F&& f) {
    const T* __restrict__ p = reinterpret_cast<const T*>(s.data);
    unsigned long long i = threadIdx.x;
    for (; i + (kUnroll - 1) * kThreads < s.count; i += kUnroll * kThreads) {
        T v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            v[u] = p[i + u * kThreads];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            f(double(v[u]));
    }
    for (; i < s.count; i += kThreads)
        f(double(p[i]));
}

template <class T> __device__ void sliceStats(const Slice& s, Partial& out) {
    using Reduce1 = cub::BlockReduce<Pass1, kThreads>;
    using Reduce2 = cub::BlockReduce<double2, kThreads>;
    __shared__ union {
        typename Reduce1::TempStorage r1;
        typename Reduce2::TempStorage r2;
    } tmp;
    __shared__ double provisionalMean;
    Pass1 a{0, 0, HUGE_VAL, -HUGE_VAL, 0, 0, 0};
    forEachElement<T>(s, [&](double d) {
        a.zeros += d == 0.0;
        a.nan += d != d;
        if (finiteValue<T>(d)) {
            ++a.finite;
            a.sum += d;
            a.sq += d * d;
            a.mn = d < a.mn ? d : a.mn;
            a.mx = d > a.mx ? d : a.mx;
        }
    });
    const Pass1 t = Reduce1(tmp.r1).Reduce(a, Pass1Sum{});
    if (threadIdx.x == 0) provisionalMean = t.finite ? t.sum / double(t.finite) : 0.0;
    __syncthreads(); // provisionalMean visible; tmp free for the second reduction
    const double m = provisionalMean;
    double2 cq = make_double2(0, 0);
    forEachElement<T>(s, [&](double d) {
        if (finiteValue<T>(d)) {
            const double e = d - m;
            cq.x += e;
            cq.y += e * e;
        }
    });
    const double2 r = Reduce2(tmp.r2).Reduce(cq, Pass2Sum{});
    if (threadIdx.x == 0) {
        Partial p;
        p.count = s.count;
        p.nan = t.nan;
        p.finite = t.finite;
        p.inf = s.count - t.finite - t.nan;
        p.zeros = t.zeros;
        p.min = t.mn;
        p.max = t.mx;
        p.sumSq = t.sq;
        if (t.finite) {
            const double n = double(t.finite);
            p.mean = m + r.x / n;
            const double m2 = r.y - r.x * r.x / n;
            p.m2 = m2 > 0 ? m2 : 0.0;
        } else {
            p.mean = 0;
            p.m2 = 0;
        }
        out = p;
    }
}

// Calls F::template run<T>() with the element type of an xdl::Dtype wire value.
#define XT_DISPATCH_DTYPE(dtype, CALL)                                                             \
    switch (dtype) {                                                                               \
    case 0:                                                                                        \
        CALL(signed char);                                                                         \
        break;                                                                                     \
    case 1:                                                                                        \
        CALL(short);                                                                               \
        break;                                                                                     \
    case 2:                                                                                        \
        CALL(int);                                                                                 \
        break;                                                                                     \
    case 3:                                                                                        \
        CALL(long long);                                                                           \
        break;                                                                                     \
    case 4:                                                                                        \
        CALL(float);                                                                               \
        break;                                                                                     \
    case 5:                                                                                        \
        CALL(double);                                                                              \
        break;                                                                                     \
    default:                                                                                       \
        CALL(unsigned char);                                                                       \
        break;                                                                                     \
    }

__global__ void statsKernel(const Slice* slices, Partial* out) {
    const Slice s = slices[blockIdx.x];
#define XT_STATS_CALL(T) sliceStats<T>(s, out[blockIdx.x])
    XT_DISPATCH_DTYPE(s.dtype, XT_STATS_CALL)
#undef XT_STATS_CALL
}

template <class T>
__device__ void sliceHistogram(const Slice& s, const BinParams& p, unsigned int* shared,
                               unsigned long long* row) {
    forEachElement<T>(s, [&](double d) {
        const int slot = slotOf(p, d);
        if (shared)
            atomicAdd(&shared[slot], 1u);
        else
            atomicAdd(&row[slot], 1ull);
    });
}

__global__ void histogramKernel(const Slice* slices, BinParams p, unsigned long long* counts,
                                int slots, int useShared) {
    extern __shared__ unsigned int sharedCounts[];
    if (useShared) {
        for (int j = threadIdx.x; j < slots; j += kThreads)
            sharedCounts[j] = 0;
        __syncthreads();
    }
    const Slice s = slices[blockIdx.x];
    unsigned long long* row = counts + std::size_t(s.tensor) * std::size_t(slots);
    unsigned int* shared = useShared ? sharedCounts : nullptr;
#define XT_HIST_CALL(T) sliceHistogram<T>(s, p, shared, row)
    XT_DISPATCH_DTYPE(s.dtype, XT_HIST_CALL)
#undef XT_HIST_CALL
    if (useShared) {
        __syncthreads();
        for (int j = threadIdx.x; j < slots; j += kThreads)
            if (sharedCounts[j]) atomicAdd(&row[j], (unsigned long long)sharedCounts[j]);
    }
}

// ---- host side ----

Status cudaStatus(cudaError_t e, const char* what) {
    (void)cudaGetLastError(); // clear a sticky launch error
    return Status(ErrorCode::Internal,
                  std::string("CUDA ") + what + " failed: " + cudaGetErrorString(e));
}

#define XT_CUDA_TRY(expr)                                                                          \
    do {                                                                                           \
        cudaError_t xt_e_ = (expr);                                                                \
        if (xt_e_ != cudaSuccess) return cudaStatus(xt_e_, #expr);                                 \
    } while (0)

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    ~DeviceBuffer() {
        if (m_p) cudaFree(m_p);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    // Grows to at least `bytes` (contents are not kept).
    Status reserve(std::size_t bytes) {
        if (bytes <= m_bytes) return Status::ok();
        if (m_p) cudaFree(m_p);
        m_p = nullptr;
        m_bytes = 0;
        XT_CUDA_TRY(cudaMalloc(&m_p, bytes));
        m_bytes = bytes;
        return Status::ok();
    }
    unsigned char* get() const { return static_cast<unsigned char*>(m_p); }

private:
    void* m_p = nullptr;
    std::size_t m_bytes = 0;
};

std::size_t alignUp(std::size_t n) {
    return (n + kAlign - 1) / kAlign * kAlign;
}

// Identifies a tensor's bytes: address, size and a sample of its contents.
struct CacheKey {
    const std::uint8_t* ptr;
    std::size_t bytes;
    std::uint64_t sample;
    bool operator==(const CacheKey&) const = default;
};

struct CacheKeyHash {
    std::size_t operator()(const CacheKey& k) const {
        return std::hash<const void*>()(k.ptr) ^ (k.bytes * 0x9e3779b97f4a7c15ull) ^ k.sample;
    }
};

CacheKey keyOf(const xdl::TensorView& t) {
    const auto b = t.bytes();
    std::uint64_t h = 1469598103934665603ull; // FNV-1a over up to 3 x 64 sampled bytes
    auto mix = [&](std::size_t from) {
        const std::size_t end = std::min(b.size(), from + 64);
        for (std::size_t i = from; i < end; ++i)
            h = (h ^ b[i]) * 1099511628211ull;
    };
    mix(0);
    if (b.size() > 128) mix(b.size() / 2);
    if (b.size() > 64) mix(b.size() - 64);
    return {b.data(), b.size(), h};
}

struct CacheEntry {
    std::shared_ptr<DeviceBuffer> slab;
    std::size_t offset;
    std::list<CacheKey>::iterator lru;
};

// One upload group: tensors packed into one slab (or one large tensor alone).
struct Group {
    std::vector<std::size_t> tensors; // indices into the batch
    std::vector<std::size_t> offsets; // in the slab
    std::size_t bytes = 0;
    std::shared_ptr<DeviceBuffer> slab; // null for the group of already resident tensors
};

class CudaBackend final : public Backend {
public:
    ~CudaBackend() override {
        for (cudaStream_t s : m_stream)
            if (s) cudaStreamSynchronize(s);
        m_cache.clear();
        for (int i = 0; i < 2; ++i) {
            if (m_stage[i]) cudaFreeHost(m_stage[i]);
            if (m_stageEvent[i]) cudaEventDestroy(m_stageEvent[i]);
            if (m_stream[i]) cudaStreamDestroy(m_stream[i]);
        }
    }

    Status init() {
        XT_CUDA_TRY(cudaSetDevice(0));
        cudaDeviceProp prop{};
        XT_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
        m_name = prop.name;
        m_cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
        m_sms = std::max(1, prop.multiProcessorCount);
        for (int i = 0; i < 2; ++i) {
            XT_CUDA_TRY(cudaStreamCreateWithFlags(&m_stream[i], cudaStreamNonBlocking));
            XT_CUDA_TRY(cudaEventCreateWithFlags(&m_stageEvent[i], cudaEventDisableTiming));
            XT_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&m_stage[i]), kStageBytes));
        }
        std::size_t freeBytes = 0, totalBytes = 0;
        XT_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
        m_cacheBudget = freeBytes / 2;
        return Status::ok();
    }

    BackendKind kind() const override { return BackendKind::Cuda; }
    std::string description() const override {
        return "cuda (" + m_name + ", compute capability " + m_cc + ")";
    }

    Status computeStats(std::span<const xdl::TensorView> batch,
                        std::span<TensorStats> out) override {
        if (out.size() != batch.size())
            return Status(ErrorCode::InvalidArgument, "computeStats: output size != batch size");
        try {
            return statsImpl(batch, out);
        } catch (const std::exception& e) {
            return Status(ErrorCode::Internal, std::string("cuda statistics failed: ") + e.what());
        }
    }

    Status histogram(std::span<const xdl::TensorView> batch, const BinLayout& layout,
                     std::span<Histogram> out) override {
        if (out.size() != batch.size())
            return Status(ErrorCode::InvalidArgument, "histogram: output size != batch size");
        if (layout.bins < 1 || layout.bins > kMaxBins || !(layout.lo < layout.hi))
            return Status(ErrorCode::InvalidArgument, "histogram: invalid bin layout");
        try {
            const std::size_t slots = std::size_t(layout.bins) + kExtraSlots;
            const std::size_t perCall = std::max<std::size_t>(1, kMaxCountBytes / (slots * 8));
            for (std::size_t b = 0; b < batch.size(); b += perCall) {
                const std::size_t n = std::min(perCall, batch.size() - b);
                XT_RETURN_IF_ERROR(histogramImpl(batch.subspan(b, n), layout, out.subspan(b, n)));
            }
            return Status::ok();
        } catch (const std::exception& e) {
            return Status(ErrorCode::Internal, std::string("cuda histogram failed: ") + e.what());
        }
    }

    void releaseCache() override {
        m_cache.clear();
        m_lru.clear();
        m_cachedBytes = 0;
        m_scratch[0].reset(); // a call in flight holds the ones it uses
        m_scratch[1].reset();
    }

private:
    // Plans upload groups and device addresses for every tensor of the batch; tensors already
    // resident form group 0 (no upload). `hold` keeps every slab used alive for the call. With
    // `keep` (histograms, which views re-bin) uploads stay resident in the cache; without it
    // (statistics, computed once per record) they go to the two scratch slabs, one per stream,
    // and nothing is allocated per call.
    Status plan(std::span<const xdl::TensorView> batch, bool keep, std::vector<Group>& groups,
                std::vector<const unsigned char*>& device,
                std::vector<std::shared_ptr<DeviceBuffer>>& hold) {
        groups.assign(1, Group{});
        device.assign(batch.size(), nullptr);
        std::vector<CacheKey> keys(batch.size());
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (batch[i].empty()) continue;
            keys[i] = keyOf(batch[i]);
            auto it = keep ? m_cache.find(keys[i]) : m_cache.end();
            if (it != m_cache.end()) {
                m_lru.splice(m_lru.end(), m_lru, it->second.lru); // most recently used
                device[i] = it->second.slab->get() + it->second.offset;
                hold.push_back(it->second.slab);
                groups[0].tensors.push_back(i);
                continue;
            }
            const std::size_t bytes = alignUp(batch[i].bytes().size());
            if (groups.size() == 1 || groups.back().bytes + bytes > kGroupBytes)
                groups.emplace_back();
            Group& g = groups.back();
            g.tensors.push_back(i);
            g.offsets.push_back(g.bytes);
            g.bytes += bytes;
        }
        std::size_t scratchBytes[2] = {0, 0}; // group gi runs on stream gi % 2
        for (std::size_t gi = 1; gi < groups.size(); ++gi)
            scratchBytes[gi % 2] = std::max(scratchBytes[gi % 2], groups[gi].bytes);
        std::shared_ptr<DeviceBuffer> scratch[2];
        for (int s = 0; s < 2 && !keep; ++s) {
            scratch[s] = m_scratch[s] ? m_scratch[s] : std::make_shared<DeviceBuffer>();
            hold.push_back(scratch[s]);
            XT_RETURN_IF_ERROR(reserveRoom(*scratch[s], scratchBytes[s]));
            m_scratch[s] = scratch[s];
        }
        for (std::size_t gi = 1; gi < groups.size(); ++gi) {
            Group& g = groups[gi];
            if (keep) {
                g.slab = std::make_shared<DeviceBuffer>();
                XT_RETURN_IF_ERROR(reserveRoom(*g.slab, g.bytes));
                hold.push_back(g.slab);
            } else {
                g.slab = scratch[gi % 2];
            }
            for (std::size_t k = 0; k < g.tensors.size(); ++k) {
                const std::size_t i = g.tensors[k];
                device[i] = g.slab->get() + g.offsets[k];
                if (keep) remember(keys[i], g.slab, g.offsets[k], batch[i].bytes().size());
            }
        }
        return Status::ok();
    }

    // Reserves `bytes` in `buffer`, dropping the cache first if the device has no room (slabs in
    // use by this call stay alive through its `hold`).
    Status reserveRoom(DeviceBuffer& buffer, std::size_t bytes) {
        if (buffer.reserve(bytes)) return Status::ok();
        releaseCache();
        return buffer.reserve(bytes);
    }

    void remember(const CacheKey& key, const std::shared_ptr<DeviceBuffer>& slab,
                  std::size_t offset, std::size_t bytes) {
        if (bytes > m_cacheBudget || m_cache.count(key)) return; // too big, or a duplicate view
        while (m_cachedBytes + bytes > m_cacheBudget && !m_lru.empty()) {
            auto it = m_cache.find(m_lru.front());
            m_cachedBytes -= it->first.bytes;
            m_cache.erase(it);
            m_lru.pop_front();
        }
        m_lru.push_back(key);
        m_cache.emplace(key, CacheEntry{slab, offset, std::prev(m_lru.end())});
        m_cachedBytes += bytes;
    }

    // Copies group g's tensors into its slab through the staging buffers, on `stream`.
    Status upload(std::span<const xdl::TensorView> batch, const Group& g, cudaStream_t stream) {
        std::size_t k = 0; // first tensor that may overlap the piece
        std::vector<HostCopy> copies;
        for (std::size_t piece = 0; piece < g.bytes; piece += kStageBytes) {
            const std::size_t len = std::min(kStageBytes, g.bytes - piece);
            const int b = m_nextStage;
            m_nextStage ^= 1;
            XT_CUDA_TRY(cudaEventSynchronize(m_stageEvent[b])); // its previous copy is done
            copies.clear();
            for (std::size_t j = k; j < g.tensors.size(); ++j) {
                const auto bytes = batch[g.tensors[j]].bytes();
                const std::size_t lo = std::max(g.offsets[j], piece);
                const std::size_t hi = std::min(g.offsets[j] + bytes.size(), piece + len);
                if (g.offsets[j] >= piece + len) break;
                if (lo < hi)
                    copies.push_back(
                        {m_stage[b] + (lo - piece), bytes.data() + (lo - g.offsets[j]), hi - lo});
                if (g.offsets[j] + bytes.size() <= piece + len) k = j + 1;
            }
            copyInParallel(copies);
            XT_CUDA_TRY(cudaMemcpyAsync(g.slab->get() + piece, m_stage[b], len,
                                        cudaMemcpyHostToDevice, stream));
            XT_CUDA_TRY(cudaEventRecord(m_stageEvent[b], stream));
        }
        return Status::ok();
    }

    // Slices of every tensor, group by group; sliceBegin[g] is group g's first slice. Slices
    // have kSliceElems elements, or with `blocks` > 0 as many as give each group about that
    // many slices (never fewer than kSliceElems elements).
    void makeSlices(std::span<const xdl::TensorView> batch, const std::vector<Group>& groups,
                    const std::vector<const unsigned char*>& device, std::size_t blocks,
                    std::vector<Slice>& slices, std::vector<std::size_t>& sliceBegin) {
        slices.clear();
        sliceBegin.clear();
        for (const Group& g : groups) {
            sliceBegin.push_back(slices.size());
            unsigned long long sliceElems = kSliceElems;
            if (blocks) {
                unsigned long long elems = 0;
                for (std::size_t i : g.tensors)
                    elems += batch[i].size();
                const unsigned long long wide = (elems + blocks - 1) / blocks;
                sliceElems = std::clamp((wide + 1023) / 1024 * 1024, kSliceElems, kMaxSliceElems);
            }
            for (std::size_t i : g.tensors) {
                const xdl::TensorView& t = batch[i];
                const std::size_t es = xdl::elementSize(t.dtype());
                const unsigned long long n = t.size();
                for (unsigned long long b = 0; b < n; b += sliceElems)
                    slices.push_back(Slice{device[i] + b * es, std::min(sliceElems, n - b),
                                           int(t.dtype()), int(i)});
            }
        }
        sliceBegin.push_back(slices.size());
    }

    // Copies the slice table to the device and zeroes the first `zeroBytes` of the output, on
    // stream 0, and waits: the non-blocking streams do not order against the legacy stream.
    Status uploadSlices(const std::vector<Slice>& slices, std::size_t zeroBytes) {
        XT_CUDA_TRY(cudaMemcpyAsync(m_slices.get(), slices.data(), slices.size() * sizeof(Slice),
                                    cudaMemcpyHostToDevice, m_stream[0]));
        if (zeroBytes) XT_CUDA_TRY(cudaMemsetAsync(m_out.get(), 0, zeroBytes, m_stream[0]));
        XT_CUDA_TRY(cudaStreamSynchronize(m_stream[0]));
        return Status::ok();
    }

    // Uploads, then launches `launch(stream, firstSlice, sliceCount)` per group, alternating
    // streams so transfers of one group overlap the kernels of the previous one.
    template <class Launch>
    Status runGroups(std::span<const xdl::TensorView> batch, const std::vector<Group>& groups,
                     const std::vector<std::size_t>& sliceBegin, Launch&& launch) {
        const Status work = [&]() -> Status {
            for (std::size_t gi = 0; gi < groups.size(); ++gi) {
                cudaStream_t s = m_stream[gi % 2];
                if (groups[gi].slab) XT_RETURN_IF_ERROR(upload(batch, groups[gi], s));
                const std::size_t n = sliceBegin[gi + 1] - sliceBegin[gi];
                if (n) XT_RETURN_IF_ERROR(launch(s, sliceBegin[gi], n));
            }
            return Status::ok();
        }();
        // Always drain both streams: slabs and staging buffers must not be freed or refilled
        // under work still in flight, even after an error.
        const cudaError_t e0 = cudaStreamSynchronize(m_stream[0]);
        const cudaError_t e1 = cudaStreamSynchronize(m_stream[1]);
        const cudaError_t last = cudaGetLastError();
        const Status st = !work.isOk()          ? work
                          : e0 != cudaSuccess   ? cudaStatus(e0, "cudaStreamSynchronize")
                          : e1 != cudaSuccess   ? cudaStatus(e1, "cudaStreamSynchronize")
                          : last != cudaSuccess ? cudaStatus(last, "kernel")
                                                : Status::ok();
        if (!st) releaseCache(); // uploads of this call may be incomplete
        return st;
    }

    Status statsImpl(std::span<const xdl::TensorView> batch, std::span<TensorStats> out) {
        std::vector<Group> groups;
        std::vector<const unsigned char*> device;
        std::vector<std::shared_ptr<DeviceBuffer>> hold;
        XT_RETURN_IF_ERROR(plan(batch, false, groups, device, hold));
        std::vector<Slice> slices;
        std::vector<std::size_t> sliceBegin;
        makeSlices(batch, groups, device, 0, slices, sliceBegin);
        if (!slices.empty()) {
            XT_RETURN_IF_ERROR(m_slices.reserve(slices.size() * sizeof(Slice)));
            XT_RETURN_IF_ERROR(m_out.reserve(slices.size() * sizeof(Partial)));
            XT_RETURN_IF_ERROR(uploadSlices(slices, 0));
            const Slice* dSlices = reinterpret_cast<const Slice*>(m_slices.get());
            Partial* dOut = reinterpret_cast<Partial*>(m_out.get());
            XT_RETURN_IF_ERROR(runGroups(
                batch, groups, sliceBegin,
                [&](cudaStream_t s, std::size_t first, std::size_t n) -> Status {
                    statsKernel<<<unsigned(n), kThreads, 0, s>>>(dSlices + first, dOut + first);
                    XT_CUDA_TRY(cudaGetLastError());
                    return Status::ok();
                }));
        }
        std::vector<Partial> partials(slices.size());
        if (!slices.empty())
            XT_CUDA_TRY(cudaMemcpy(partials.data(), m_out.get(), partials.size() * sizeof(Partial),
                                   cudaMemcpyDeviceToHost));
        std::vector<StatsAccumulator> acc(batch.size());
        for (std::size_t i = 0; i < slices.size(); ++i) { // a tensor's slices are in order
            const Partial& p = partials[i];
            StatsAccumulator a;
            a.count = p.count;
            a.nan = p.nan;
            a.inf = p.inf;
            a.zeros = p.zeros;
            a.finite = p.finite;
            if (p.finite) {
                a.min = p.min;
                a.max = p.max;
                a.mean = p.mean;
                a.m2 = p.m2;
            }
            a.sumSq = p.sumSq;
            acc[std::size_t(slices[i].tensor)].merge(a);
        }
        for (std::size_t i = 0; i < batch.size(); ++i)
            out[i] = acc[i].finish();
        return Status::ok();
    }

    Status histogramImpl(std::span<const xdl::TensorView> batch, const BinLayout& layout,
                         std::span<Histogram> out) {
        const int slots = layout.bins + kExtraSlots;
        std::vector<Group> groups;
        std::vector<const unsigned char*> device;
        std::vector<std::shared_ptr<DeviceBuffer>> hold;
        XT_RETURN_IF_ERROR(plan(batch, true, groups, device, hold));
        std::vector<Slice> slices;
        std::vector<std::size_t> sliceBegin;
        makeSlices(batch, groups, device, std::size_t(m_sms) * kHistBlocksPerSm, slices,
                   sliceBegin);
        const std::size_t countBytes = batch.size() * std::size_t(slots) * 8;
        std::vector<unsigned long long> counts(batch.size() * std::size_t(slots), 0);
        if (!slices.empty()) {
            XT_RETURN_IF_ERROR(m_slices.reserve(slices.size() * sizeof(Slice)));
            XT_RETURN_IF_ERROR(m_out.reserve(countBytes));
            XT_RETURN_IF_ERROR(uploadSlices(slices, countBytes));
            const Slice* dSlices = reinterpret_cast<const Slice*>(m_slices.get());
            auto* dCounts = reinterpret_cast<unsigned long long*>(m_out.get());
            const BinParams bp = BinParams::from(layout);
            const int useShared = slots <= kMaxSharedSlots ? 1 : 0;
            const std::size_t shared = useShared ? std::size_t(slots) * sizeof(unsigned) : 0;
            XT_RETURN_IF_ERROR(
                runGroups(batch, groups, sliceBegin,
                          [&](cudaStream_t s, std::size_t first, std::size_t n) -> Status {
                              histogramKernel<<<unsigned(n), kThreads, shared, s>>>(
                                  dSlices + first, bp, dCounts, slots, useShared);
                              XT_CUDA_TRY(cudaGetLastError());
                              return Status::ok();
                          }));
            XT_CUDA_TRY(cudaMemcpy(counts.data(), m_out.get(), countBytes, cudaMemcpyDeviceToHost));
        }
        for (std::size_t i = 0; i < batch.size(); ++i) {
            Histogram h(layout);
            const unsigned long long* row = counts.data() + i * std::size_t(slots);
            for (int b = 0; b < layout.bins; ++b)
                h.counts[std::size_t(b)] = row[b];
            h.nan = row[layout.bins + kSlotNan];
            h.posInf = row[layout.bins + kSlotPosInf];
            h.negInf = row[layout.bins + kSlotNegInf];
            h.below = row[layout.bins + kSlotBelow];
            h.above = row[layout.bins + kSlotAbove];
            out[i] = std::move(h);
        }
        return Status::ok();
    }

    std::string m_name, m_cc;
    int m_sms = 1;
    cudaStream_t m_stream[2] = {nullptr, nullptr};
    cudaEvent_t m_stageEvent[2] = {nullptr, nullptr};
    unsigned char* m_stage[2] = {nullptr, nullptr};
    int m_nextStage = 0;
    DeviceBuffer m_slices, m_out;
    std::shared_ptr<DeviceBuffer> m_scratch[2];
    std::unordered_map<CacheKey, CacheEntry, CacheKeyHash> m_cache;
    std::list<CacheKey> m_lru;
    std::size_t m_cachedBytes = 0;
    std::size_t m_cacheBudget = 0;
};

} // namespace

bool deviceAvailable(std::string* why) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (why) *why = cudaGetErrorString(e);
        return false;
    }
    if (count <= 0) {
        if (why) *why = "no CUDA device";
        return false;
    }
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        if (why) *why = "cannot query device 0";
        return false;
    }
    if (major * 10 + minor < kMinComputeCapability) {
        if (why)
            *why = "device 0 has compute capability " + std::to_string(major) + "." +
                   std::to_string(minor) + "; this build needs 9.0 or newer";
        return false;
    }
    return true;
}

std::unique_ptr<Backend> makeCudaBackend(std::string* why) {
    if (!deviceAvailable(why)) return nullptr;
    try {
        auto backend = std::make_unique<CudaBackend>();
        Status st = backend->init();
        if (!st) {
            if (why) *why = st.message();
            return nullptr;
        }
        return backend;
    } catch (const std::exception& e) {
        if (why) *why = e.what();
        return nullptr;
    }
}

} // namespace xt::analysis::cuda
