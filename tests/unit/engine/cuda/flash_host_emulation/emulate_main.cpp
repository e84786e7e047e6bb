// One flash forward (its shape set by -D at build time) on host threads against a double-precision reference:
// usage emulate L S scale; prints the worst errors and exits non-zero past the GPU test's tolerances.
#include "shim.h"

#include "kernel.inc"
#include <cstdio>
#include <random>
int main(int argc, char** argv) {
  const int L = atoi(argv[1]), S = atoi(argv[2]); const double scale = atof(argv[3]); const int H = 2;
  std::mt19937 rng(7); std::normal_distribution<float> nd;
  std::vector<cwb_u16> q(H * L * CWB_D), k(H * S * CWB_D), v(H * S * CWB_D), o(H * L * CWB_D, 0x7fc0);
  for (auto& x : q) x = f2bits(nd(rng)); for (auto& x : k) x = f2bits(nd(rng)); for (auto& x : v) x = f2bits(nd(rng));
  std::vector<float> lse(H * L, -1);
  gridDim.x = (L + FBM - 1) / FBM; gridDim.y = H; gridDim.z = 1; blockDim.x = FWARPS * 32;
  const size_t smemBytes = 2 * STAGES * BN * CWB_D * 2;
  for (unsigned bz = 0; bz < gridDim.z; ++bz) for (unsigned by = 0; by < gridDim.y; ++by) for (unsigned bx = 0; bx < gridDim.x; ++bx) {
    std::vector<unsigned char> smem(smemBytes, 0xff);
    std::barrier<> block(FWARPS * 32);
    std::vector<std::unique_ptr<Warp>> warps; for (int w = 0; w < FWARPS; ++w) warps.emplace_back(new Warp);
    std::vector<std::thread> ts;
    for (int t = 0; t < FWARPS * 32; ++t) ts.emplace_back([&, t] {
      threadIdx.x = t; blockIdx.x = bx; blockIdx.y = by; blockIdx.z = bz; tl_smem = smem.data(); tl_warp = warps[t / 32].get(); tl_block = &block;
      float sl2 = (float)(scale * 1.4426950408889634);
      CWB_ENTRY(q.data(), k.data(), v.data(), o.data(), lse.data(), L, S, sl2, 0, (long long)L * CWB_D, CWB_D, 0, (long long)S * CWB_D, CWB_D,
                0, (long long)S * CWB_D, CWB_D, 0, (long long)L * CWB_D, CWB_D);
    });
    for (auto& t : ts) t.join();
  }
  double worst = 0, worstLse = 0;
  for (int h = 0; h < H; ++h) for (int i = 0; i < L; ++i) {
    int keys = CWB_CAUSAL ? std::min(i + 1, S) : S; std::vector<double> sc(keys); double top = -1e300;
    for (int j = 0; j < keys; ++j) { double d = 0; for (int c = 0; c < CWB_D; ++c) d += (double)bits2f(q[(h * L + i) * CWB_D + c]) * bits2f(k[(h * S + j) * CWB_D + c]); sc[j] = d * scale; top = std::max(top, sc[j]); }
    double sum = 0; std::vector<double> want(CWB_D, 0);
    for (int j = 0; j < keys; ++j) { double p = std::exp(sc[j] - top); sum += p; for (int c = 0; c < CWB_D; ++c) want[c] += p * bits2f(v[(h * S + j) * CWB_D + c]); }
    for (int c = 0; c < CWB_D; ++c) { double a = bits2f(o[(h * L + i) * CWB_D + c]), b = want[c] / sum; if (!std::isfinite(a)) worst = 1e9; worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b))); }
    double wl = top + std::log(sum); worstLse = std::max(worstLse, std::abs(lse[h * L + i] - wl) / (1 + std::abs(wl)));
    if (!std::isfinite(lse[h * L + i])) worstLse = 1e9;
  }
#ifdef CWB_F16
  const double tolerance = 2e-3;
#else
  const double tolerance = 1.2e-2;
#endif
  const bool ok = worst < tolerance && worstLse < 1e-3;
  printf("L=%d S=%d scale=%g worst %.3g lse %.3g %s\n", L, S, scale, worst, worstLse, ok ? "OK" : "FAIL");
  return ok ? 0 : 1;
}
