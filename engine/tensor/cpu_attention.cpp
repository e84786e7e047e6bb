// CPU flash attention (see cpu_attention.h): per (batch, head, query chunk) task, the keys and values staged once as
// float32 tiles, then 64 x 64 score tiles, an online softmax and P V in registers; bfloat16 operands on AVX512-BF16
// hosts go to cpu_attention_bf16.cpp instead.
#include "tensor/cpu_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensor/cpu_attention_kernels.h"
#include "tensor/creation.h"
#include "tensor/half.h"
#include "tensor/shape.h"
#include "tensor/simd_dispatch.h"
#include "tensor/vector_math.h"
#include "tensor/worker_pool.h"

namespace eng::tensor::cpuops {

namespace {

using namespace flash;

// Sixteen floats: GCC's vector extension, one zmm register under AVX-512 (simd::run compiles the kernel per level),
// two ymm or four xmm registers below it.
// Every function taking or returning one is inlined, so GCC's note on the vector ABI does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
using V16 = float __attribute__((vector_size(64)));
[[gnu::always_inline]] inline V16 load(const float* p) {
    V16 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
[[gnu::always_inline]] inline void store(float* p, V16 v) { std::memcpy(p, &v, sizeof v); }
// Lane 0 shuffled into every lane: GCC makes this one broadcast, folded into the FMA that reads it (V16{} + x adds
// in scalar first, since -0 + 0 is +0; sixteen x's in an initializer become sixteen masked inserts).
using I16 = int32_t __attribute__((vector_size(64)));
[[gnu::always_inline]] inline V16 splat(float x) { return __builtin_shuffle(V16{x}, I16{}); }

// scores[r][0..64) = queries[r] . keysT[:, j0..j0+64) for kRows rows: E rank-1 updates of 16 accumulators.
[[gnu::always_inline]] inline void scoreTile(const float* queries, int64_t E, const float* keysT, int64_t keyPitch, float* scores) {
    V16 acc[kRows][4] = {};
    for (int64_t e = 0; e < E; ++e) {
        const float* k = keysT + e * keyPitch;
        const V16 k0 = load(k), k1 = load(k + 16), k2 = load(k + 32), k3 = load(k + 48);
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r) {
            const V16 qv = splat(queries[r * E + e]);
            acc[r][0] += qv * k0;
            acc[r][1] += qv * k1;
            acc[r][2] += qv * k2;
            acc[r][3] += qv * k3;
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) store(scores + r * kKeyBlock + c * kLanes, acc[r][c]);
}

// acc[r][c0 .. c0 + 16 NV) += sum_j p[r][j] values[j][c0 ..] for kRows rows over `keys` keys.
template <int NV>
[[gnu::always_inline]] inline void valueTile(const float* p, int64_t keys, const float* values, int64_t valuePitch, float* acc,
                                             int64_t accPitch) {
    V16 sum[kRows][NV];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) sum[r][c] = load(acc + r * accPitch + c * kLanes);
    for (int64_t j = 0; j < keys; ++j) {
        V16 vv[NV];
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) vv[c] = load(values + j * valuePitch + c * kLanes);
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r) {
            const V16 pv = splat(p[r * kKeyBlock + j]);
#pragma GCC unroll 4
            for (int c = 0; c < NV; ++c) sum[r][c] += pv * vv[c];
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) store(acc + r * accPitch + c * kLanes, sum[r][c]);
}

// out[0, n) = float(row[i * stride]) * scale; the unit stride (rows of a projection) as a loop that vectorises.
template <typename T>
[[gnu::always_inline]] inline void convertRow(const T* row, int64_t stride, int64_t n, float scale, float* out) {
    if (stride == 1)
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(row[i]) * scale;
    else
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(row[i * stride]) * scale;
}

// The online softmax of one score tile, row by row: masked keys (past the end, or after the query when causal) count
// -inf; scores become exp(score - running max), and the row's sum and accumulators are rescaled to the new max.
[[gnu::always_inline]] inline void onlineSoftmax(const Problem& pr, Scratch& s, float* scores, float* acc, int64_t Evp, int64_t rowsPadded,
                                                 int64_t keys, int64_t qa, int64_t j0) {
    for (int64_t r = 0; r < rowsPadded; ++r) {
        float* row = scores + r * kKeyBlock;
        const int64_t allowed = std::min<int64_t>(keys, pr.causal ? qa + r + 1 - j0 : keys);
        for (int64_t j = std::max<int64_t>(allowed, 0); j < kKeyBlock; ++j) row[j] = kNegInf;
        V16 top = splat(kNegInf);
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) {
            const V16 x = load(row + c * kLanes);
            top = x > top ? x : top;
        }
        float tileMax = kNegInf;
        for (int l = 0; l < kLanes; ++l) tileMax = std::max(tileMax, top[l]);
        const float before = s.rowMax[r], now = std::max(before, tileMax);
        if (now == kNegInf) {  // nothing seen yet: the row's weights here are all 0
            std::fill(row, row + kKeyBlock, 0.0f);
            continue;
        }
        for (int j = 0; j < kKeyBlock; ++j) row[j] = vecmath::exp(row[j] - now);
        V16 total{};
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) total += load(row + c * kLanes);
        float tileSum = 0.0f;
        for (int l = 0; l < kLanes; ++l) tileSum += total[l];
        const float rescale = before == kNegInf ? 0.0f : vecmath::exp(before - now);
        s.rowSum[r] = s.rowSum[r] * rescale + tileSum;
        s.rowMax[r] = now;
        if (rescale != 1.0f) {
            float* a = acc + r * Evp;
            for (int64_t e = 0; e < Evp; ++e) a[e] *= rescale;
        }
    }
}

