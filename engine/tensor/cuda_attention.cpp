// The fused attention forward: a FlashAttention-2 style kernel (tensor-core mma.sync, online softmax in fp32)
// generated per dtype/head dim/causal flag and compiled by NVRTC, and the host side that maps operands onto it.
#include "tensor/cuda_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "cuda/tuning_list.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/cuda_kernels.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/deferred_fill.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace cudagen {

namespace {

// What the forward and backward kernels share: 16-bit element types, 64-row tiles of 16-byte chunks swizzled
// against bank conflicts, their cp.async loads, ldmatrix, the m16n8k16 mma and the pack to 16 bits.
constexpr const char* kFlashTilePrelude = R"CUDA(
typedef unsigned short cwb_u16;
typedef unsigned int cwb_u32;
#define BM 64
#define CHUNKS (CWB_D / 8)
#define SWZ (CHUNKS < 8 ? CHUNKS - 1 : 7)
#define NEG_INF __int_as_float(0xff800000)
__device__ __forceinline__ cwb_u32 cwb_smem(const void* p) {
  cwb_u32 r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}
// Element offset of (row, 16-byte chunk) in a swizzled [rows, CWB_D] tile.
__device__ __forceinline__ int cwb_swz(int row, int chunk) { return row * CWB_D + ((chunk ^ (row & SWZ)) << 3); }
__device__ __forceinline__ void cwb_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Rows [row0, row0 + 64) of a [rows, CWB_D] matrix (row stride `stride`) into a tile; rows past the end read
// as zeros (cp.async with source size 0), so tails need no separate path.
__device__ __forceinline__ void cwb_load_tile(cwb_u16* tile, const cwb_u16* g, long long stride, int row0, int rows) {
  for (int i = threadIdx.x; i < BM * CHUNKS; i += blockDim.x) {
    const int r = i / CHUNKS, c = i % CHUNKS, gr = row0 + r;
    const bool ok = gr < rows;
    const cwb_u16* src = g + (long long)(ok ? gr : 0) * stride + c * 8;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(cwb_smem(tile + cwb_swz(r, c))), "l"(src), "r"(ok ? 16 : 0) : "memory");
  }
}
__device__ __forceinline__ void cwb_ldm(cwb_u32* r, cwb_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void cwb_ldm_t(cwb_u32* r, cwb_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void cwb_mma(float* c, const cwb_u32* a, cwb_u32 b0, cwb_u32 b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32." CWB_T "." CWB_T ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Two floats rounded to the 16-bit type, lo in the low half (the element with the lower index).
__device__ __forceinline__ cwb_u32 cwb_pack(float lo, float hi) {
  cwb_u32 r;
  asm("cvt.rn." CWB_T "x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
)CUDA";

// The forward's block: FWARPS warps, each owning SLICES slices of 16 query rows (FBM rows in all), walks the keys in
// tiles of BN rows of K and V, STAGES tiles in dynamic shared memory (128-key tiles in two stages take 64 KiB at head
// dim 64, past the 48 KiB of static shared memory): tile j + STAGES - 1 loads while tile j is computed, one barrier a
// tile. Q goes straight from memory into the mma's A fragments (each row is read by one warp, once), so shared memory
// holds only K and V. A warp with two slices reads each K and V fragment once for both: half the ldmatrix traffic of
// one slice a warp. Rows are stored in 16-byte chunks whose position is XORed with the row, so that the 8 row addresses
// of an ldmatrix hit distinct banks without padding; each lane's ldmatrix addresses are a shared-memory address taken
// once plus constants (recomputing them each tile through a generic-to-shared conversion cost 6.4M integer multiply-
// adds beside 6.3M mma at [8, 12, 1024, 64], 45M instructions against 37M now: Nsight Compute,
// engine/tensor/README.md). Tiles that need no mask take a body without the mask's branch. The running maxima stay in
// raw score units, so each probability is one FMA and one exp2: exp2(s * scale * log2(e) - max * scale * log2(e)). A
// negative scale is the positive one on -Q (negating 16-bit Q is exact), so the maximum of raw scores stays the maximum
// of scaled ones.
constexpr const char* kFlashSource = R"CUDA(
#define FBM (FWARPS * SLICES * 16)
__device__ __forceinline__ float cwb_exp2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
// K and V rows [row0, row0 + BN) into one stage (sk, sv: its shared-memory addresses); rows past the end read as
// zeros (source size 0).
__device__ __forceinline__ void cwb_load_kv(cwb_u32 sk, cwb_u32 sv, const cwb_u16* k, long long kr, const cwb_u16* v, long long vr, int row0, int rows) {
  // A fixed number of passes, unrolled: what depends on the thread alone is computed once for the whole walk.
  constexpr int THREADS = FWARPS * 32, PASSES = (BN * CHUNKS + THREADS - 1) / THREADS;
#pragma unroll
  for (int pass = 0; pass < PASSES; ++pass) {
    const int i = threadIdx.x + pass * THREADS;
    if (BN * CHUNKS % THREADS != 0 && i >= BN * CHUNKS) break;
    const int r = i / CHUNKS, c = i % CHUNKS, gr = row0 + r;
    const bool ok = gr < rows;
    const long long at = (long long)(ok ? gr : 0);
    const int n = ok ? 16 : 0;
    const cwb_u32 at16 = 2 * cwb_swz(r, c);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(sk + at16), "l"(k + at * kr + c * 8), "r"(n) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(sv + at16), "l"(v + at * vr + c * 8), "r"(n) : "memory");
  }
}
__device__ __forceinline__ cwb_u32 cwb_q(const cwb_u16* q, long long qr, int row, int col, int L) {
  return row < L ? *(const cwb_u32*)(q + (long long)row * qr + col) : 0u;
}

// One key tile of the walk: S = Q K^T, the online softmax, O += P V. MASK: the tile may hold keys past the end or
// (causal) past a row's diagonal. tk, tv: shared-memory addresses of the stage's K and V tiles plus this lane's
// ldmatrix row; kx, vx: the lane's swizzle bits of the chunk (see the kernel).
template <bool MASK>
__device__ __forceinline__ void cwb_tile(cwb_u32 tk, cwb_u32 kx, cwb_u32 tv, cwb_u32 vx, const cwb_u32 (&qf)[SLICES][CWB_D / 16][4],
                                         float (&acc)[SLICES][CWB_D / 8][4], float (&rowMax)[SLICES][2], float (&rowSum)[SLICES][2],
                                         float factor, int n0, int row0, int S, int lane) {
  const int g = lane >> 2, t = lane & 3;
  float s[SLICES][BN / 8][4];
#pragma unroll
  for (int sl = 0; sl < SLICES; ++sl)
#pragma unroll
    for (int n = 0; n < BN / 8; ++n) s[sl][n][0] = s[sl][n][1] = s[sl][n][2] = s[sl][n][3] = 0.f;
#pragma unroll
  for (int kk = 0; kk < CWB_D / 16; ++kk)
#pragma unroll
    for (int n = 0; n < BN / 16; ++n) {
      cwb_u32 bk[4];
      cwb_ldm(bk, tk + n * 32 * CWB_D + ((kk * 32) ^ kx));
#pragma unroll
      for (int sl = 0; sl < SLICES; ++sl) {
        cwb_mma(s[sl][2 * n], qf[sl][kk], bk[0], bk[1]);
        cwb_mma(s[sl][2 * n + 1], qf[sl][kk], bk[2], bk[3]);
      }
    }

#pragma unroll
  for (int sl = 0; sl < SLICES; ++sl) {
    const int rows0 = row0 + sl * 16;
    // Only the last tile and (causal) the tiles the slice's diagonal crosses mask element by element.
    const bool edge = MASK && (n0 + BN > S || (CWB_CAUSAL && n0 + BN - 1 > rows0));
    if (edge) {
#pragma unroll
      for (int n = 0; n < BN / 8; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = n0 + n * 8 + 2 * t + (e & 1);
          const int row = rows0 + g + (e >> 1) * 8;
          if (key >= S || (CWB_CAUSAL && key > row)) s[sl][n][e] = NEG_INF;
        }
    }
    // Online softmax for this thread's two rows (g and g + 8); the 4 threads of a quad share a row. The sums
    // stay per thread until the end: the rescale factor is the same across the quad.
    float rescales[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = rowMax[sl][r];
#pragma unroll
      for (int n = 0; n < BN / 8; ++n) mx = fmaxf(mx, fmaxf(s[sl][n][2 * r], s[sl][n][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      // In log2 units; a row with nothing allowed yet stays at zero, not NaN.
      const float base = mx == NEG_INF ? 0.f : mx * factor;
      const float rescale = cwb_exp2(fmaf(rowMax[sl][r], factor, -base));
      rowMax[sl][r] = mx;
      float sum = 0.f;
#pragma unroll
      for (int n = 0; n < BN / 8; ++n) {
        const float p0 = cwb_exp2(fmaf(s[sl][n][2 * r], factor, -base)), p1 = cwb_exp2(fmaf(s[sl][n][2 * r + 1], factor, -base));
        s[sl][n][2 * r] = p0;
        s[sl][n][2 * r + 1] = p1;
        sum += p0 + p1;
      }
      rowSum[sl][r] = rowSum[sl][r] * rescale + sum;
      rescales[r] = rescale;
    }
#pragma unroll
    for (int d = 0; d < CWB_D / 8; ++d) {
      acc[sl][d][0] *= rescales[0];
      acc[sl][d][1] *= rescales[0];
      acc[sl][d][2] *= rescales[1];
      acc[sl][d][3] *= rescales[1];
    }
  }

#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
    // The accumulator layout of two n8 tiles of P is the A-operand layout of one k16 step.
    cwb_u32 a[SLICES][4];
#pragma unroll
    for (int sl = 0; sl < SLICES; ++sl) {
      a[sl][0] = cwb_pack(s[sl][2 * kk][0], s[sl][2 * kk][1]);
      a[sl][1] = cwb_pack(s[sl][2 * kk][2], s[sl][2 * kk][3]);
      a[sl][2] = cwb_pack(s[sl][2 * kk + 1][0], s[sl][2 * kk + 1][1]);
      a[sl][3] = cwb_pack(s[sl][2 * kk + 1][2], s[sl][2 * kk + 1][3]);
    }
#pragma unroll
    for (int d = 0; d < CWB_D / 16; ++d) {
      cwb_u32 bv[4];
      cwb_ldm_t(bv, tv + kk * 32 * CWB_D + ((d * 32) ^ vx));
#pragma unroll
      for (int sl = 0; sl < SLICES; ++sl) {
        cwb_mma(acc[sl][2 * d], a[sl], bv[0], bv[1]);
        cwb_mma(acc[sl][2 * d + 1], a[sl], bv[2], bv[3]);
      }
    }
  }
}

// 8 warps: two blocks a multiprocessor (at most 128 registers a thread).
extern "C" __global__ void __launch_bounds__(FWARPS * 32, FWARPS == 8 ? 2 : 1) CWB_ENTRY(
    const cwb_u16* __restrict__ q, const cwb_u16* __restrict__ k, const cwb_u16* __restrict__ v, cwb_u16* __restrict__ o,
    float* __restrict__ lse, int L, int S, float scaleLog2e,
    long long qb, long long qh, long long qr, long long kb, long long kh, long long kr,
    long long vb, long long vh, long long vr, long long ob, long long oh, long long orow) {
  extern __shared__ __align__(128) cwb_u16 cwb_kv[];  // STAGES tiles of K, then STAGES of V
  // Shared-memory addresses, taken once: address arithmetic per ldmatrix was a fifth of the instructions.
  const cwb_u32 sK = cwb_smem(cwb_kv), sV = sK + STAGES * BN * CWB_D * 2;
  // The scale as a positive factor (a zero one as the smallest normal float: -inf scores must stay -inf, not NaN).
  const cwb_u32 qSign = scaleLog2e < 0.f ? 0x80008000u : 0u;
  const float factor = scaleLog2e == 0.f ? 1.17549435e-38f : fabsf(scaleLog2e);
  // Causal blocks further down have more key tiles: start those first so that the tail of the grid is short.
  const int m0 = (gridDim.x - 1 - blockIdx.x) * FBM;
  const long long b = blockIdx.z, h = blockIdx.y;
  q += b * qb + h * qh;
  k += b * kb + h * kh;
  v += b * vb + h * vh;
  o += b * ob + h * oh;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  const int row0 = m0 + warp * (SLICES * 16);  // the warp's first row
  // This lane's ldmatrix row in a K tile (rows n * 16 + (lane & 7) + (lane >> 4) * 8, 16-byte chunk kk * 2 +
  // ((lane >> 3) & 1)) and in a V tile (rows kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, chunk d * 2 + (lane >> 4)):
  // rows 16 apart keep the swizzle (row & SWZ), and chunk 2i + c XOR s is 2i XOR (c XOR s), so each fragment's byte
  // address is the lane's row plus a constant, XOR the lane's chunk bits: (i * 32) ^ x.
  const int kRow = (lane & 7) + (lane >> 4) * 8, vRow = (lane & 7) + ((lane >> 3) & 1) * 8;
  const cwb_u32 kLane = kRow * CWB_D * 2, kx = (((lane >> 3) & 1) ^ (kRow & SWZ)) << 4;
  const cwb_u32 vLane = vRow * CWB_D * 2, vx = ((lane >> 4) ^ (vRow & SWZ)) << 4;
  int kvEnd = S;
  if (CWB_CAUSAL) kvEnd = min(S, m0 + FBM);  // tiles wholly above the diagonal are skipped
  const int tiles = (kvEnd + BN - 1) / BN;
  // The tiles this warp's rows see (causal: the rest are masked whole, and skipping them changes no bit).
  const int warpTiles = CWB_CAUSAL ? min(tiles, (row0 + SLICES * 16 - 1) / BN + 1) : tiles;

#pragma unroll
  for (int st = 0; st < STAGES - 1; ++st) {
    if (st < tiles) cwb_load_kv(sK + st * BN * CWB_D * 2, sV + st * BN * CWB_D * 2, k, kr, v, vr, st * BN, S);
    cwb_commit();
  }
  // The A fragments of m16n8k16: rows g and g + 8, columns 2t, 2t + 1 and 2t + 8, 2t + 9 of each k16 step.
  cwb_u32 qf[SLICES][CWB_D / 16][4];
#pragma unroll
  for (int sl = 0; sl < SLICES; ++sl)
#pragma unroll
    for (int kk = 0; kk < CWB_D / 16; ++kk) {
      const int r = row0 + sl * 16 + g, c = kk * 16 + 2 * t;
      qf[sl][kk][0] = cwb_q(q, qr, r, c, L) ^ qSign;
      qf[sl][kk][1] = cwb_q(q, qr, r + 8, c, L) ^ qSign;
      qf[sl][kk][2] = cwb_q(q, qr, r, c + 8, L) ^ qSign;
      qf[sl][kk][3] = cwb_q(q, qr, r + 8, c + 8, L) ^ qSign;
    }
  float acc[SLICES][CWB_D / 8][4];
  float rowMax[SLICES][2], rowSum[SLICES][2];
#pragma unroll
  for (int sl = 0; sl < SLICES; ++sl) {
#pragma unroll
    for (int d = 0; d < CWB_D / 8; ++d) acc[sl][d][0] = acc[sl][d][1] = acc[sl][d][2] = acc[sl][d][3] = 0.f;
    rowMax[sl][0] = rowMax[sl][1] = NEG_INF;
    rowSum[sl][0] = rowSum[sl][1] = 0.f;
  }

  for (int j = 0; j < tiles; ++j) {
    asm volatile("cp.async.wait_group " CWB_PENDING ";\n" ::: "memory");  // this thread's copies of tile j landed
    __syncthreads();  // everyone's have, and every warp is done with the stage that is refilled next
    {
      const int next = j + STAGES - 1;
      const cwb_u32 stage = (next % STAGES) * BN * CWB_D * 2;
      if (next < tiles) cwb_load_kv(sK + stage, sV + stage, k, kr, v, vr, next * BN, S);
      cwb_commit();
    }
    if (j >= warpTiles) continue;
    const int n0 = j * BN;
    const cwb_u32 stage = (j % STAGES) * BN * CWB_D * 2, tk = sK + stage + kLane, tv = sV + stage + vLane;
#if CWB_CAUSAL
    // One body that masks where it must (a second, mask-free body for the tiles left of the diagonal measured level
    // with this one causal: engine/tensor/README.md).
    cwb_tile<true>(tk, kx, tv, vx, qf, acc, rowMax, rowSum, factor, n0, row0, S, lane);
#else
    // Only the last tile masks; the others take a body with no branch, one block of code that the scheduler
    // interleaves across the two slices (115.6 -> 109.0 us at [8, 12, 1024, 64] on the H100).
    if (n0 + BN > S)
      cwb_tile<true>(tk, kx, tv, vx, qf, acc, rowMax, rowSum, factor, n0, row0, S, lane);
    else
      cwb_tile<false>(tk, kx, tv, vx, qf, acc, rowMax, rowSum, factor, n0, row0, S, lane);
#endif
  }

#pragma unroll
  for (int sl = 0; sl < SLICES; ++sl)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float total = rowSum[sl][r];
      total += __shfl_xor_sync(0xffffffffu, total, 1);
      total += __shfl_xor_sync(0xffffffffu, total, 2);
      const float inv = total > 0.f ? 1.f / total : 0.f;
      const int row = row0 + sl * 16 + g + r * 8;
      // The row's natural log-sum-exp of the scaled scores (rowMax * factor is in log2 units), +inf where no key is allowed.
      if (lse && t == 0 && row < L)
        lse[((long long)b * gridDim.y + h) * L + row] =
            total > 0.f ? fmaf(rowMax[sl][r], factor, __log2f(total)) * 0.6931471805599453f : __int_as_float(0x7f800000);
      if (row < L) {
        cwb_u16* out = o + (long long)row * orow + 2 * t;
#pragma unroll
        for (int d = 0; d < CWB_D / 8; ++d)
          *(cwb_u32*)(out + d * 8) = cwb_pack(acc[sl][d][2 * r] * inv, acc[sl][d][2 * r + 1] * inv);
      }
    }
}
)CUDA";

bool supportedHeadDim(int64_t d) { return d == 16 || d == 32 || d == 64 || d == 128; }

}  // namespace

cuda::KernelSource flashKernelSource(const char* what, std::string entry, DType dtype, int headDim, bool causal, const std::string& defines,
                                     const char* body) {
    if ((dtype != DType::Float16 && dtype != DType::BFloat16) || !supportedHeadDim(headDim))
        fail(ErrorKind::NotImplemented, fmt::format("{}: no kernel for {} with head dim {}", what, dtypeName(dtype), headDim));
    std::string code = fmt::format("#define CWB_ENTRY {}\n#define CWB_D {}\n#define CWB_CAUSAL {}\n#define CWB_T \"{}\"\n", entry, headDim,
                                   causal ? 1 : 0, dtype == DType::BFloat16 ? "bf16" : "f16");
    code += defines;
    code += kFlashTilePrelude;
    code += body;
    return {std::move(entry), std::move(code)};
}

FlashForwardShape flashForwardShape(int headDim, bool causal, int sharedLimit) {
    // Defaults measured on the H100 (engine/tensor/README.md). Up to head dim 64: 4 warps and 64-key tiles in two
    // stages; two 16-row slices a warp without a mask (each K and V fragment read once for 32 rows), one with the
    // causal mask (64-row blocks: less work on the diagonal left to one warp while the others wait at the barrier,
    // and twice the blocks to even out the triangle). Head dim 128: one slice a warp (its accumulators alone are
    // 64 registers a slice) and 32-key tiles in three stages (48 KiB of shared memory).
    FlashForwardShape shape = headDim > 64 ? FlashForwardShape{4, 1, 32, 3} : FlashForwardShape{4, causal ? 1 : 2, 64, 2};
    // 128-key tiles (64 KiB of K and V a block, the launch raises the kernel's shared-memory limit) are a tuning
    // choice only, CWB_FLASH_TUNING=keys=128: causal at head dim 64 on the H100 they ran 3-7% slower than 64-key tiles
    // (2 blocks a multiprocessor against 3: 182 registers), and without the mask two slices of them spill.
    // CWB_FLASH_TUNING, parsed once: the values it sets (0: the default's).
    static const FlashForwardShape overrides = [] {
        FlashForwardShape set{0, 0, 0, 0};
        const char* env = std::getenv("CWB_FLASH_TUNING");
        const std::optional<std::string> unknown = eng::cuda::forEachTuningItem(env ? env : "", [&](const std::string& key, int value) {
            if (key == "warps") set.warps = value;
            else if (key == "slices") set.slices = value;
            else if (key == "keys") set.keys = value;
            else if (key == "stages") set.stages = value;
            else return false;
            return true;
        });
        if (unknown) fail(ErrorKind::Value, fmt::format("CWB_FLASH_TUNING: unknown key '{}' (warps, slices, keys, stages)", *unknown));
        return set;
    }();
    if (overrides.warps) shape.warps = overrides.warps;
    if (overrides.slices) shape.slices = overrides.slices;
    if (overrides.keys) shape.keys = overrides.keys;
    if (overrides.stages) shape.stages = overrides.stages;
    const bool valid = (shape.warps == 2 || shape.warps == 4 || shape.warps == 8) && (shape.slices == 1 || shape.slices == 2) &&
                       (shape.keys == 16 || shape.keys == 32 || shape.keys == 64 || shape.keys == 128) && shape.stages >= 2 && shape.stages <= 4 &&
                       shape.sharedBytes(headDim) <= sharedLimit;
    if (!valid)
        fail(ErrorKind::Value, fmt::format("CWB_FLASH_TUNING: warps {} slices {} keys {} stages {} do not fit head dim {} ({} bytes of K and V a block)",
                                                shape.warps, shape.slices, shape.keys, shape.stages, headDim, sharedLimit));
    return shape;
}

cuda::KernelSource flashAttentionKernel(DType dtype, int headDim, bool causal, const FlashForwardShape& shape) {
    const char* type = dtype == DType::BFloat16 ? "bf16" : "f16";
    const std::string defines = fmt::format("#define FWARPS {}\n#define SLICES {}\n#define BN {}\n#define STAGES {}\n#define CWB_PENDING \"{}\"\n",
                                            shape.warps, shape.slices, shape.keys, shape.stages, shape.stages - 2);
    return flashKernelSource("flash attention",
                             fmt::format("cwb_flash_attention_{}_d{}{}_w{}s{}n{}p{}", type, headDim, causal ? "_causal" : "", shape.warps,
                                         shape.slices, shape.keys, shape.stages),
                             dtype, headDim, causal, defines, kFlashSource);
}

FlashForwardLaunch::FlashForwardLaunch(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& lse, double scale,
                                       const FlashForwardShape& block)
    : q_(q.data()), k_(k.data()), v_(v.data()), o_(o.data()), lse_(lse.defined() ? lse.data() : nullptr),
      queries_(static_cast<int>(q.sizes()[2])), keys_(static_cast<int>(k.sizes()[2])), scaleLog2e_(static_cast<float>(scale * 1.4426950408889634)),
      args_{&q_, &k_, &v_, &o_, &lse_, &queries_, &keys_, &scaleLog2e_, &strides_[0][0], &strides_[0][1], &strides_[0][2], &strides_[1][0],
            &strides_[1][1], &strides_[1][2], &strides_[2][0], &strides_[2][1], &strides_[2][2], &strides_[3][0], &strides_[3][1], &strides_[3][2]} {
    const Tensor* operands[4] = {&q, &k, &v, &o};
    for (int i = 0; i < 4; ++i)
        for (int d = 0; d < 3; ++d) strides_[i][d] = operands[i]->strides()[static_cast<size_t>(d)];
    const int64_t headDim = q.sizes()[3];
    shape_.gridX = static_cast<unsigned>((queries_ + block.rows() - 1) / block.rows());
    shape_.gridY = static_cast<unsigned>(q.sizes()[1]);
    shape_.gridZ = static_cast<unsigned>(q.sizes()[0]);
    shape_.blockX = static_cast<unsigned>(block.threads());
    shape_.sharedBytes = static_cast<unsigned>(block.sharedBytes(static_cast<int>(headDim)));
}

std::vector<cuda::KernelSource> flashLibraryKernels() {
    std::vector<cuda::KernelSource> kernels;
    for (DType dtype : {DType::Float16, DType::BFloat16})
        for (int headDim : {16, 32, 64, 128})
            for (bool causal : {false, true}) {
                // (the default shapes fit the default 48 KiB of shared memory: the limit decides nothing else)
                kernels.push_back(flashAttentionKernel(dtype, headDim, causal, flashForwardShape(headDim, causal, 48 * 1024)));
                for (int pass : flashBackwardPasses(headDim)) kernels.push_back(flashAttentionBackwardKernel(dtype, headDim, causal, pass));
            }
    return kernels;
}

}  // namespace cudagen

namespace cudaops {

namespace {

// The kernel indexes (batch, head) with two strides: leading batch dims are folded into one, which reshape
// does as a view whenever the strides allow it (a copy otherwise).
Tensor asFourDims(const Tensor& x) {
    const Shape& sizes = x.sizes();
    const int64_t rows = sizes[sizes.size() - 2], cols = sizes.back();
    switch (sizes.size()) {
        case 2: return reshape(x, {1, 1, rows, cols});
        case 3: return reshape(x, {1, sizes[0], rows, cols});
        case 4: return x;
        default: return reshape(x, {-1, sizes[sizes.size() - 3], rows, cols});
    }
}

// cp.async moves 16-byte chunks: rows must start 16-byte aligned and be dense along the head dim.
bool kernelCanRead(const Tensor& x) {
    // The address from the storage, not x.data(): inside a capture that would run the fills still pending on q, k or
    // v (their projections' launches and compiles) only to look at an address that does not depend on them.
    const auto address = reinterpret_cast<uintptr_t>(x.storage()->data()) + static_cast<uintptr_t>(x.storageOffset()) * x.itemBytes();
    if (address % 16 != 0 || x.strides()[3] != 1) return false;
    for (int d = 0; d < 3; ++d)
        if (x.sizes()[static_cast<size_t>(d)] > 1 && x.strides()[static_cast<size_t>(d)] % 8 != 0) return false;
    return true;
}

}  // namespace

Tensor flashReadable(const Tensor& x) {
    if (kernelCanRead(x)) return x;
    Tensor dense = contiguous(x);
    return kernelCanRead(dense) ? dense : clone(dense);  // an offset view into a dense buffer: a fresh one
}

bool flashAttentionSupported(const Tensor& query, const Tensor& key, const Tensor& value) {
    for (const Tensor* t : {&query, &key, &value})
        if (!onCuda(*t) || t->dim() < 2 || t->dim() != query.dim() || t->dtype() != query.dtype()) return false;
    if (query.dtype() != DType::Float16 && query.dtype() != DType::BFloat16) return false;
    if (normalizeDevice(key.device()) != normalizeDevice(query.device()) || normalizeDevice(value.device()) != normalizeDevice(query.device()))
        return false;
    const int64_t e = query.size(-1);
    if (!cudagen::supportedHeadDim(e) || key.size(-1) != e || value.size(-1) != e) return false;
    if (key.size(-2) != value.size(-2) || query.size(-2) == 0 || key.size(-2) == 0) return false;
    if (query.size(-2) > (int64_t{1} << 30) || key.size(-2) > (int64_t{1} << 30)) return false;
    const Shape batch(query.sizes().begin(), query.sizes().end() - 2);
    if (!std::equal(batch.begin(), batch.end(), key.sizes().begin()) || !std::equal(batch.begin(), batch.end(), value.sizes().begin()))
        return false;
    // Grid y is the last batch dim, grid z the others folded.
    const int64_t heads = batch.empty() ? 1 : batch.back();
    int64_t outer = 1;
    for (size_t d = 0; d + 1 < batch.size(); ++d) outer *= batch[d];
    return heads <= 65535 && outer <= 65535 && heads > 0 && outer > 0;
}

namespace {

EagerKernel flashForwardKernelOfShape(const cuda::DeviceContext& context, DType dtype, int64_t headDim, bool causal,
                                      const cudagen::FlashForwardShape& shape) {
    return {KernelKey(context, "flash_attention").add(dtype).add(headDim).add(int64_t{causal}).add(shape.warps).add(shape.slices).add(shape.keys).add(shape.stages),
            [=] { return cudagen::flashAttentionKernel(dtype, static_cast<int>(headDim), causal, shape); }};
}

}  // namespace

EagerKernel flashForwardKernel(const cuda::DeviceContext& context, DType dtype, int64_t headDim, bool causal) {
    return flashForwardKernelOfShape(context, dtype, headDim, causal,
                                     cudagen::flashForwardShape(static_cast<int>(headDim), causal, context.sharedPerBlockOptin()));
}

void prefetchFlashAttention(const Tensor& query, bool causal) {
    if (!memoEnabled() || prefetchLevel() < 1) return;
    const cuda::DeviceContext& context = cuda::DeviceContext::get(normalizeDevice(query.device()).index());
    const int64_t dim = query.sizes().back();
    std::vector<EagerKernel> kernels = flashBackwardKernels(context, query.dtype(), dim, causal);
    kernels.insert(kernels.begin(), flashForwardKernel(context, query.dtype(), dim, causal));
    prefetch(context, std::move(kernels));
}

Tensor flashAttention(const Tensor& query, const Tensor& key, const Tensor& value, bool causal, double scale, Tensor* logsumexp,
                      const cudagen::FlashForwardShape* blockShape) {
    const Tensor q = flashReadable(asFourDims(query)), k = flashReadable(asFourDims(key)), v = flashReadable(asFourDims(value));
    const int64_t batch = q.sizes()[0], heads = q.sizes()[1], queries = q.sizes()[2], dim = q.sizes()[3];
    // 4-D operands get PyTorch's flash layout: [batch, L, heads, E] in memory, returned transposed, so that the
    // usual y.transpose(1, 2).reshape(b, L, heads * E) that follows is a view, not a copy.
    const bool interleaved = query.dim() == 4;
    const Tensor out = interleaved ? transpose(empty({batch, queries, heads, dim}, q.dtype(), q.device()), 1, 2)
                                   : empty({batch, heads, queries, dim}, q.dtype(), q.device());
    cuda::DeviceContext& context = cuda::DeviceContext::get(normalizeDevice(q.device()).index());
    const cudagen::FlashForwardShape block =
        blockShape ? *blockShape : cudagen::flashForwardShape(static_cast<int>(dim), causal, context.sharedPerBlockOptin());
    // [batch, heads, L] float32 (the folded leading dims unfolded below), as PyTorch's flash forward returns it.
    const Tensor rowLse = logsumexp ? empty({batch, heads, queries}, DType::Float32, q.device()) : Tensor();
    const EagerKernel kernel = flashForwardKernelOfShape(context, q.dtype(), dim, causal, block);
    auto launch = [scale, kernel, causal, dim, block](const Tensor& o, const Tensor& qIn, const Tensor& kIn, const Tensor& vIn, const Tensor& lse) {
        cuda::DeviceContext& device = cuda::DeviceContext::get(normalizeDevice(o.device()).index());
        cudagen::FlashForwardLaunch arguments(qIn, kIn, vIn, o, lse, scale, block);
        // The first forward with grad mode on queues the backward's compile: a training step reaches it next. Under
        // no_grad they would only compete with the forward's own compile (B7's capture: 519 ms against 264 alone).
        const DType dtype = qIn.dtype();
        if (autograd::isGradEnabled())
            launchMemoized(device, kernel.key, kernel.source, arguments.shape(), arguments.args(),
                           [&] { return flashBackwardKernels(device, dtype, dim, causal); });
        else
            launchMemoized(device, kernel.key, kernel.source, arguments.shape(), arguments.args());
    };
    if (logsumexp || !deferringFills()) {
        launch(out, q, k, v, rowLse);
    } else {
        // A capture's example value: the launch waits for the first touch of its elements (tensor/deferred_fill.h),
        // while the kernel compiles on a prefetch thread for the compiled graph's call of the same op.
        if (memoEnabled() && prefetchLevel() > 0) prefetch(context, {kernel});
        fillOrDefer(out, {q, k, v}, [launch](const Tensor& o, std::span<const Tensor> in) { launch(o, in[0], in[1], in[2], Tensor()); });
    }
    if (logsumexp) *logsumexp = reshape(rowLse, Shape(query.sizes().begin(), query.sizes().end() - 1));
    if (interleaved) return out;
    Shape outSizes(query.sizes().begin(), query.sizes().end() - 1);
    outSizes.push_back(dim);
    return reshape(out, outSizes);
}

}  // namespace cudaops

}  // namespace eng::tensor
