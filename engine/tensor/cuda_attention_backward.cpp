// The fused attention backward (FlashAttention-2 style, tensor-core mma.sync or, at head dim 64 on sm_90a, wgmma; fp32
// accumulation): the [L, S] weights are recomputed tile by tile from q, k and each row's log-sum-exp, never stored.
// Three kernels per call (statistics, one fused walk over the query tiles per key tile, dQ's rounding); two at head dim 128.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/cuda_attention.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace cudagen {

namespace {

// Pass 0 (grid over query tiles): each row's log-sum-exp (base 2): the forward's when it saved it, else from a first
// walk over the keys; the row's D = dO . O; unfused (head dim 128), then dQ = scale * dS K with dS = P * (dP - D),
// P = exp2(S log2e - lse), dP = dO V^T, from a second walk. Fused, it zeroes the float32 dQ that pass 2 adds into
// (5 products a tile pair against the two passes' 7, as FlashAttention-2's backward does).
// Pass 1 (grid over key tiles): dV = P^T dO and dK = scale * dS^T Q, with S^T = K Q^T and dP^T = V dO^T, so
// that P^T and dS^T come out of the accumulators in the A-operand layout of the next product (as P does in the
// forward). Both passes keep their fixed 64 rows (Q and dO, or K and V) in registers and stream the other side
// through pairs of swizzled shared tiles (the helpers are flashTilePrelude, shared with the forward kernel): for head
// dims up to 64 two pairs, so that the next tiles load (cp.async) while this one is computed, as the forward overlaps
// its loads; head dim 128 has one pair (two would not fit the 48 KiB of static shared memory). The device helpers
// (parameter block, loads, tile products, the warpgroup products) are flashBackwardDeviceHelpers().
constexpr const char* kFlashBackwardSource = R"CUDA(
extern "C" __global__ void __launch_bounds__(128) CWB_ENTRY(const cwb_attn_params P) {
#if CWB_PASS != 3
  // (1024-byte aligned: the warpgroup products read them in the 128-byte swizzle mode)
  __shared__ __align__(1024) cwb_u16 sA[STAGES][BM * CWB_D];
  __shared__ __align__(1024) cwb_u16 sB[STAGES][BM * CWB_D];
#endif
  const long long b = blockIdx.z, h = blockIdx.y;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  const cwb_u16* q = P.q + b * P.st[0][0] + h * P.st[0][1];
  const cwb_u16* k = P.k + b * P.st[1][0] + h * P.st[1][1];
  const cwb_u16* v = P.v + b * P.st[2][0] + h * P.st[2][1];
  const cwb_u16* dout = P.dout + b * P.st[4][0] + h * P.st[4][1];
  const long long bh = b * gridDim.y + h, rowBase = bh * P.L, statBase = bh * P.Lp;
#if CWB_PASS == 0
  const cwb_u16* o = P.o + b * P.st[3][0] + h * P.st[3][1];
  const int m0 = (gridDim.x - 1 - blockIdx.x) * BM;  // the longest causal rows first
  const int kvEnd = CWB_CAUSAL ? min(P.S, m0 + BM) : P.S;
  const int tiles = (kvEnd + BM - 1) / BM;
  float s[BM / 8][4], dp[BM / 8][4], acc[CWB_D / 8][4];
  cwb_u32 qf[CWB_D / 16][4], df[CWB_D / 16][4];
  // (the fused backward walks the keys here only to make the log-sum-exp the forward did not save)
  if (!CWB_FUSED || !P.savedLse) cwb_load_fixed_rows(qf, df, sA[0], q, P.st[0][2], sB[0], dout, P.st[4][2], m0, P.L, warp, lane);
  // D of this thread's two rows: the quad splits the head dim, 4 elements (8 bytes) a load.
  float delta[2], lse[2], rowMax[2] = {NEG_INF, NEG_INF}, rowSum[2] = {0.f, 0.f};
  for (int r = 0; r < 2; ++r) {
    const int row = m0 + warp * 16 + g + r * 8;
    float sum = 0.f;
    if (row < P.L)
      for (int c = 0; c < CWB_D / 16; ++c) {
        const uint2 x = *(const uint2*)(dout + (long long)row * P.st[4][2] + t * (CWB_D / 4) + c * 4);
        const uint2 y = *(const uint2*)(o + (long long)row * P.st[3][2] + t * (CWB_D / 4) + c * 4);
        sum += cwb_float(x.x & 0xffff) * cwb_float(y.x & 0xffff) + cwb_float(x.x >> 16) * cwb_float(y.x >> 16) +
               cwb_float(x.y & 0xffff) * cwb_float(y.y & 0xffff) + cwb_float(x.y >> 16) * cwb_float(y.y >> 16);
      }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    delta[r] = sum;
  }
  // First walk (unless the forward saved them): each row's log-sum-exp over the allowed keys.
  for (int j = 0; j < (P.savedLse ? 0 : tiles); ++j) {
    cwb_load_tile(sA[0], k, P.st[1][2], j * BM, P.S);
    cwb_commit();
    cwb_wait0();
    __syncthreads();
    cwb_zero(s, BM / 8);
    cwb_mul_bt(s, qf, sA[0], lane);
    __syncthreads();
    const int n0 = j * BM;
    for (int r = 0; r < 2; ++r) {
      const int row = m0 + warp * 16 + g + r * 8;
      float mx = rowMax[r];
      for (int n = 0; n < BM / 8; ++n)
        for (int e = 0; e < 2; ++e) {
          const int key = n0 + n * 8 + 2 * t + e;
          float x = s[n][2 * r + e] * P.scaleLog2e;
          if (key >= P.S || (CWB_CAUSAL && key > row)) x = NEG_INF;
          s[n][2 * r + e] = x;
          mx = fmaxf(mx, x);
        }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float base = mx == NEG_INF ? 0.f : mx;
      float sum = 0.f;
      for (int n = 0; n < BM / 8; ++n) sum += cwb_exp2(s[n][2 * r] - base) + cwb_exp2(s[n][2 * r + 1] - base);
      rowSum[r] = rowSum[r] * cwb_exp2(rowMax[r] - base) + sum;
      rowMax[r] = mx;
    }
  }
  for (int r = 0; r < 2; ++r) {
    float total = rowSum[r];
    total += __shfl_xor_sync(0xffffffffu, total, 1);
    total += __shfl_xor_sync(0xffffffffu, total, 2);
    const int row = m0 + warp * 16 + g + r * 8;
    if (P.savedLse) lse[r] = row < P.L ? P.savedLse[rowBase + row] * 1.4426950408889634f : 0.f;
    else lse[r] = total > 0.f ? rowMax[r] + cwb_log2(total) : POS_INF;  // no allowed key: every weight is 0
    // Rows past L (up to the tile's end) get weight 0, so the fused pass reads whole tiles of statistics unchecked.
    if (t == 0) {
      P.lse[statBase + row] = row < P.L ? lse[r] : POS_INF;
      P.delta[statBase + row] = delta[r];
    }
  }
#if CWB_FUSED
  // The fused pass adds every key tile's dQ into these rows: zero them first.
  float4* acc4 = (float4*)(P.dqAcc + (rowBase + m0) * CWB_D);
  for (int i = threadIdx.x; i < min(BM, P.L - m0) * (CWB_D / 4); i += blockDim.x) acc4[i] = make_float4(0.f, 0.f, 0.f, 0.f);
#else
  // Second walk: dQ, K_j and V_j in stage j % STAGES (with two, tile j + 1 loads while tile j is computed).
  cwb_zero(acc, CWB_D / 8);
  if (tiles > 0) cwb_load_tile_pair(sA[0], k, P.st[1][2], sB[0], v, P.st[2][2], 0, P.S);
  for (int j = 0; j < tiles; ++j) {
    const int st = STAGES == 2 ? (j & 1) : 0;
    if (STAGES == 2 && j + 1 < tiles) {
      cwb_load_tile_pair(sA[st ^ 1], k, P.st[1][2], sB[st ^ 1], v, P.st[2][2], (j + 1) * BM, P.S);
      cwb_wait1();
    } else {
      cwb_wait0();
    }
    __syncthreads();
    cwb_zero(s, BM / 8);
    cwb_zero(dp, BM / 8);
    cwb_mul_bt(s, qf, sA[st], lane);
    cwb_mul_bt(dp, df, sB[st], lane);
    const int n0 = j * BM;
    for (int n = 0; n < BM / 8; ++n)
      for (int e = 0; e < 4; ++e) {
        const int r = e >> 1, key = n0 + n * 8 + 2 * t + (e & 1), row = m0 + warp * 16 + g + r * 8;
        const bool masked = key >= P.S || (CWB_CAUSAL && key > row);
        const float p = masked ? 0.f : cwb_exp2(s[n][e] * P.scaleLog2e - lse[r]);
        s[n][e] = p * (dp[n][e] - delta[r]);
      }
    cwb_mul_b(acc, s, sA[st], lane);
    __syncthreads();  // every warp is done with stage st before it loads again
    if (STAGES == 1 && j + 1 < tiles) cwb_load_tile_pair(sA[0], k, P.st[1][2], sB[0], v, P.st[2][2], (j + 1) * BM, P.S);
  }
  cwb_store(P.dq + b * P.st[5][0] + h * P.st[5][1], P.st[5][2], acc, P.scale, m0 + warp * 16, P.L, g, t);
#endif
#elif CWB_PASS == 1
  float s[BM / 8][4], dp[BM / 8][4], acc[CWB_D / 8][4];
  __shared__ float sLse[STAGES][BM], sDelta[STAGES][BM];
  const int n0 = blockIdx.x * BM;  // the longest causal columns first
  cwb_u32 kf[CWB_D / 16][4], vf[CWB_D / 16][4];
  cwb_load_fixed_rows(kf, vf, sA[0], k, P.st[1][2], sB[0], v, P.st[2][2], n0, P.S, warp, lane);
  float dv[CWB_D / 8][4];
  cwb_zero(acc, CWB_D / 8);  // dK
  cwb_zero(dv, CWB_D / 8);
  const int first = CWB_CAUSAL ? n0 / BM : 0;  // query tiles wholly above the diagonal see none of these keys
  const int tiles = (P.L + BM - 1) / BM;
  // Query tile i (Q, dO and the rows' statistics) into stage `st`, one cp.async group.
  auto load = [&](int i, int st) {
    const int row = i * BM + (threadIdx.x & (BM - 1));
    const float* stats = threadIdx.x < BM ? P.lse : P.delta;
    cwb_load_stat(threadIdx.x < BM ? &sLse[st][threadIdx.x & (BM - 1)] : &sDelta[st][threadIdx.x & (BM - 1)],
                  stats + statBase + (row < P.L ? row : 0), row < P.L);
    cwb_load_tile_pair(sA[st], q, P.st[0][2], sB[st], dout, P.st[4][2], i * BM, P.L);
  };
  if (first < tiles) load(first, 0);
  for (int i = first; i < tiles; ++i) {
    const int m0 = i * BM, st = STAGES == 2 ? ((i - first) & 1) : 0;
    if (STAGES == 2 && i + 1 < tiles) {
      load(i + 1, st ^ 1);
      cwb_wait1();
    } else {
      cwb_wait0();
    }
    __syncthreads();
    cwb_zero(s, BM / 8);
    cwb_zero(dp, BM / 8);
    cwb_mul_bt(s, kf, sA[st], lane);   // S^T: rows are keys, columns queries
    cwb_mul_bt(dp, vf, sB[st], lane);  // dP^T
    for (int n = 0; n < BM / 8; ++n)
      for (int e = 0; e < 4; ++e) {
        const int col = n * 8 + 2 * t + (e & 1), query = m0 + col, key = n0 + warp * 16 + g + (e >> 1) * 8;
        const bool masked = query >= P.L || key >= P.S || (CWB_CAUSAL && key > query);
        const float p = masked ? 0.f : cwb_exp2(s[n][e] * P.scaleLog2e - sLse[st][col]);
        s[n][e] = p;
        dp[n][e] = p * (dp[n][e] - sDelta[st][col]);
      }
    cwb_mul_b(dv, s, sB[st], lane);    // dV += P^T dO
    cwb_mul_b(acc, dp, sA[st], lane);  // dK += dS^T Q
    __syncthreads();  // every warp is done with stage st before it loads again
    if (STAGES == 1 && i + 1 < tiles) load(i + 1, 0);
  }
  cwb_store(P.dk + b * P.st[6][0] + h * P.st[6][1], P.st[6][2], acc, P.scale, n0 + warp * 16, P.S, g, t);
  cwb_store(P.dv + b * P.st[7][0] + h * P.st[7][1], P.st[7][2], dv, 1.f, n0 + warp * 16, P.S, g, t);
#elif CWB_PASS == 2
  // Fused (head dims up to 64): pass 1's walk over the query tiles, which also adds dS K into dQ. dS^T goes from the
  // accumulators (keys as rows) into sdS, each warp reads its 16 query rows of dS back transposed (ldmatrix.trans),
  // multiplies them by K (kept in sK) and adds them into the float32 dQ rows; pass 3 rounds them once. Q and dO are
  // double-buffered; 2 x 2 x 8 + 8 + 8 KiB is the 48 KiB of static shared memory at head dim 64.
  float s[BM / 8][4], dp[BM / 8][4], acc[CWB_D / 8][4], dv[CWB_D / 8][4];
  __shared__ __align__(1024) cwb_u16 sK[BM * CWB_D];
  __shared__ __align__(1024) cwb_u16 sdS[BM * BM];
  const int n0 = blockIdx.x * BM;  // the longest causal columns first
  cwb_u32 kf[CWB_D / 16][4], vf[CWB_D / 16][4];
  cwb_load_tile(sK, k, P.st[1][2], n0, P.S);
  cwb_load_tile(sB[0], v, P.st[2][2], n0, P.S);
  cwb_commit();
  cwb_wait0();
  __syncthreads();
  cwb_load_a(kf, sK, warp, lane);
  cwb_load_a(vf, sB[0], warp, lane);
  __syncthreads();
  cwb_zero(acc, CWB_D / 8);  // dK
  cwb_zero(dv, CWB_D / 8);
  const int first = CWB_CAUSAL ? n0 / BM : 0;  // query tiles wholly above the diagonal see none of these keys
  const int tiles = (P.L + BM - 1) / BM;
  const float* lseRows = P.lse + statBase;
  const float* deltaRows = P.delta + statBase;
  float* dqRows = P.dqAcc + rowBase * CWB_D;
  // Shared addresses: a stage's tile base plus this lane's part, computed once; within a tile the row steps are
  // constants (ldmatrix's immediate offsets) and the swizzled 16-byte columns one of CWB_D / 16 lane values, since
  // (2 kk + c) ^ s = 2 kk ^ (c ^ s) for c in {0, 1} (the 8-row steps leave row & SWZ to the lane).
  const cwb_u32 sA0 = cwb_smem(sA[0]), sB0 = cwb_smem(sB[0]), stageBytes = BM * CWB_D * 2;
  const int swzLane = (lane & 7) & SWZ;
  const cwb_u32 rowT = ((lane & 7) + ((lane >> 3) & 1) * 8) * CWB_D * 2;
  cwb_u32 colT[CWB_D / 16];
  for (int kk = 0; kk < CWB_D / 16; ++kk) colT[kk] = (((kk << 1) ^ ((lane >> 4) ^ swzLane)) << 4);
#if !CWB_WG
  const cwb_u32 rowB = ((lane & 7) + (lane >> 4) * 8) * CWB_D * 2;
  cwb_u32 colB[CWB_D / 16];
  for (int kk = 0; kk < CWB_D / 16; ++kk) colB[kk] = (((kk << 1) ^ (((lane >> 3) & 1) ^ swzLane)) << 4);
#endif
  const cwb_u32 kT = cwb_smem(sK) + rowT;
  // dS^T is [64 keys, 64 queries] with 8 chunks a row: this warp's 16 query columns, read transposed.
  const cwb_u32 dsRead = cwb_smem(sdS) + ((lane & 7) + (lane >> 4) * 8) * BM * 2 + (((warp << 1) ^ (((lane >> 3) & 1) ^ (lane & 7))) << 4);
  const cwb_u32 dsWrite = cwb_smem(sdS) + (warp * 16 + g) * BM * 2 + 4 * t;
  if (first < tiles) cwb_load_tile_pair(sA[0], q, P.st[0][2], sB[0], dout, P.st[4][2], first * BM, P.L);
  for (int i = first; i < tiles; ++i) {
    const int m0 = i * BM, st = STAGES == 2 ? ((i - first) & 1) : 0;
    if (STAGES == 2 && i + 1 < tiles) {
      cwb_load_tile_pair(sA[st ^ 1], q, P.st[0][2], sB[st ^ 1], dout, P.st[4][2], (i + 1) * BM, P.L);
      cwb_wait1();
    } else {
      cwb_wait0();
    }
#if CWB_WG
    // The tiles cp.async wrote (generic proxy) are read next by the tensor cores (async proxy).
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
    // The statistics of this thread's query columns (padded to the tile: no bounds check); the warpgroup products
    // read them while S and dP are computed.
    float2 ls[BM / 8], dl[BM / 8];
    auto loadStatistics = [&] {
      for (int n = 0; n < BM / 8; ++n) {
        ls[n] = *(const float2*)(lseRows + m0 + n * 8 + 2 * t);
        dl[n] = *(const float2*)(deltaRows + m0 + n * 8 + 2 * t);
      }
    };
    if (!CWB_WG) loadStatistics();
    __syncthreads();
    const cwb_u32 qTile = sA0 + st * stageBytes, doTile = sB0 + st * stageBytes;
    // S^T = K Q^T and dP^T = V dO^T: rows are this warp's keys, columns the tile's queries.
#if CWB_WG
    cwb_wg_fence();
    for (int kk = 0; kk < CWB_D / 16; ++kk) cwb_wgmma<0>(s, kf[kk], cwb_wg_desc(qTile + kk * 32), kk);
    for (int kk = 0; kk < CWB_D / 16; ++kk) cwb_wgmma<0>(dp, vf[kk], cwb_wg_desc(doTile + kk * 32), kk);
    cwb_wg_commit();
    loadStatistics();
    cwb_wg_wait0();
    cwb_wg_hold(s);
    cwb_wg_hold(dp);
    for (int kk = 0; kk < CWB_D / 16; ++kk) {
      cwb_wg_hold(kf[kk]);
      cwb_wg_hold(vf[kk]);
    }
#else
    cwb_zero(s, BM / 8);
    cwb_zero(dp, BM / 8);
    for (int kk = 0; kk < CWB_D / 16; ++kk)
      for (int n = 0; n < BM / 16; ++n) {
        cwb_u32 bq[4], bd[4];
        cwb_ldm(bq, qTile + rowB + n * 16 * CWB_D * 2 + colB[kk]);
        cwb_ldm(bd, doTile + rowB + n * 16 * CWB_D * 2 + colB[kk]);
        cwb_mma(s[2 * n], kf[kk], bq[0], bq[1]);
        cwb_mma(s[2 * n + 1], kf[kk], bq[2], bq[3]);
        cwb_mma(dp[2 * n], vf[kk], bd[0], bd[1]);
        cwb_mma(dp[2 * n + 1], vf[kk], bd[2], bd[3]);
      }
#endif
    // P and dS = P (dP - D). Only the causal diagonal tile and the tails mask.
    const bool edge = (CWB_CAUSAL && m0 == n0) || m0 + BM > P.L || n0 + BM > P.S;
    if (edge) {
      for (int n = 0; n < BM / 8; ++n)
        for (int e = 0; e < 4; ++e) {
          const int query = m0 + n * 8 + 2 * t + (e & 1), key = n0 + warp * 16 + g + (e >> 1) * 8;
          const bool masked = query >= P.L || key >= P.S || (CWB_CAUSAL && key > query);
          const float p = masked ? 0.f : cwb_exp2(s[n][e] * P.scaleLog2e - ((e & 1) ? ls[n].y : ls[n].x));
          s[n][e] = p;
          dp[n][e] = p * (dp[n][e] - ((e & 1) ? dl[n].y : dl[n].x));
        }
    } else {
      for (int n = 0; n < BM / 8; ++n)
        for (int e = 0; e < 4; ++e) {
          const float p = cwb_exp2(s[n][e] * P.scaleLog2e - ((e & 1) ? ls[n].y : ls[n].x));
          s[n][e] = p;
          dp[n][e] = p * (dp[n][e] - ((e & 1) ? dl[n].y : dl[n].x));
        }
    }
    // dV += P^T dO and dK += dS^T Q (P^T and dS^T from the accumulators as A operands, rounded once); dS^T, the same
    // rounded values, into sdS (row = key, 16-byte chunk n = queries 8n..8n+7, swizzled by the row).
#if CWB_WG
    // dV += P^T dO and dK += dS^T Q as warpgroup products: B is the tile read transposed (queries as k, dims as n).
    cwb_u32 pa[BM / 16][4], da[BM / 16][4];
    for (int kk = 0; kk < BM / 16; ++kk) {
      pa[kk][0] = cwb_pack(s[2 * kk][0], s[2 * kk][1]);
      pa[kk][1] = cwb_pack(s[2 * kk][2], s[2 * kk][3]);
      pa[kk][2] = cwb_pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      pa[kk][3] = cwb_pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
      da[kk][0] = cwb_pack(dp[2 * kk][0], dp[2 * kk][1]);
      da[kk][1] = cwb_pack(dp[2 * kk][2], dp[2 * kk][3]);
      da[kk][2] = cwb_pack(dp[2 * kk + 1][0], dp[2 * kk + 1][1]);
      da[kk][3] = cwb_pack(dp[2 * kk + 1][2], dp[2 * kk + 1][3]);
    }
    cwb_wg_fence();
    for (int kk = 0; kk < BM / 16; ++kk) cwb_wgmma<1>(dv, pa[kk], cwb_wg_desc(doTile + kk * 16 * CWB_D * 2), 1);
    for (int kk = 0; kk < BM / 16; ++kk) cwb_wgmma<1>(acc, da[kk], cwb_wg_desc(qTile + kk * 16 * CWB_D * 2), 1);
    cwb_wg_commit();
    for (int kk = 0; kk < BM / 16; ++kk) {
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + (((2 * kk) ^ g) << 4)), "r"(da[kk][0]) : "memory");
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + 8 * BM * 2 + (((2 * kk) ^ g) << 4)), "r"(da[kk][1]) : "memory");
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + (((2 * kk + 1) ^ g) << 4)), "r"(da[kk][2]) : "memory");
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + 8 * BM * 2 + (((2 * kk + 1) ^ g) << 4)), "r"(da[kk][3]) : "memory");
    }