// Queries [q0, q1) of one (batch, head): q1 - q0 rows of the output, written as [batch, L, heads, Ev].
template <typename T>
[[gnu::always_inline]] inline void attendChunk(const Problem& pr, int64_t b, int64_t h, int64_t q0, int64_t q1, Scratch& s) {
    const int64_t E = pr.E, Ev = pr.Ev, Evp = roundUp(Ev, kLanes);
    const int64_t keyEnd = keysSeen(pr, q1);
    const int64_t keyPitch = roundUp(keyEnd, kKeyBlock);
    // Keys transposed ([E, keyPitch], zero past keyEnd) and values ([keyEnd, Evp], zero past Ev) in float32.
    float* keysT = Scratch::floats(s.keysT, E * keyPitch);
    float* values = Scratch::floats(s.values, keyEnd * Evp);
    const T* kBase = static_cast<const T*>(pr.k.data) + b * pr.k.batch + h * pr.k.head;
    const T* vBase = static_cast<const T*>(pr.v.data) + b * pr.v.batch + h * pr.v.head;
    for (int64_t e = 0; e < E; ++e) std::fill(keysT + e * keyPitch + keyEnd, keysT + (e + 1) * keyPitch, 0.0f);
    // Keys go through rows of 16 converted in place, then transposed 16 at a time (strided stores of whole rows
    // of E would miss the cache at every element).
    float* staged = Scratch::floats(s.staged, kLanes * E);
    for (int64_t j0 = 0; j0 < keyEnd; j0 += kLanes) {
        const int64_t count = std::min<int64_t>(kLanes, keyEnd - j0);
        for (int64_t r = 0; r < count; ++r) convertRow(kBase + (j0 + r) * pr.k.row, pr.k.col, E, 1.0f, staged + r * E);
        for (int64_t e = 0; e < E; ++e)
            for (int64_t r = 0; r < count; ++r) keysT[e * keyPitch + j0 + r] = staged[r * E + e];
    }
    for (int64_t j = 0; j < keyEnd; ++j) {
        float* vo = values + j * Evp;
        convertRow(vBase + j * pr.v.row, pr.v.col, Ev, 1.0f, vo);
        for (int64_t e = Ev; e < Evp; ++e) vo[e] = 0.0f;
    }
    float* queries = Scratch::floats(s.queries, kQueryBlock * E);
    float* scores = Scratch::floats(s.scores, kQueryBlock * kKeyBlock);
    float* acc = Scratch::floats(s.acc, kQueryBlock * Evp);
    const T* qBase = static_cast<const T*>(pr.q.data) + b * pr.q.batch + h * pr.q.head;
    T* out = static_cast<T*>(pr.out);
    for (int64_t qa = q0; qa < q1; qa += kQueryBlock) {
        const int64_t rows = std::min<int64_t>(kQueryBlock, q1 - qa), rowsPadded = roundUp(rows, kRows);
        for (int64_t r = 0; r < rows; ++r) convertRow(qBase + (qa + r) * pr.q.row, pr.q.col, E, pr.scale, queries + r * E);
        std::fill(queries + rows * E, queries + rowsPadded * E, 0.0f);
        s.startQueryBlock(acc, rowsPadded * Evp);
        const int64_t tileKeyEnd = keysSeen(pr, qa + rows);
        for (int64_t j0 = 0; j0 < tileKeyEnd; j0 += kKeyBlock) {
            const int64_t keys = std::min<int64_t>(kKeyBlock, tileKeyEnd - j0);
            for (int64_t r = 0; r < rowsPadded; r += kRows) scoreTile(queries + r * E, E, keysT + j0, keyPitch, scores + r * kKeyBlock);
            onlineSoftmax(pr, s, scores, acc, Evp, rowsPadded, keys, qa, j0);
            for (int64_t r = 0; r < rowsPadded; r += kRows)
                for (int64_t c0 = 0; c0 < Evp; c0 += 4 * kLanes) {
                    const float* p = scores + r * kKeyBlock;
                    const float* vv = values + j0 * Evp + c0;
                    float* a = acc + r * Evp + c0;
                    switch (std::min<int64_t>(4, (Evp - c0) / kLanes)) {
                        case 4: valueTile<4>(p, keys, vv, Evp, a, Evp); break;
                        case 3: valueTile<3>(p, keys, vv, Evp, a, Evp); break;
                        case 2: valueTile<2>(p, keys, vv, Evp, a, Evp); break;
                        default: valueTile<1>(p, keys, vv, Evp, a, Evp); break;
                    }
                }
        }
        for (int64_t r = 0; r < rows; ++r) {
            const float inverse = 1.0f / s.rowSum[r];
            T* o = out + ((b * pr.L + qa + r) * pr.heads + h) * Ev;
            for (int64_t e = 0; e < Ev; ++e) o[e] = static_cast<T>(acc[r * Evp + e] * inverse);
        }
    }
}

