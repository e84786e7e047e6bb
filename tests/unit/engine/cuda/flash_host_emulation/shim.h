// Host shim for the flash forward kernel (flash_host_emulation): CUDA threads as std::threads, warp ops (ldmatrix,
// mma.sync m16n8k16, shuffles) through per-warp exchange buffers, cp.async as plain copies.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <barrier>
#include <vector>
#include <algorithm>
#include <memory>
typedef unsigned short cwb_u16;
typedef unsigned int cwb_u32;
struct dim3e { unsigned x = 1, y = 1, z = 1; };
thread_local dim3e threadIdx, blockIdx;
dim3e gridDim, blockDim;
thread_local unsigned char* tl_smem;
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define BM 64
#define CHUNKS (CWB_D / 8)
#define SWZ (CHUNKS < 8 ? CHUNKS - 1 : 7)
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
#define __log2f(x) log2f(x)
#define NEG_INF __int_as_float(0xff800000)
using std::min; using std::max;

inline float bits2f(cwb_u16 h) {
#ifdef CWB_F16
  _Float16 v; std::memcpy(&v, &h, 2); return (float)v;
#else
  cwb_u32 u = (cwb_u32)h << 16; float f; std::memcpy(&f, &u, 4); return f;
#endif
}
inline cwb_u16 f2bits(float x) {
#ifdef CWB_F16
  _Float16 v = (_Float16)x; cwb_u16 h; std::memcpy(&h, &v, 2); return h;
#else
  cwb_u32 u; std::memcpy(&u, &x, 4); if ((u & 0x7fffffff) > 0x7f800000) return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1); return (cwb_u16)(u >> 16);
#endif
}
struct Warp {
  std::barrier<> bar{32};
  cwb_u32 addr[32]; cwb_u32 a[32][4]; cwb_u32 b[32][2]; float f[32];
};
thread_local Warp* tl_warp;
thread_local std::barrier<>* tl_block;
inline int lane_() { return threadIdx.x & 31; }
inline void __syncthreads() { tl_block->arrive_and_wait(); }
inline float __shfl_xor_sync(unsigned, float v, int m) {
  Warp& w = *tl_warp; int l = lane_(); w.f[l] = v; w.bar.arrive_and_wait(); float r = w.f[l ^ m]; w.bar.arrive_and_wait(); return r;
}
inline cwb_u32 cwb_smem(const void* p) { return (cwb_u32)((const unsigned char*)p - tl_smem); }
inline int cwb_swz(int row, int chunk) { return row * CWB_D + ((chunk ^ (row & SWZ)) << 3); }
inline void cwb_commit() {}
inline float cwb_exp2(float x) { return std::exp2(x); }
inline cwb_u16 smem16(cwb_u32 byteAddr) { cwb_u16 v; std::memcpy(&v, tl_smem + byteAddr, 2); return v; }
inline void ldm(cwb_u32* r, cwb_u32 addr, bool trans) {
  Warp& w = *tl_warp; int l = lane_(); w.addr[l] = addr; w.bar.arrive_and_wait();
  for (int m = 0; m < 4; ++m) {
    cwb_u16 lo, hi;
    if (!trans) { cwb_u32 row = w.addr[m * 8 + l / 4]; lo = smem16(row + 4 * (l % 4)); hi = smem16(row + 4 * (l % 4) + 2); }
    else { lo = smem16(w.addr[m * 8 + 2 * (l % 4)] + 2 * (l / 4)); hi = smem16(w.addr[m * 8 + 2 * (l % 4) + 1] + 2 * (l / 4)); }
    r[m] = lo | ((cwb_u32)hi << 16);
  }
  w.bar.arrive_and_wait();
}
inline void cwb_ldm(cwb_u32* r, cwb_u32 addr) { ldm(r, addr, false); }
inline void cwb_ldm_t(cwb_u32* r, cwb_u32 addr) { ldm(r, addr, true); }
inline float half_(cwb_u32 w, int hi) { return bits2f((cwb_u16)(hi ? w >> 16 : w & 0xffff)); }
inline void cwb_mma(float* c, const cwb_u32* a, cwb_u32 b0, cwb_u32 b1) {
  Warp& w = *tl_warp; int l = lane_();
  for (int i = 0; i < 4; ++i) w.a[l][i] = a[i];
  w.b[l][0] = b0; w.b[l][1] = b1; w.bar.arrive_and_wait();
  auto A = [&](int row, int k) { int g = row % 8, t = (k % 8) / 2; int reg = (row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0); return half_(w.a[g * 4 + t][reg], k & 1); };
  auto B = [&](int k, int col) { int t = (k % 8) / 2; int reg = k >= 8 ? 1 : 0; return half_(w.b[col * 4 + t][reg], k & 1); };
  int g = l / 4, t = l % 4;
  for (int e = 0; e < 4; ++e) {
    int row = g + (e >> 1) * 8, col = 2 * t + (e & 1); float s = c[e];
    for (int k = 0; k < 16; ++k) s += A(row, k) * B(k, col);
    c[e] = s;
  }
  w.bar.arrive_and_wait();
}
inline cwb_u32 cwb_pack(float lo, float hi) { return f2bits(lo) | ((cwb_u32)f2bits(hi) << 16); }


inline void cwb_load_kv(cwb_u32 skAddr, cwb_u32 svAddr, const cwb_u16* k, long long kr, const cwb_u16* v, long long vr, int row0, int rows) {
  cwb_u16* sk = (cwb_u16*)(tl_smem + skAddr); cwb_u16* sv = (cwb_u16*)(tl_smem + svAddr);
  for (int i = threadIdx.x; i < BN * CHUNKS; i += FWARPS * 32) {
    const int r = i / CHUNKS, c = i % CHUNKS, gr = row0 + r; const bool ok = gr < rows;
    for (int x = 0; x < 8; ++x) { sk[cwb_swz(r, c) + x] = ok ? k[gr * kr + c * 8 + x] : 0; sv[cwb_swz(r, c) + x] = ok ? v[gr * vr + c * 8 + x] : 0; }
  }
}
inline cwb_u32 cwb_q(const cwb_u16* q, long long qr, int row, int col, int L) {
  if (row >= L) return 0u; cwb_u32 r; std::memcpy(&r, q + (long long)row * qr + col, 4); return r;
}