#if CWB_WGMMA == 2
    // dS, stored above, is read by the tensor cores next; dV and dK are waited for after dQ's product is issued.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
    cwb_wg_wait0();
    cwb_wg_hold(dv);
    cwb_wg_hold(acc);
    for (int kk = 0; kk < BM / 16; ++kk) {
      cwb_wg_hold(pa[kk]);
      cwb_wg_hold(da[kk]);
    }
#endif
#else
    for (int kk = 0; kk < BM / 16; ++kk) {
      const cwb_u32 pa[4] = {cwb_pack(s[2 * kk][0], s[2 * kk][1]), cwb_pack(s[2 * kk][2], s[2 * kk][3]),
                             cwb_pack(s[2 * kk + 1][0], s[2 * kk + 1][1]), cwb_pack(s[2 * kk + 1][2], s[2 * kk + 1][3])};
      const cwb_u32 da[4] = {cwb_pack(dp[2 * kk][0], dp[2 * kk][1]), cwb_pack(dp[2 * kk][2], dp[2 * kk][3]),
                             cwb_pack(dp[2 * kk + 1][0], dp[2 * kk + 1][1]), cwb_pack(dp[2 * kk + 1][2], dp[2 * kk + 1][3])};
      for (int d = 0; d < CWB_D / 16; ++d) {
        cwb_u32 bd[4], bq[4];
        cwb_ldm_t(bd, doTile + rowT + kk * 16 * CWB_D * 2 + colT[d]);
        cwb_ldm_t(bq, qTile + rowT + kk * 16 * CWB_D * 2 + colT[d]);
        cwb_mma(dv[2 * d], pa, bd[0], bd[1]);
        cwb_mma(dv[2 * d + 1], pa, bd[2], bd[3]);
        cwb_mma(acc[2 * d], da, bq[0], bq[1]);
        cwb_mma(acc[2 * d + 1], da, bq[2], bq[3]);
      }
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + (((2 * kk) ^ g) << 4)), "r"(da[0]) : "memory");
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + 8 * BM * 2 + (((2 * kk) ^ g) << 4)), "r"(da[1]) : "memory");
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + (((2 * kk + 1) ^ g) << 4)), "r"(da[2]) : "memory");
      asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(dsWrite + 8 * BM * 2 + (((2 * kk + 1) ^ g) << 4)), "r"(da[3]) : "memory");
    }