Operand operandOf(const Tensor& t) { return {t.data(), t.stride(0), t.stride(1), t.stride(2), t.stride(3)}; }

template <typename T>
void run(const Problem& pr, int64_t batch) {
    const int64_t tiles = (pr.L + kQueryBlock - 1) / kQueryBlock, heads = batch * pr.heads;
    // Enough tasks to balance the threads (four each), yet as few chunks per head as that allows: each chunk
    // converts its keys and values once.
    const int64_t wanted = 4 * static_cast<int64_t>(workerThreadCount());
    const int64_t chunks = std::clamp<int64_t>((wanted + heads - 1) / heads, 1, tiles);
    const int64_t tilesPerChunk = (tiles + chunks - 1) / chunks;
    const int64_t chunkCount = (tiles + tilesPerChunk - 1) / tilesPerChunk;
    const bool bf16Kernel = bf16KernelApplies();
    runOnWorkers(heads * chunkCount, [&](int64_t task) {
        // The last chunks first: under a causal mask they see the most keys.
        const int64_t chunk = chunkCount - 1 - task / heads, bh = task % heads;
        const int64_t q0 = chunk * tilesPerChunk * kQueryBlock, q1 = std::min(pr.L, q0 + tilesPerChunk * kQueryBlock);
        thread_local Scratch scratch;
        if constexpr (std::is_same_v<T, BFloat16>)
            if (bf16Kernel) return attendChunkBf16(pr, bh / pr.heads, bh % pr.heads, q0, q1, scratch);
        simd::run([&] { attendChunk<T>(pr, bh / pr.heads, bh % pr.heads, q0, q1, scratch); });
    });
}

}  // namespace

bool flashAttentionEnabled() {
    static const bool enabled = [] {
        const char* setting = std::getenv("CWB_CPU_FLASH");
        return !setting || std::string_view(setting) != "0";
    }();
    return enabled;
}

bool flashAttentionTakes(DType dtype, int64_t rank, int64_t headDim, int64_t valueHeadDim) {
    return flashAttentionEnabled() && (dtype == DType::Float32 || dtype == DType::BFloat16 || dtype == DType::Float16) && rank == 4 &&
           headDim <= kMaxHeadDim && valueHeadDim <= kMaxHeadDim;
}

bool flashAttentionSupported(const Tensor& query, const Tensor& key, const Tensor& value) {
    if (!query.device().isCpu() || !key.device().isCpu() || !value.device().isCpu()) return false;
    const DType dtype = query.dtype();
    if (key.dtype() != dtype || value.dtype() != dtype || query.dim() != 4 || key.dim() != 4 || value.dim() != 4) return false;
    if (!flashAttentionTakes(dtype, 4, query.size(3), value.size(3))) return false;
    for (int d = 0; d < 2; ++d)
        if (key.size(d) != query.size(d) || value.size(d) != query.size(d)) return false;
    if (key.size(2) != value.size(2) || key.size(3) != query.size(3)) return false;
    return query.numel() > 0 && key.numel() > 0 && value.numel() > 0;
}

Tensor flashAttention(const Tensor& query, const Tensor& key, const Tensor& value, bool causal, double scale) {
    const int64_t batch = query.size(0), heads = query.size(1), L = query.size(2);
    const Tensor out = empty({batch, L, heads, value.size(3)}, query.dtype(), query.device());
    const Problem pr{operandOf(query), operandOf(key), operandOf(value), out.data(), heads, L, key.size(2), query.size(3), value.size(3),
                     causal, static_cast<float>(scale)};
    switch (query.dtype()) {
        case DType::BFloat16: run<BFloat16>(pr, batch); break;
        case DType::Float16: run<Half>(pr, batch); break;
        default: run<float>(pr, batch); break;
    }
    return transpose(out, 1, 2);
}

}  // namespace eng::tensor::cpuops
