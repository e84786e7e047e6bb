// CPU flash attention (see cpu_attention.h): per (batch, head, query chunk) task, the keys and values staged once
// (float32 tiles, or bfloat16 pairs for AVX512-BF16), then 64 x 64 score tiles, an online softmax and P V in registers.
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

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "tensor/creation.h"
#include "tensor/half.h"
#include "tensor/shape.h"
#include "tensor/simd_dispatch.h"
#include "tensor/vector_math.h"
#include "tensor/worker_pool.h"

namespace eng::tensor::cpuops {

namespace {

// Sixteen floats: GCC's vector extension, one zmm register under AVX-512 (simd::run compiles the kernel per level),
// two ymm or four xmm registers below it.
// Every function taking or returning one is inlined, so GCC's note on the vector ABI does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
using V16 = float __attribute__((vector_size(64)));
constexpr int kLanes = 16;
constexpr int kKeyBlock = 64;    // keys per score tile: four vectors
constexpr int kQueryBlock = 64;  // query rows per tile
constexpr int kRows = 4;         // rows per register tile: 4 x 4 accumulators of the 32 zmm registers
constexpr int64_t kMaxHeadDim = 256;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

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

struct Operand {
    const void* data;
    int64_t batch, head, row, col;  // element strides
};

// What one task needs: operand geometry and the float32 scratch tiles of the thread running it.
struct Problem {
    Operand q, k, v;
    void* out;
    int64_t heads, L, S, E, Ev;
    bool causal;
    float scale;
};

struct Scratch {
    std::vector<float> keysT, staged, values, queries, scores, acc, rowMax, rowSum;
    // `count` floats starting on a 64-byte line (loads of whole vectors then never straddle two lines).
    static float* floats(std::vector<float>& buffer, int64_t count) {
        if (buffer.size() < static_cast<size_t>(count + kLanes)) buffer.resize(static_cast<size_t>(count + kLanes));
        const auto address = reinterpret_cast<uintptr_t>(buffer.data());
        return buffer.data() + (((address + 63) & ~uintptr_t{63}) - address) / sizeof(float);
    }
    // A query block's online-softmax state: `count` accumulators zeroed, each row's maximum at -inf and sum at 0.
    void startQueryBlock(float* accumulators, int64_t count) {
        std::fill(accumulators, accumulators + count, 0.0f);
        rowMax.assign(kQueryBlock, kNegInf);
        rowSum.assign(kQueryBlock, 0.0f);
    }
};

int64_t roundUp(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

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
    const int64_t keyEnd = pr.causal ? std::min(pr.S, q1) : pr.S;  // keys any query of the chunk sees
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
        const int64_t tileKeyEnd = pr.causal ? std::min(pr.S, qa + rows) : pr.S;
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

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CWB_BF16_DOT 1
// bfloat16 operands on AVX512-BF16 hosts (Cooper Lake, Sapphire Rapids, Zen 4): vdpbf16ps multiplies pairs of
// bfloat16 into float32 lanes, twice the multiply-adds of a float32 FMA, with the operands' bits copied as they
// are. Keys and values are stored as pairs along the summed dim (e for the scores, keys for P V); P is rounded to
// bfloat16 for its product, as PyTorch's CPU flash kernel does; the scale multiplies the float32 scores.
#define CWB_BF16_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,avx2,fma,prefer-vector-width=512"
// GCC 12's AVX-512 headers start unmasked intrinsics from _mm512_undefined_*() (`__m512 __Y = __Y;`), which its own
// uninitialized-use analysis then reports once they are inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline __m512 dotPairs(__m512 acc, uint32_t pair, const uint32_t* pairs) {
    return _mm512_dpbf16_ps(acc, (__m512bh)_mm512_set1_epi32(static_cast<int>(pair)), (__m512bh)_mm512_loadu_si512(pairs));
}

// Two bfloat16 as one 32-bit pair: `low` in the low half, as vdpbf16ps reads element 2i and 2i + 1.
inline uint32_t pairOf(BFloat16 low, BFloat16 high) { return static_cast<uint32_t>(low.bits) | (static_cast<uint32_t>(high.bits) << 16); }

// pairs[0, (n + 1) / 2) of row[i * stride], a zero past n when n is odd.
inline void pairRow(const BFloat16* row, int64_t stride, int64_t n, uint32_t* pairs) {
    if (stride == 1 && n % 2 == 0) {  // a row of the projection: its bits are the pairs already
        std::memcpy(pairs, row, static_cast<size_t>(n) * sizeof(BFloat16));
        return;
    }
    for (int64_t i = 0; i + 1 < n; i += 2) pairs[i / 2] = pairOf(row[i * stride], row[(i + 1) * stride]);
    if (n % 2) pairs[n / 2] = pairOf(row[(n - 1) * stride], BFloat16());
}

// e^x of sixteen lanes with x <= 0 (scores less their row's maximum), as vecmath::exp computes it: the degree-7
// series of e^r after x = n ln2 + r, 2^n put into the exponent bits; below -87.3365 (and -inf) the result is 0.
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline __m512 expNonPositive(__m512 x) {
    const __m512 lowest = _mm512_set1_ps(-87.3365f);
    const __mmask16 underflow = _mm512_cmp_ps_mask(x, lowest, _CMP_LT_OQ);
    x = _mm512_max_ps(x, lowest);
    const __m512 shift = _mm512_set1_ps(12582912.0f);
    const __m512 shifted = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), shift);
    const __m512 n = _mm512_sub_ps(shifted, shift);
    const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187045e-6f), _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x));
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 5040.0f), r, _mm512_set1_ps(1.0f / 720.0f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 120.0f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 24.0f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 6.0f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0.5f));
    const __m512 p = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r));
    const __m512i exponent = _mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_castps_si512(shift));
    const __m512 power = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(exponent, _mm512_set1_epi32(127)), 23));
    return _mm512_maskz_mul_ps(static_cast<__mmask16>(~underflow), p, power);
}