#endif
    __syncthreads();
    // dQ of this warp's 16 query rows: dS[16, 64 keys] K[64 keys, CWB_D].
    float (*dq)[4] = s;  // (s is free again; CWB_D <= BM)
#if CWB_WG && CWB_WGMMA == 2
    // As one warpgroup product: dS (A) read from sdS, where its rows are keys, and K (B) from sK, both MN-major.
    cwb_wg_fence();
    for (int kk = 0; kk < BM / 16; ++kk)
      cwb_wgmma_tt(dq, cwb_wg_desc(cwb_smem(sdS) + kk * 16 * BM * 2), cwb_wg_desc(cwb_smem(sK) + kk * 16 * CWB_D * 2), kk);
    cwb_wg_commit();
    cwb_wg_wait0();  // (dV's and dK's products too)
    cwb_wg_hold(dq);
    cwb_wg_hold(dv);
    cwb_wg_hold(acc);
    for (int kk = 0; kk < BM / 16; ++kk) {
      cwb_wg_hold(pa[kk]);
      cwb_wg_hold(da[kk]);
    }
#else
    cwb_zero(dq, CWB_D / 8);
    for (int kk = 0; kk < BM / 16; ++kk) {
      cwb_u32 a[4];
      cwb_ldm_t(a, dsRead + kk * 16 * BM * 2);
      for (int d = 0; d < CWB_D / 16; ++d) {
        cwb_u32 b4[4];
        cwb_ldm_t(b4, kT + kk * 16 * CWB_D * 2 + colT[d]);
        cwb_mma(dq[2 * d], a, b4[0], b4[1]);
        cwb_mma(dq[2 * d + 1], a, b4[2], b4[3]);
      }
    }
