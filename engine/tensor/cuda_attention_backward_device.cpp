// The flash backward kernel's device helpers: its parameter block, the statistics and tile loads, the m16n8k16 tile
// products and, for sm_90a, Hopper's warpgroup products (wgmma). cuda_attention_backward.cpp puts its kernel after them.
#include "tensor/cuda_attention.h"

namespace eng::tensor::cudagen {

const char* flashBackwardDeviceHelpers() {
    return R"CUDA(
#define POS_INF __int_as_float(0x7f800000)

struct cwb_attn_params {
  const cwb_u16* q; const cwb_u16* k; const cwb_u16* v; const cwb_u16* o; const cwb_u16* dout;
  cwb_u16* dq; cwb_u16* dk; cwb_u16* dv;
  float* lse; float* delta;  // per (batch, head, query row < Lp): log2-sum-exp2 of the scaled scores, dO . O
  const float* savedLse;     // the forward's natural log-sum-exp per (batch, head, query row < L), or null
  float* dqAcc;              // fused: dQ / scale in float32, [batch, head, L, CWB_D], summed over the key tiles
  int L, S, Lp; float scaleLog2e, scale;  // Lp: L rounded up to whole 64-row tiles
  // element strides (batch, head, row) of q, k, v, o, dout, dq, dk, dv
  long long st[8][3];
};

#define STAGES (CWB_D <= 64 ? 2 : 1)
__device__ __forceinline__ void cwb_wait0() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }
__device__ __forceinline__ void cwb_wait1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
// One float of a row statistic into shared memory (zero where !ok), in the caller's cp.async group.
__device__ __forceinline__ void cwb_load_stat(float* dst, const float* src, bool ok) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(cwb_smem(dst)), "l"(src), "r"(ok ? 4 : 0) : "memory");
}
__device__ __forceinline__ float cwb_float(cwb_u16 x) {
#if CWB_BF16
  return __uint_as_float(((cwb_u32)x) << 16);
#else
  float f;
  asm("{ .reg .b16 h; mov.b16 h, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "h"(x));
  return f;
#endif
}
// Adds two floats into consecutive (8-byte aligned) global floats: one vector reduction on sm_90.
__device__ __forceinline__ void cwb_red2(float* p, float a, float b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(a), "f"(b) : "memory");
#else
  atomicAdd(p, a);
  atomicAdd(p + 1, b);
#endif
}
__device__ __forceinline__ float cwb_exp2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float cwb_log2(float x) { float y; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }

#if CWB_WGMMA > 0 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CWB_WG 1
// Hopper's warpgroup products (wgmma, sm_90a): the block's 4 warps are one warpgroup, so an m64n64k16 product has the
// accumulator layout of each warp's 16 rows of m16n8k16 products (row g / g + 8, columns 8 n + 2 t, + 1) and takes A
// from registers in the m16n8k16 A layout; B is read by the tensor cores from a swizzled [64, 64] tile, whose
// 128-byte rows with chunk ^ (row & 7) are the 128-byte swizzle mode (tile bases 1024-byte aligned). Both byte
// offsets are 1024 (8 rows): K-major the leading one is unused; MN-major (transposed B) with N = 64, one swizzle atom
// wide, the stride between atoms is unused, so either reading of the two fields gives the 8-row step.
__device__ __forceinline__ unsigned long long cwb_wg_desc(cwb_u32 addr) {
  return (unsigned long long)((addr & 0x3ffff) >> 4) | (64ull << 16) | (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void cwb_wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cwb_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cwb_wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
// Keeps registers an in-flight product reads or writes where they are until a wait (the compiler sees them change).
__device__ __forceinline__ void cwb_wg_hold(float (*d)[4]) {
  for (int i = 0; i < 8; ++i) asm volatile("" : "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3]) :: "memory");
}
__device__ __forceinline__ void cwb_wg_hold(cwb_u32* a) { asm volatile("" : "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3]) :: "memory"); }
// d[64 rows, 64] (+)= a[64, 16] b[16, 64]: b is K-major ([n][k], TRANS 0) or MN-major ([k][n], TRANS 1) at descB.
template <int TRANS>
__device__ __forceinline__ void cwb_wgmma(float (*d)[4], const cwb_u32* a, unsigned long long descB, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." CWB_T "." CWB_T " "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
      : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
        "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
        "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
        "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(accumulate), "n"(TRANS)
      : "memory");
}
// d[64 rows, 64] = a[64, 16] b[16, 64], both read from shared memory MN-major ([k][m] and [k][n]).
__device__ __forceinline__ void cwb_wgmma_tt(float (*d)[4], unsigned long long descA, unsigned long long descB, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." CWB_T "." CWB_T " "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 1, 1;\n}\n"
      : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
        "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
        "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
        "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
      : "l"(descA), "l"(descB), "r"(accumulate)
      : "memory");
}
#else
#define CWB_WG 0
#endif
// The 16 rows of this warp of a [64, CWB_D] tile as A operands, one per k16 step.
__device__ __forceinline__ void cwb_load_a(cwb_u32 (*f)[4], const cwb_u16* tile, int warp, int lane) {
  for (int kk = 0; kk < CWB_D / 16; ++kk)
    cwb_ldm(f[kk], cwb_smem(tile + cwb_swz(warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, kk * 2 + (lane >> 4))));
}
// acc[64 cols as 8 n8 tiles] += a[16 rows, CWB_D] . tile[64 rows, CWB_D]^T
__device__ __forceinline__ void cwb_mul_bt(float (*acc)[4], cwb_u32 (*a)[4], const cwb_u16* tile, int lane) {
  for (int kk = 0; kk < CWB_D / 16; ++kk)
    for (int n = 0; n < BM / 16; ++n) {
      cwb_u32 b[4];
      cwb_ldm(b, cwb_smem(tile + cwb_swz(n * 16 + (lane & 7) + (lane >> 4) * 8, kk * 2 + ((lane >> 3) & 1))));
      cwb_mma(acc[2 * n], a[kk], b[0], b[1]);
      cwb_mma(acc[2 * n + 1], a[kk], b[2], b[3]);
    }
}
// acc[CWB_D cols] += p[16 rows, 64] . tile[64 rows, CWB_D], p given as accumulators (rounded here)
__device__ __forceinline__ void cwb_mul_b(float (*acc)[4], float (*p)[4], const cwb_u16* tile, int lane) {
  for (int kk = 0; kk < BM / 16; ++kk) {
    const cwb_u32 a[4] = {cwb_pack(p[2 * kk][0], p[2 * kk][1]), cwb_pack(p[2 * kk][2], p[2 * kk][3]),
                          cwb_pack(p[2 * kk + 1][0], p[2 * kk + 1][1]), cwb_pack(p[2 * kk + 1][2], p[2 * kk + 1][3])};
    for (int d = 0; d < CWB_D / 16; ++d) {
      cwb_u32 b[4];
      cwb_ldm_t(b, cwb_smem(tile + cwb_swz(kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, d * 2 + (lane >> 4))));
      cwb_mma(acc[2 * d], a, b[0], b[1]);
      cwb_mma(acc[2 * d + 1], a, b[2], b[3]);
    }
  }
}
// Rows row0.. of `a` into tile sA and of `b` into tile sB (one cp.async group; the caller waits for it).
__device__ __forceinline__ void cwb_load_tile_pair(cwb_u16* sA, const cwb_u16* a, long long strideA, cwb_u16* sB, const cwb_u16* b,
                                                   long long strideB, int row0, int rows) {
  cwb_load_tile(sA, a, strideA, row0, rows);
  cwb_load_tile(sB, b, strideB, row0, rows);
  cwb_commit();
}
// A pass's fixed 64 rows (Q and dO, or K and V) as this warp's A operands fa and fb, through sA and sB, which are free
// again when this returns.
__device__ __forceinline__ void cwb_load_fixed_rows(cwb_u32 (*fa)[4], cwb_u32 (*fb)[4], cwb_u16* sA, const cwb_u16* a, long long strideA,
                                                    cwb_u16* sB, const cwb_u16* b, long long strideB, int row0, int rows, int warp,
                                                    int lane) {
  cwb_load_tile_pair(sA, a, strideA, sB, b, strideB, row0, rows);
  cwb_wait0();
  __syncthreads();
  cwb_load_a(fa, sA, warp, lane);
  cwb_load_a(fb, sB, warp, lane);
  __syncthreads();
}
__device__ __forceinline__ void cwb_zero(float (*acc)[4], int n) {
  for (int i = 0; i < n; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
}
// Rows (warp's 16) of an accumulator [16, CWB_D] times `factor`, written where row < rows.
__device__ __forceinline__ void cwb_store(cwb_u16* out, long long stride, float (*acc)[4], float factor, int row0, int rows, int g, int t) {
  for (int r = 0; r < 2; ++r) {
    const int row = row0 + g + r * 8;
    if (row >= rows) continue;
    cwb_u16* p = out + (long long)row * stride + 2 * t;
    for (int d = 0; d < CWB_D / 8; ++d) *(cwb_u32*)(p + d * 8) = cwb_pack(acc[d][2 * r] * factor, acc[d][2 * r + 1] * factor);
  }
}

)CUDA";
}

}  // namespace eng::tensor::cudagen
