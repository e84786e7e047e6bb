// bfloat16 CPU flash attention on AVX512-BF16 hosts (cpu_attention_kernels.h): keys and values staged as bfloat16
// pairs, the scores and P V by vdpbf16ps in registers, or by AMX tiles where the host has them; softmax in float32.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "tensor/cpu_attention_kernels.h"
#include "tensor/half.h"
#include "tensor/simd_dispatch.h"
#include "tensor/vector_math.h"

namespace eng::tensor::cpuops::flash {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
namespace {

// vdpbf16ps multiplies pairs of bfloat16 into float32 lanes, twice the multiply-adds of a float32 FMA, on the
// operands' bits as they are. Keys and values are stored as pairs along the summed dim (e for the scores, keys for
// P V); P is rounded to bfloat16 for its product, as PyTorch's CPU flash kernel does; the scale multiplies the
// float32 scores.
#define CWB_BF16_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,avx2,fma,prefer-vector-width=512"
// GCC 12's AVX-512 headers start unmasked intrinsics from _mm512_undefined_*() (`__m512 __Y = __Y;`), which its own
// uninitialized-use analysis then reports once they are inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wpsabi"

[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline __m512 dotPairs(__m512 acc, uint32_t pair, const uint32_t* pairs) {
    return _mm512_dpbf16_ps(acc, (__m512bh)_mm512_set1_epi32(static_cast<int>(pair)), (__m512bh)_mm512_loadu_si512(pairs));
}

// Two bfloat16 as one 32-bit pair: `low` in the low half, as vdpbf16ps (and AMX's tdpbf16ps) read elements 2i, 2i + 1.
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
    using namespace vecmath::expconst;
    const __m512 shift = _mm512_set1_ps(kRoundingShift);
    const __m512 shifted = _mm512_fmadd_ps(x, _mm512_set1_ps(kLog2e), shift);
    const __m512 n = _mm512_sub_ps(shifted, shift);
    const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Low), _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2High), x));
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(kSeries[0]), r, _mm512_set1_ps(kSeries[1]));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kSeries[2]));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kSeries[3]));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kSeries[4]));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kSeries[5]));
    const __m512 p = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r));
    const __m512i exponent = _mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_castps_si512(shift));
    const __m512 power = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(exponent, _mm512_set1_epi32(127)), 23));
    return _mm512_maskz_mul_ps(static_cast<__mmask16>(~underflow), p, power);
}

constexpr int kGroupRows = 16;  // query rows whose softmax runs at once: one row a lane