#endif
    for (int r = 0; r < 2; ++r) {
      const int row = m0 + warp * 16 + g + r * 8;
      float* rowSum = dqRows + (long long)row * CWB_D + 2 * t;
      if (row < P.L)
        for (int d = 0; d < CWB_D / 8; ++d) cwb_red2(rowSum + d * 8, dq[d][2 * r], dq[d][2 * r + 1]);
    }
    __syncthreads();  // every warp is done with sdS and stage st before they are written again
  }
  cwb_store(P.dk + b * P.st[6][0] + h * P.st[6][1], P.st[6][2], acc, P.scale, n0 + warp * 16, P.S, g, t);
  cwb_store(P.dv + b * P.st[7][0] + h * P.st[7][1], P.st[7][2], dv, 1.f, n0 + warp * 16, P.S, g, t);
#else
  // Pass 3 (fused): dQ = scale * the summed float32 rows, rounded once, into its [batch, L, heads, E] block.
  const int m0 = blockIdx.x * BM;
  const float4* src = (const float4*)(P.dqAcc + (rowBase + m0) * CWB_D);
  cwb_u16* dq = P.dq + b * P.st[5][0] + h * P.st[5][1];
  for (int i = threadIdx.x; i < min(BM, P.L - m0) * (CWB_D / 4); i += blockDim.x) {
    const float4 x = src[i];
    const int row = m0 + i / (CWB_D / 4), col = (i % (CWB_D / 4)) * 4;
    *(uint2*)(dq + (long long)row * P.st[5][2] + col) = make_uint2(cwb_pack(x.x * P.scale, x.y * P.scale), cwb_pack(x.z * P.scale, x.w * P.scale));
  }