// What one kRows-row group of a query block carries from key tile to key tile: the rows' running maxima and sums.
struct RowState {
    float max[kRows], sum[kRows];
};

// One key tile for kRows query rows, in registers: the scores of NC 16-key columns (queries . keys over E2 pairs,
// then scaled), keys at `limit[r]` and past masked to -inf, the online softmax (new row maxima, the rows' sums and
// `rescale[r]` for their accumulators), and the weights rounded to bfloat16 pairs into weights[r][0, 32).
template <int NC>
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline void scoreGroup(const uint32_t* queries, int64_t E2, const uint32_t* keys,
                                                                           int64_t keyPitch, __m512 scale, const int64_t* limit, bool masked,
                                                                           RowState& state, float* rescale, uint32_t* weights) {
    __m512 sum[kRows][NC];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < NC; ++c) sum[r][c] = _mm512_setzero_ps();
    for (int64_t p = 0; p < E2; ++p) {
        const uint32_t* k = keys + p * keyPitch;
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
            for (int c = 0; c < NC; ++c) sum[r][c] = dotPairs(sum[r][c], queries[r * E2 + p], k + c * kLanes);
    }
    const __m512 negInf = _mm512_set1_ps(kNegInf);
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
        __m512 top = negInf;
#pragma GCC unroll 4
        for (int c = 0; c < NC; ++c) {
            sum[r][c] = _mm512_mul_ps(sum[r][c], scale);
            if (masked) {
                const __mmask16 keep = _mm512_cmp_epi32_mask(lane, _mm512_set1_epi32(static_cast<int>(limit[r] - c * kLanes)), _MM_CMPINT_LT);
                sum[r][c] = _mm512_mask_blend_ps(keep, negInf, sum[r][c]);
            }
            top = _mm512_max_ps(top, sum[r][c]);
        }
        const float before = state.max[r], now = std::max(before, _mm512_reduce_max_ps(top));
        const float shift = now == kNegInf ? 0.0f : now;  // a row with no key yet: weights exp(-inf) = 0
        const __m512 shiftV = _mm512_set1_ps(shift);
        __m512 total = _mm512_setzero_ps();
        __m512 w[4];
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) {
            w[c] = c < NC ? expNonPositive(_mm512_sub_ps(sum[r][c], shiftV)) : _mm512_setzero_ps();
            if (c < NC) total = _mm512_add_ps(total, w[c]);
        }
        rescale[r] = before == kNegInf ? 0.0f : vecmath::exp(before - shift);
        state.sum[r] = state.sum[r] * rescale[r] + _mm512_reduce_add_ps(total);
        state.max[r] = now;
        _mm512_storeu_si512(weights + r * (kKeyBlock / 2), (__m512i)_mm512_cvtne2ps_pbh(w[1], w[0]));
        _mm512_storeu_si512(weights + r * (kKeyBlock / 2) + kLanes, (__m512i)_mm512_cvtne2ps_pbh(w[3], w[2]));
    }
}

// acc[r][0 .. 16 NV) = rescale[r] acc[r][..] + sum_m weights[r][m] . values[m][0 ..] over `pairs` key pairs, for
// kRows rows (pitch Evp).
template <int NV>
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline void valuePairTile(const uint32_t* weights, int64_t pairs, const uint32_t* values,
                                                                              int64_t Evp, const float* rescale, float* acc) {
    __m512 sum[kRows][NV];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) sum[r][c] = _mm512_mul_ps(_mm512_loadu_ps(acc + r * Evp + c * kLanes), _mm512_set1_ps(rescale[r]));
    for (int64_t m = 0; m < pairs; ++m)
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
            for (int c = 0; c < NV; ++c) sum[r][c] = dotPairs(sum[r][c], weights[r * (kKeyBlock / 2) + m], values + m * Evp + c * kLanes);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) _mm512_storeu_ps(acc + r * Evp + c * kLanes, sum[r][c]);
}