// out[r] = op over the sixteen lanes of x[r], for sixteen rows at once: four levels of shuffles that halve the
// lanes each row spans (45 instructions, every row in parallel, against 16 serial horizontal reductions).
template <typename Op>
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline __m512 reduceRows(const __m512* x, Op op) {
    __m512 y[8], z[4], w[2];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)  // y[i]: row 2i in 128-bit chunks 0-1, row 2i + 1 in chunks 2-3
        y[i] = op(_mm512_shuffle_f32x4(x[2 * i], x[2 * i + 1], 0x44), _mm512_shuffle_f32x4(x[2 * i], x[2 * i + 1], 0xee));
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)  // z[i]: row 4i + c in chunk c
        z[i] = op(_mm512_shuffle_f32x4(y[2 * i], y[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                  _mm512_shuffle_f32x4(y[2 * i], y[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
#pragma GCC unroll 2
    for (int i = 0; i < 2; ++i)  // w[i]: chunk c holds rows 8i + c (lanes 0-1) and 8i + 4 + c (lanes 2-3)
        w[i] = op(_mm512_shuffle_ps(z[2 * i], z[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_ps(z[2 * i], z[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    // lane 4c + k holds row c + 4k: put row r in lane r
    const __m512 t = op(_mm512_shuffle_ps(w[0], w[1], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_ps(w[0], w[1], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_permutexvar_ps(_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), t);
}

struct MaxOf {
    [[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] __m512 operator()(__m512 a, __m512 b) const { return _mm512_max_ps(a, b); }
};
struct SumOf {
    [[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] __m512 operator()(__m512 a, __m512 b) const { return _mm512_add_ps(a, b); }
};

// Column c (16 keys) of row r of a 16 x 64 tile of raw products, scaled, and keys at limit[r] and past masked to -inf.
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline __m512 scoreOf(const float* scores, int r, int c, __m512 scale, const int64_t* limit,
                                                                          bool masked) {
    const __m512 s = _mm512_mul_ps(_mm512_loadu_ps(scores + r * kKeyBlock + c * kLanes), scale);
    if (!masked) return s;
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __mmask16 keep = _mm512_cmp_epi32_mask(lane, _mm512_set1_epi32(static_cast<int>(limit[r] - c * kLanes)), _MM_CMPINT_LT);
    return _mm512_mask_blend_ps(keep, _mm512_set1_ps(kNegInf), s);
}

// The online softmax of a 16-row group's 16 x 64 tile of raw products in `scores`, every row at once and without
// branches on the data: scaled, keys at limit[r] and past masked to -inf, the rows' maxima, sums and rescale
// factors as vectors of the 16 rows, the weights rounded to bfloat16 pairs into weights[r][0, 32) (P is rounded
// for its product, as PyTorch's CPU flash kernel does), the accumulators acc[r] rescaled.
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline void softmaxRows16(const float* scores, __m512 scale, const int64_t* limit, bool masked,
                                                                              float* rowMax, float* rowSum, float* acc, int64_t Evp,
                                                                              uint32_t* weights) {
    const __m512 negInf = _mm512_set1_ps(kNegInf);
    __m512 part[kGroupRows];
#pragma GCC unroll 16
    for (int r = 0; r < kGroupRows; ++r) part[r] = _mm512_max_ps(_mm512_max_ps(scoreOf(scores, r, 0, scale, limit, masked), scoreOf(scores, r, 1, scale, limit, masked)),
                                                 _mm512_max_ps(scoreOf(scores, r, 2, scale, limit, masked), scoreOf(scores, r, 3, scale, limit, masked)));
    const __m512 before = _mm512_loadu_ps(rowMax);
    const __m512 now = _mm512_max_ps(before, reduceRows(part, MaxOf()));
    const __m512 shift = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(now, negInf, _CMP_EQ_OQ), now, _mm512_setzero_ps());  // no key yet: 0
    const __m512 rescale = expNonPositive(_mm512_sub_ps(before, shift));  // 0 where before is -inf
#pragma GCC unroll 16
    for (int r = 0; r < kGroupRows; ++r) {
        const __m512 rowShift = _mm512_permutexvar_ps(_mm512_set1_epi32(r), shift);
        __m512 w[4];
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) w[c] = expNonPositive(_mm512_sub_ps(scoreOf(scores, r, c, scale, limit, masked), rowShift));
        part[r] = _mm512_add_ps(_mm512_add_ps(w[0], w[1]), _mm512_add_ps(w[2], w[3]));
        _mm512_storeu_si512(weights + r * (kKeyBlock / 2), (__m512i)_mm512_cvtne2ps_pbh(w[1], w[0]));
        _mm512_storeu_si512(weights + r * (kKeyBlock / 2) + kLanes, (__m512i)_mm512_cvtne2ps_pbh(w[3], w[2]));
    }
    const __m512 total = reduceRows(part, SumOf());
    _mm512_storeu_ps(rowSum, _mm512_fmadd_ps(_mm512_loadu_ps(rowSum), rescale, total));
    _mm512_storeu_ps(rowMax, now);
    for (int r = 0; r < kGroupRows; ++r) {
        const __m512 factor = _mm512_permutexvar_ps(_mm512_set1_epi32(r), rescale);
        for (int64_t e = 0; e < Evp; e += kLanes) _mm512_storeu_ps(acc + r * Evp + e, _mm512_mul_ps(_mm512_loadu_ps(acc + r * Evp + e), factor));
    }
}

// scores[r][0, 16 NC) = queries[r] . keys[.][0, 16 NC) over E2 pairs for kRows rows: raw float32 products.
template <int NC>
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline void scoreTile(const uint32_t* queries, int64_t E2, const uint32_t* keys, int64_t keyPitch,
                                                                          float* scores) {
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
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < NC; ++c) _mm512_storeu_ps(scores + r * kKeyBlock + c * kLanes, sum[r][c]);
}

// acc[r][0 .. 16 NV) += sum_m weights[r][m] . values[m][0 ..] over `pairs` key pairs, for kRows rows (pitch Evp).
template <int NV>
[[gnu::target(CWB_BF16_TARGET), gnu::always_inline]] inline void valuePairTile(const uint32_t* weights, int64_t pairs, const uint32_t* values,
                                                                              int64_t Evp, float* acc) {
    __m512 sum[kRows][NV];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < NV; ++c) sum[r][c] = _mm512_loadu_ps(acc + r * Evp + c * kLanes);
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

// One (batch, head, query chunk) task's staged operands.
struct Staged {
    int64_t E2, Evp, keyPitch;
    const uint32_t* keyPairs;    // [E2][keyPitch]: key j's elements 2p and 2p + 1 at [p][j], zero past the keys
    const uint32_t* valuePairs;  // [keyPitch / 2][Evp]: column c of keys 2m and 2m + 1 at [m][c], zero padded
};

[[gnu::target(CWB_BF16_TARGET)]] Staged stage(const Problem& pr, int64_t b, int64_t h, int64_t q1, Scratch& s) {
    const int64_t E2 = (pr.E + 1) / 2, Ev = pr.Ev, Evp = roundUp(Ev, kLanes);
    const int64_t keyEnd = keysSeen(pr, q1);
    const int64_t keyPitch = roundUp(keyEnd, kKeyBlock);
    auto* keyPairs = reinterpret_cast<uint32_t*>(Scratch::floats(s.keysT, E2 * keyPitch));
    auto* valuePairs = reinterpret_cast<uint32_t*>(Scratch::floats(s.values, keyPitch / 2 * Evp));
    auto* staged = reinterpret_cast<uint32_t*>(Scratch::floats(s.staged, kLanes * E2));
    const auto* kBase = static_cast<const BFloat16*>(pr.k.data) + b * pr.k.batch + h * pr.k.head;
    const auto* vBase = static_cast<const BFloat16*>(pr.v.data) + b * pr.v.batch + h * pr.v.head;
    for (int64_t p = 0; p < E2; ++p) std::fill(keyPairs + p * keyPitch + keyEnd, keyPairs + (p + 1) * keyPitch, 0u);
    // Keys go through rows of 16 paired in place, then transposed 16 at a time; rows whose pairs are their own
    // 32-bit words (a projection's) are gathered straight into place, 16 keys a pair.
    const bool gather = pr.k.col == 1 && pr.E % 2 == 0 && pr.k.row % 2 == 0 && pr.k.row / 2 * kLanes < (int64_t{1} << 31);
    const __m512i rowWords = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                                _mm512_set1_epi32(static_cast<int>(gather ? pr.k.row / 2 : 0)));
    for (int64_t j0 = 0; j0 < keyEnd; j0 += kLanes) {
        const int64_t count = std::min<int64_t>(kLanes, keyEnd - j0);
        if (gather && count == kLanes) {
            const auto* words = reinterpret_cast<const int*>(kBase + j0 * pr.k.row);
            for (int64_t p = 0; p < E2; ++p) _mm512_storeu_si512(keyPairs + p * keyPitch + j0, _mm512_i32gather_epi32(rowWords, words + p, 4));
            continue;
        }
        for (int64_t r = 0; r < count; ++r) pairRow(kBase + (j0 + r) * pr.k.row, pr.k.col, pr.E, staged + r * E2);
        for (int64_t p = 0; p < E2; ++p)
            for (int64_t r = 0; r < count; ++r) keyPairs[p * keyPitch + j0 + r] = staged[r * E2 + p];
    }
    pairValues(vBase, pr.v.row, pr.v.col, keyEnd, Ev, Evp, valuePairs);
    std::fill(valuePairs + (keyEnd + 1) / 2 * Evp, valuePairs + keyPitch / 2 * Evp, 0u);
    return {E2, Evp, keyPitch, keyPairs, valuePairs};
}

// Keys each row r0 + r (r < count) of query block qa sees in the key tile at j0 of `keys` keys: all of them, or
// up to its own position under a causal mask; the limits grow with the row.
inline void keyLimits(const Problem& pr, int64_t qa, int64_t r0, int64_t j0, int64_t keys, int count, int64_t* limit) {
    for (int r = 0; r < count; ++r) limit[r] = std::clamp<int64_t>(pr.causal ? qa + r0 + r + 1 - j0 : keys, 0, keys);
}

// AMX (Sapphire Rapids and later): tdpbf16ps multiplies a 16 x 32 bfloat16 tile by a 32 x 16 one held as 16 rows
// of pairs, which is the staged keys' and values' layout already, into a 16 x 16 float32 tile. Sixteen query rows a
// group: the 16 x 64 scores by 4 tiles, the softmax of all 16 rows at once (softmaxRows16), then P V into the
// accumulators' tiles. The tile numbers are part of the instructions, hence macros; "memory" orders them against
// the vector code. With Soft, the same code runs on SoftTiles, a model of the tiles for hosts without AMX (tests).
#define CWB_TILE(soft, instruction, ...) \
    do {                                 \
        if constexpr (Soft) soft;        \
        else asm volatile(instruction ::__VA_ARGS__); \
    } while (0)
#define CWB_TILE_LOAD(t, base, stride) \
    CWB_TILE(softTiles.load(t, base, stride), "tileloadd (%0,%1,1), %%tmm" #t, "r"(base), "r"(static_cast<int64_t>(stride)) : "memory")
#define CWB_TILE_STORE(t, base, stride) \
    CWB_TILE(softTiles.store(t, base, stride), "tilestored %%tmm" #t ", (%0,%1,1)", "r"(base), "r"(static_cast<int64_t>(stride)) : "memory")
#define CWB_TILE_ZERO(t) CWB_TILE(softTiles.zero(t), "tilezero %%tmm" #t)
#define CWB_TILE_DP(c, a, b) CWB_TILE(softTiles.dot(c, a, b), "tdpbf16ps %%tmm" #b ", %%tmm" #a ", %%tmm" #c)
// Eight tiles of 16 rows x 64 bytes and the four instructions used, in scalar code (float32 sums of the products,
// as tdpbf16ps up to its rounding).
struct SoftTiles {
    uint8_t tile[8][16][64];
    void load(int t, const void* base, int64_t stride) {
        for (int r = 0; r < 16; ++r) std::memcpy(tile[t][r], static_cast<const uint8_t*>(base) + r * stride, 64);
    }
    void store(int t, void* base, int64_t stride) const {
        for (int r = 0; r < 16; ++r) std::memcpy(static_cast<uint8_t*>(base) + r * stride, tile[t][r], 64);
    }
    void zero(int t) { std::memset(tile[t], 0, sizeof tile[t]); }
    void dot(int c, int a, int b) {
        auto element = [&](int t, int r, int i) {
            uint16_t bits;
            std::memcpy(&bits, &tile[t][r][2 * i], 2);
            return static_cast<float>(BFloat16::fromBits(bits));
        };
        for (int m = 0; m < 16; ++m)
            for (int n = 0; n < 16; ++n) {
                float sum;
                std::memcpy(&sum, &tile[c][m][4 * n], 4);
                for (int k = 0; k < 16; ++k) sum += element(a, m, 2 * k) * element(b, k, 2 * n) + element(a, m, 2 * k + 1) * element(b, k, 2 * n + 1);
                std::memcpy(&tile[c][m][4 * n], &sum, 4);
            }
    }
};
thread_local SoftTiles softTiles;

TilePath chosenTilePath = [] {
    const char* setting = std::getenv("CWB_CPU_AMX");
    if (setting && std::string_view(setting) == "0") return TilePath::Off;
    if (setting && std::string_view(setting) == "soft") return TilePath::Soft;
    return TilePath::Hardware;
}();

// AMX-TILE and AMX-BF16 in CPUID, and the kernel's permission for the tile state (asked once for the process).
bool amxHardware() {
    static const bool usable = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 22)) || !(d & (1u << 24))) return false;
        constexpr long kRequestPermission = 0x1023, kTileData = 18;  // ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA
        return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
    }();
    return usable;
}

// The tile path for this problem: whole tiles only (E a multiple of 32, 16 pairs a tile row; Ev of 16).
TilePath tilePathFor(const Problem& pr) {
    if (pr.E % 32 != 0 || pr.Ev % kLanes != 0 || chosenTilePath == TilePath::Off) return TilePath::Off;
    if (chosenTilePath == TilePath::Hardware && !amxHardware()) return TilePath::Off;
    return chosenTilePath;
}

// Palette 1, the eight tiles 16 rows of 64 bytes; loaded per task, released after it (the thread's tile state is
// then not saved at its context switches).
void amxStart() {
    struct alignas(64) TileConfig {
        uint8_t palette = 1, startRow = 0, reserved[14] = {};
        uint16_t bytesPerRow[16] = {64, 64, 64, 64, 64, 64, 64, 64};
        uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
    };
    static const TileConfig config;
    asm volatile("ldtilecfg %0" ::"m"(config));
}
void amxEnd() { asm volatile("tilerelease" ::: "memory"); }

// One query block (rows [qa, qa + rows), queries paired and zero padded to 16 rows): per key tile and 16-row group,
// the scores, the softmax of the 16 rows (softmaxRows16), then P V into the accumulators; the products by vdpbf16ps
// kRows rows at a time (Off: a causal group's rows stop at their last key) or by AMX tiles (Hardware, or Soft's
// model). `scores` holds a 16 x 64 float32 tile and `weights` its 16 x 32 pairs.
template <TilePath Path>
[[gnu::target(CWB_BF16_TARGET)]] void attendBlock(const Problem& pr, const Staged& st, const uint32_t* queries, int64_t qa, int64_t rows,
                                                  float* acc, float* rowMax, float* rowSum, uint32_t* weights, float* scores) {
    constexpr bool Soft = Path == TilePath::Soft;  // which tiles the CWB_TILE macros drive
    const int64_t E2 = st.E2, Evp = st.Evp, rowsPadded = roundUp(rows, kGroupRows);
    const int64_t queryStride = E2 * 4, keyStride = st.keyPitch * 4, rowStride = Evp * 4;
    constexpr int64_t kScoreStride = kKeyBlock * 4, kWeightStride = kKeyBlock / 2 * 4;
    const __m512 scale = _mm512_set1_ps(pr.scale);
    const int64_t tileKeyEnd = keysSeen(pr, qa + rows);
    for (int64_t j0 = 0; j0 < tileKeyEnd; j0 += kKeyBlock) {
        const int64_t keys = std::min<int64_t>(kKeyBlock, tileKeyEnd - j0);
        for (int64_t r0 = 0; r0 < rowsPadded; r0 += kGroupRows) {
            int64_t limit[kGroupRows];
            keyLimits(pr, qa, r0, j0, keys, kGroupRows, limit);
            const int64_t seen = limit[kGroupRows - 1];
            if (seen == 0) continue;  // no key of this tile for these rows: nothing changes
            const bool masked = limit[0] < kKeyBlock;
            if constexpr (Path == TilePath::Off) {
                // Scores a row does not see (columns past a subgroup's last key) are left as they were: masked below.
                for (int g = 0; g < kGroupRows; g += kRows) {
                    const int64_t subgroupSeen = limit[g + kRows - 1];
                    const uint32_t* q = queries + (r0 + g) * E2;
                    const uint32_t* k = st.keyPairs + j0;
                    switch ((subgroupSeen + kLanes - 1) / kLanes) {  // 16-key columns any row of the subgroup sees
                        case 0: break;
                        case 1: scoreTile<1>(q, E2, k, st.keyPitch, scores + g * kKeyBlock); break;
                        case 2: scoreTile<2>(q, E2, k, st.keyPitch, scores + g * kKeyBlock); break;
                        case 3: scoreTile<3>(q, E2, k, st.keyPitch, scores + g * kKeyBlock); break;
                        default: scoreTile<4>(q, E2, k, st.keyPitch, scores + g * kKeyBlock); break;
                    }
                }
            } else {
                CWB_TILE_ZERO(0);
                CWB_TILE_ZERO(1);
                CWB_TILE_ZERO(2);
                CWB_TILE_ZERO(3);
                for (int64_t p0 = 0; p0 < E2; p0 += 16) {
                    const uint32_t* k = st.keyPairs + p0 * st.keyPitch + j0;
                    CWB_TILE_LOAD(4, queries + r0 * E2 + p0, queryStride);
                    CWB_TILE_LOAD(5, k, keyStride);
                    CWB_TILE_DP(0, 4, 5);
                    CWB_TILE_LOAD(6, k + 16, keyStride);
                    CWB_TILE_DP(1, 4, 6);
                    CWB_TILE_LOAD(7, k + 32, keyStride);
                    CWB_TILE_DP(2, 4, 7);
                    CWB_TILE_LOAD(5, k + 48, keyStride);
                    CWB_TILE_DP(3, 4, 5);
                }
                CWB_TILE_STORE(0, scores, kScoreStride);
                CWB_TILE_STORE(1, scores + 16, kScoreStride);
                CWB_TILE_STORE(2, scores + 32, kScoreStride);
                CWB_TILE_STORE(3, scores + 48, kScoreStride);
            }
            softmaxRows16(scores, scale, limit, masked, rowMax + r0, rowSum + r0, acc + r0 * Evp, Evp, weights);
            if constexpr (Path == TilePath::Off) {
                for (int g = 0; g < kGroupRows; g += kRows) {
                    const int64_t pairs = (limit[g + kRows - 1] + 1) / 2;
                    const uint32_t* w = weights + g * (kKeyBlock / 2);
                    for (int64_t c0 = 0; pairs > 0 && c0 < Evp; c0 += 4 * kLanes) {
                        const uint32_t* v = st.valuePairs + j0 / 2 * Evp + c0;
                        float* a = acc + (r0 + g) * Evp + c0;
                        switch (std::min<int64_t>(4, (Evp - c0) / kLanes)) {
                            case 4: valuePairTile<4>(w, pairs, v, Evp, a); break;
                            case 3: valuePairTile<3>(w, pairs, v, Evp, a); break;
                            case 2: valuePairTile<2>(w, pairs, v, Evp, a); break;
                            default: valuePairTile<1>(w, pairs, v, Evp, a); break;
                        }
                    }
                }
            } else {
                const int64_t halves = (seen + 31) / 32;  // 32-key halves of the tile with a weight
                for (int64_t c0 = 0; c0 < Evp; c0 += 4 * kLanes) {
                    const int64_t tiles = std::min<int64_t>(4, (Evp - c0) / kLanes);
                    float* a = acc + r0 * Evp + c0;
                    CWB_TILE_LOAD(0, a, rowStride);
                    if (tiles > 1) CWB_TILE_LOAD(1, a + 16, rowStride);
                    if (tiles > 2) CWB_TILE_LOAD(2, a + 32, rowStride);
                    if (tiles > 3) CWB_TILE_LOAD(3, a + 48, rowStride);
                    for (int64_t half = 0; half < halves; ++half) {
                        const uint32_t* v = st.valuePairs + (j0 / 2 + half * 16) * Evp + c0;
                        CWB_TILE_LOAD(4, weights + half * 16, kWeightStride);
                        CWB_TILE_LOAD(5, v, rowStride);
                        CWB_TILE_DP(0, 4, 5);
                        if (tiles > 1) {
                            CWB_TILE_LOAD(6, v + 16, rowStride);
                            CWB_TILE_DP(1, 4, 6);
                        }
                        if (tiles > 2) {
                            CWB_TILE_LOAD(7, v + 32, rowStride);
                            CWB_TILE_DP(2, 4, 7);
                        }
                        if (tiles > 3) {
                            CWB_TILE_LOAD(5, v + 48, rowStride);
                            CWB_TILE_DP(3, 4, 5);
                        }
                    }
                    CWB_TILE_STORE(0, a, rowStride);
                    if (tiles > 1) CWB_TILE_STORE(1, a + 16, rowStride);
                    if (tiles > 2) CWB_TILE_STORE(2, a + 32, rowStride);
                    if (tiles > 3) CWB_TILE_STORE(3, a + 48, rowStride);
                }
            }
        }
    }
}

}  // namespace

TilePath setTilePath(TilePath path) { return std::exchange(chosenTilePath, path); }

bool bf16KernelApplies() {
    static const bool host = __builtin_cpu_supports("avx512bf16");
    return host && simdLevel() == SimdLevel::Avx512;
}

[[gnu::target(CWB_BF16_TARGET)]] void attendChunkBf16(const Problem& pr, int64_t b, int64_t h, int64_t q0, int64_t q1, Scratch& s) {
    const Staged st = stage(pr, b, h, q1, s);
    const int64_t E2 = st.E2, Ev = pr.Ev, Evp = st.Evp;
    const TilePath amx = tilePathFor(pr);
    auto* queries = reinterpret_cast<uint32_t*>(Scratch::floats(s.queries, kQueryBlock * E2));
    auto* weights = reinterpret_cast<uint32_t*>(Scratch::floats(s.scores, kGroupRows * kKeyBlock / 2 + kGroupRows * kKeyBlock));
    float* acc = Scratch::floats(s.acc, kQueryBlock * Evp);
    const auto* qBase = static_cast<const BFloat16*>(pr.q.data) + b * pr.q.batch + h * pr.q.head;
    auto* out = static_cast<BFloat16*>(pr.out);
    if (amx == TilePath::Hardware) amxStart();
    for (int64_t qa = q0; qa < q1; qa += kQueryBlock) {
        const int64_t rows = std::min<int64_t>(kQueryBlock, q1 - qa), rowsPadded = roundUp(rows, kGroupRows);
        for (int64_t r = 0; r < rows; ++r) pairRow(qBase + (qa + r) * pr.q.row, pr.q.col, pr.E, queries + r * E2);
        std::fill(queries + rows * E2, queries + rowsPadded * E2, 0u);
        s.startQueryBlock(acc, rowsPadded * Evp);
        float* const rowMax = s.rowMax.data();
        float* const rowSum = s.rowSum.data();
        float* scores = reinterpret_cast<float*>(weights + kGroupRows * kKeyBlock / 2);
        switch (amx) {
            case TilePath::Hardware: attendBlock<TilePath::Hardware>(pr, st, queries, qa, rows, acc, rowMax, rowSum, weights, scores); break;
            case TilePath::Soft: attendBlock<TilePath::Soft>(pr, st, queries, qa, rows, acc, rowMax, rowSum, weights, scores); break;
            case TilePath::Off: attendBlock<TilePath::Off>(pr, st, queries, qa, rows, acc, rowMax, rowSum, weights, scores); break;
        }
        for (int64_t r = 0; r < rows; ++r) {
            const __m512 inverse = _mm512_set1_ps(1.0f / rowSum[r]);
            BFloat16* o = out + ((b * pr.L + qa + r) * pr.heads + h) * Ev;
            for (int64_t e = 0; e < Ev; e += kLanes) {
                const auto live = static_cast<__mmask16>(Ev - e >= kLanes ? 0xffff : (1u << (Ev - e)) - 1);
                const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(acc + r * Evp + e), inverse));
                _mm256_mask_storeu_epi16(o + e, live, (__m256i)rounded);
            }
        }
    }
    if (amx == TilePath::Hardware) amxEnd();
}

#else
bool bf16KernelApplies() { return false; }
TilePath setTilePath(TilePath path) { return path; }
void attendChunkBf16(const Problem&, int64_t, int64_t, int64_t, int64_t, Scratch&) { std::abort(); }  // never: bf16KernelApplies() is false
#endif

}  // namespace eng::tensor::cpuops::flash