#endif
}
)CUDA";

// The kernel after its helpers (cuda_attention_backward_device.cpp).
const std::string& backwardSource() {
    static const std::string source = std::string(flashBackwardDeviceHelpers()) + kFlashBackwardSource;
    return source;
}

// The kernel's parameter block, as the source declares it.
struct AttentionParams {
    const void *q, *k, *v, *o, *dout;
    void *dq, *dk, *dv;
    float *lse, *delta;
    const float* savedLse;
    float* dqAcc;
    int L, S, Lp;
    float scaleLog2e, scale;
    long long st[8][3];
};

}  // namespace

bool flashBackwardFused(int headDim) {
    // CWB_FLASH_BACKWARD_FUSED=0 keeps the two passes at every head dim (to measure the fused pass against them).
    static const bool enabled = [] {
        const char* setting = std::getenv("CWB_FLASH_BACKWARD_FUSED");
        return !setting || std::string_view(setting) != "0";
    }();
    return enabled && headDim <= 64;
}

int flashBackwardWarpgroup(int headDim) {
    // CWB_FLASH_BACKWARD_WGMMA: 0 keeps the fused pass's products on mma.sync (to measure the two), 1 takes warpgroup
    // products for S, dP, dV and dK, 2 (the default) for dQ too.
    static const int level = [] {
        const char* setting = std::getenv("CWB_FLASH_BACKWARD_WGMMA");
        const std::string_view text = setting ? setting : "2";
        return text == "0" ? 0 : text == "1" ? 1 : 2;
    }();
    return headDim == 64 && flashBackwardFused(headDim) ? level : 0;
}