// valuePairs[m][0, Evp) = the pairs of value rows 2m and 2m + 1 (zero past keyEnd and Ev), sixteen columns at a
// time where a row's elements are contiguous.
[[gnu::target(CWB_BF16_TARGET)]] void pairValues(const BFloat16* vBase, int64_t rowStride, int64_t colStride, int64_t keyEnd, int64_t Ev,
                                                 int64_t Evp, uint32_t* valuePairs) {
    for (int64_t m = 0; 2 * m < keyEnd; ++m) {
        const BFloat16* even = vBase + 2 * m * rowStride;
        const BFloat16* odd = 2 * m + 1 < keyEnd ? even + rowStride : nullptr;
        uint32_t* out = valuePairs + m * Evp;
        if (colStride != 1) {
            for (int64_t c = 0; c < Ev; ++c) out[c] = pairOf(even[c * colStride], odd ? odd[c * colStride] : BFloat16());
            std::fill(out + Ev, out + Evp, 0u);
            continue;
        }
        for (int64_t c = 0; c < Evp; c += kLanes) {
            const auto live = static_cast<__mmask16>(Ev - c >= kLanes ? 0xffff : (1u << (Ev - c)) - 1);
            const __m512i low = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(live, even + c));
            const __m512i high = odd ? _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(live, odd + c)) : _mm512_setzero_si512();
            _mm512_storeu_si512(out + c, _mm512_or_si512(low, _mm512_slli_epi32(high, 16)));
        }
    }
}