cuda::KernelSource flashAttentionBackwardKernel(DType dtype, int headDim, bool causal, int pass) {
    const bool bf16 = dtype == DType::BFloat16, fused = flashBackwardFused(headDim);
    if (pass < 0 || pass > 3 || (pass >= 2 && !fused))
        fail(ErrorKind::NotImplemented, fmt::format("flash attention backward: no pass {} for head dim {}", pass, headDim));
    static const char* const names[2][4] = {{"dq", "dkv", "", ""}, {"stats", "dkv", "fused", "dq"}};
    // The fused pass at head dim 64 takes warpgroup products where the device has them (sm_90a; elsewhere the same
    // source compiles to mma.sync).
    const int warpgroup = pass == 2 ? flashBackwardWarpgroup(headDim) : 0;
    cuda::KernelSource source = flashKernelSource(
        "flash attention backward",
        fmt::format("cwb_flash_attention_backward_{}{}_{}_d{}{}", names[fused][pass], warpgroup ? fmt::format("_wg{}", warpgroup) : "",
                    bf16 ? "bf16" : "f16", headDim,
                    causal ? "_causal" : ""),
        dtype, headDim, causal,
        fmt::format("#define CWB_BF16 {}\n#define CWB_PASS {}\n#define CWB_FUSED {}\n#define CWB_WGMMA {}\n", bf16 ? 1 : 0, pass, fused ? 1 : 0,
                    warpgroup),
        backwardSource().c_str());
    source.archSpecific = warpgroup > 0;
    return source;
}

std::vector<int> flashBackwardPasses(int headDim) { return flashBackwardFused(headDim) ? std::vector<int>{0, 2, 3} : std::vector<int>{0, 1}; }

}  // namespace cudagen

namespace cudaops {


bool flashAttentionBackwardSupported(const Tensor& query, const Tensor& key, const Tensor& value) {
    return query.dim() == 4 && flashAttentionSupported(query, key, value) && key.sizes() == query.sizes() && value.sizes() == query.sizes();
}

std::vector<EagerKernel> flashBackwardKernels(const cuda::DeviceContext& context, DType dtype, int64_t headDim, bool causal) {
    std::vector<EagerKernel> kernels;
    for (int pass : cudagen::flashBackwardPasses(static_cast<int>(headDim)))
        kernels.push_back({KernelKey(context, "flash_attention_backward")
                               .add(dtype)
                               .add(headDim)
                               .add(int64_t{causal})
                               .add(int64_t{pass})
                               .add(int64_t{cudagen::flashBackwardWarpgroup(static_cast<int>(headDim))}),
                           [=] { return cudagen::flashAttentionBackwardKernel(dtype, static_cast<int>(headDim), causal, pass); }});
    return kernels;
}

Tensor flashAttentionBackward(const Tensor& grad, const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& out, bool causal,
                              double scale, const Tensor& logsumexp) {
    if (!flashAttentionBackwardSupported(query, key, value) || grad.sizes() != query.sizes() || out.sizes() != query.sizes() ||
        grad.dtype() != query.dtype() || out.dtype() != query.dtype())
        fail(ErrorKind::Runtime, "_flash_attention_backward: query, key, value, out and grad must be 4-D CUDA float16/bfloat16 tensors of one "
                                 "shape with head dim 16, 32, 64 or 128");
    const Shape rowsShape(query.sizes().begin(), query.sizes().end() - 1);
    if (logsumexp.defined() && (logsumexp.sizes() != rowsShape || logsumexp.dtype() != DType::Float32 ||
                                normalizeDevice(logsumexp.device()) != normalizeDevice(query.device())))
        fail(ErrorKind::Runtime, "_flash_attention_backward: logsumexp must be a float32 [batch, heads, L] tensor on the query's device");
    const Tensor savedLse = logsumexp.defined() ? contiguous(logsumexp) : Tensor();
    const Tensor q = flashReadable(query), k = flashReadable(key), v = flashReadable(value), o = flashReadable(out), g = flashReadable(grad);
    const int64_t batch = q.sizes()[0], heads = q.sizes()[1], rows = q.sizes()[2], dim = q.sizes()[3];
    // [3, batch, L, heads, E]: PyTorch's flash layout, so that the transposes back to [batch, L, heads * E] are views.
    const Tensor grads = empty({3, batch, rows, heads, dim}, q.dtype(), q.device());
    const int64_t tilesL = (rows + cudagen::kAttentionRowsPerBlock - 1) / cudagen::kAttentionRowsPerBlock;
    const int64_t paddedRows = tilesL * cudagen::kAttentionRowsPerBlock;
    const Tensor rowStats = empty({2, batch, heads, paddedRows}, DType::Float32, q.device());
    const bool fused = cudagen::flashBackwardFused(static_cast<int>(dim));
    const Tensor dqSum = fused ? empty({batch, heads, rows, dim}, DType::Float32, q.device()) : Tensor();
    cudagen::AttentionParams params{};
    params.q = q.data();
    params.k = k.data();
    params.v = v.data();
    params.o = o.data();
    params.dout = g.data();
    char* base = static_cast<char*>(grads.data());
    const size_t part = static_cast<size_t>(batch * rows * heads * dim) * itemSize(q.dtype());
    params.dq = base;
    params.dk = base + part;
    params.dv = base + 2 * part;
    params.lse = static_cast<float*>(rowStats.data());
    params.delta = params.lse + batch * heads * paddedRows;
    params.savedLse = savedLse.defined() ? static_cast<const float*>(savedLse.data()) : nullptr;
    params.dqAcc = fused ? static_cast<float*>(dqSum.data()) : nullptr;
    params.L = params.S = static_cast<int>(rows);
    params.Lp = static_cast<int>(paddedRows);
    params.scaleLog2e = static_cast<float>(scale * 1.4426950408889634);
    params.scale = static_cast<float>(scale);
    const Tensor* operands[5] = {&q, &k, &v, &o, &g};
    for (int i = 0; i < 5; ++i)
        for (int d = 0; d < 3; ++d) params.st[i][d] = operands[i]->strides()[static_cast<size_t>(d)];
    for (int i = 5; i < 8; ++i) {  // (batch, head, row) strides of a [batch, L, heads, E] block
        params.st[i][0] = rows * heads * dim;
        params.st[i][1] = dim;
        params.st[i][2] = heads * dim;
    }
    cuda::DeviceContext& context = cuda::DeviceContext::get(normalizeDevice(q.device()).index());
    cuda::LaunchShape shape;
    shape.gridX = static_cast<unsigned>(tilesL);  // (every pass: L == S)
    shape.gridY = static_cast<unsigned>(heads);
    shape.gridZ = static_cast<unsigned>(batch);
    shape.blockX = cudagen::kAttentionThreads;
    void* args[] = {&params};
    // The first pass's first launch queues the others, so that they compile beside it.
    const std::vector<EagerKernel> kernels = flashBackwardKernels(context, q.dtype(), dim, causal);
    for (const EagerKernel& kernel : kernels) launchMemoized(context, kernel.key, kernel.source, shape, args, [&] { return kernels; });
    return grads;
}

}  // namespace cudaops

}  // namespace eng::tensor