[[gnu::target(CWB_BF16_TARGET)]] void attendChunkBf16(const Problem& pr, int64_t b, int64_t h, int64_t q0, int64_t q1, Scratch& s) {
    const int64_t E2 = (pr.E + 1) / 2, Ev = pr.Ev, Evp = roundUp(Ev, kLanes);
    const int64_t keyEnd = pr.causal ? std::min(pr.S, q1) : pr.S;
    const int64_t keyPitch = roundUp(keyEnd, kKeyBlock);
    // keyPairs[p][j]: key j's elements 2p and 2p + 1; valuePairs[m][c]: column c of keys 2m and 2m + 1; zero padded.
    auto* keyPairs = reinterpret_cast<uint32_t*>(Scratch::floats(s.keysT, E2 * keyPitch));
    auto* valuePairs = reinterpret_cast<uint32_t*>(Scratch::floats(s.values, keyPitch / 2 * Evp));
    auto* staged = reinterpret_cast<uint32_t*>(Scratch::floats(s.staged, kLanes * E2));
    const auto* kBase = static_cast<const BFloat16*>(pr.k.data) + b * pr.k.batch + h * pr.k.head;
    const auto* vBase = static_cast<const BFloat16*>(pr.v.data) + b * pr.v.batch + h * pr.v.head;
    for (int64_t p = 0; p < E2; ++p) std::fill(keyPairs + p * keyPitch + keyEnd, keyPairs + (p + 1) * keyPitch, 0u);
    for (int64_t j0 = 0; j0 < keyEnd; j0 += kLanes) {
        const int64_t count = std::min<int64_t>(kLanes, keyEnd - j0);
        for (int64_t r = 0; r < count; ++r) pairRow(kBase + (j0 + r) * pr.k.row, pr.k.col, pr.E, staged + r * E2);
        for (int64_t p = 0; p < E2; ++p)
            for (int64_t r = 0; r < count; ++r) keyPairs[p * keyPitch + j0 + r] = staged[r * E2 + p];
    }
    pairValues(vBase, pr.v.row, pr.v.col, keyEnd, Ev, Evp, valuePairs);
    std::fill(valuePairs + (keyEnd + 1) / 2 * Evp, valuePairs + keyPitch / 2 * Evp, 0u);
    auto* queries = reinterpret_cast<uint32_t*>(Scratch::floats(s.queries, kQueryBlock * E2));
    auto* weights = reinterpret_cast<uint32_t*>(Scratch::floats(s.scores, kRows * kKeyBlock / 2));
    float* acc = Scratch::floats(s.acc, kQueryBlock * Evp);
    const auto* qBase = static_cast<const BFloat16*>(pr.q.data) + b * pr.q.batch + h * pr.q.head;
    auto* out = static_cast<BFloat16*>(pr.out);
    const __m512 scale = _mm512_set1_ps(pr.scale);
    RowState states[kQueryBlock / kRows];
    for (int64_t qa = q0; qa < q1; qa += kQueryBlock) {
        const int64_t rows = std::min<int64_t>(kQueryBlock, q1 - qa), rowsPadded = roundUp(rows, kRows);
        for (int64_t r = 0; r < rows; ++r) pairRow(qBase + (qa + r) * pr.q.row, pr.q.col, pr.E, queries + r * E2);
        std::fill(queries + rows * E2, queries + rowsPadded * E2, 0u);
        std::fill(acc, acc + rowsPadded * Evp, 0.0f);
        for (RowState& state : states) {
            std::fill(std::begin(state.max), std::end(state.max), kNegInf);
            std::fill(std::begin(state.sum), std::end(state.sum), 0.0f);
        }
        const int64_t tileKeyEnd = pr.causal ? std::min(pr.S, qa + rows) : pr.S;
        for (int64_t j0 = 0; j0 < tileKeyEnd; j0 += kKeyBlock) {
            const int64_t keys = std::min<int64_t>(kKeyBlock, tileKeyEnd - j0);
            for (int64_t r0 = 0; r0 < rowsPadded; r0 += kRows) {
                // Keys each row sees in this tile (all `keys`, or up to its own position under a causal mask).
                int64_t limit[kRows];
                for (int r = 0; r < kRows; ++r) limit[r] = std::clamp<int64_t>(pr.causal ? qa + r0 + r + 1 - j0 : keys, 0, keys);
                const int64_t seen = limit[kRows - 1];  // the limits grow with the row
                if (seen == 0) continue;  // no key of this tile for these rows: nothing changes
                const bool masked = limit[0] < kKeyBlock;
                float rescale[kRows];
                const uint32_t* qg = queries + r0 * E2;
                const uint32_t* kg = keyPairs + j0;
                switch ((seen + kLanes - 1) / kLanes) {  // 16-key columns any row of the group sees
                    case 1: scoreGroup<1>(qg, E2, kg, keyPitch, scale, limit, masked, states[r0 / kRows], rescale, weights); break;
                    case 2: scoreGroup<2>(qg, E2, kg, keyPitch, scale, limit, masked, states[r0 / kRows], rescale, weights); break;
                    case 3: scoreGroup<3>(qg, E2, kg, keyPitch, scale, limit, masked, states[r0 / kRows], rescale, weights); break;
                    default: scoreGroup<4>(qg, E2, kg, keyPitch, scale, limit, masked, states[r0 / kRows], rescale, weights); break;
                }
                const int64_t pairs = (seen + 1) / 2;
                for (int64_t c0 = 0; c0 < Evp; c0 += 4 * kLanes) {
                    const uint32_t* v = valuePairs + j0 / 2 * Evp + c0;
                    float* a = acc + r0 * Evp + c0;
                    switch (std::min<int64_t>(4, (Evp - c0) / kLanes)) {
                        case 4: valuePairTile<4>(weights, pairs, v, Evp, rescale, a); break;
                        case 3: valuePairTile<3>(weights, pairs, v, Evp, rescale, a); break;
                        case 2: valuePairTile<2>(weights, pairs, v, Evp, rescale, a); break;
                        default: valuePairTile<1>(weights, pairs, v, Evp, rescale, a); break;
                    }
                }
            }
        }
        for (int64_t r = 0; r < rows; ++r) {
            const __m512 inverse = _mm512_set1_ps(1.0f / states[r / kRows].sum[r % kRows]);
            BFloat16* o = out + ((b * pr.L + qa + r) * pr.heads + h) * Ev;
            for (int64_t e = 0; e < Ev; e += kLanes) {
                const auto live = static_cast<__mmask16>(Ev - e >= kLanes ? 0xffff : (1u << (Ev - e)) - 1);
                const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(acc + r * Evp + e), inverse));
                _mm256_mask_storeu_epi16(o + e, live, (__m256i)rounded);
            }
        }
    }
}

bool bf16DotApplies() {
    static const bool host = __builtin_cpu_supports("avx512bf16");
    return host && simdLevel() == SimdLevel::Avx512;
}
#endif

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
#ifdef CWB_BF16_DOT
    const bool dot = bf16DotApplies();
#endif
    runOnWorkers(heads * chunkCount, [&](int64_t task) {
        // The last chunks first: under a causal mask they see the most keys.
        const int64_t chunk = chunkCount - 1 - task / heads, bh = task % heads;
        const int64_t q0 = chunk * tilesPerChunk * kQueryBlock, q1 = std::min(pr.L, q0 + tilesPerChunk * kQueryBlock);
        thread_local Scratch scratch;
#ifdef CWB_BF16_DOT
        if constexpr (std::is_same_v<T, BFloat16>)
            if (dot) return attendChunkBf16(pr, bh / pr.heads, bh % pr.heads, q0, q1, scratch);
#endif
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
