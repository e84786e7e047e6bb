// Host emulation of generated CUDA kernels, for checking the generator's logic on machines without a GPU:
// the generated source is compiled with g++ against a shim (one std::thread per CUDA thread, barriers for
// __syncthreads and warp shuffles) and compared with interpretKernel. Host libm, so not CUDA's ulp errors.
#pragma once
#include <dlfcn.h>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include "cuda_test_support.h"
#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cudatest {

inline const char* kShim = R"SHIM(
#include <math.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <barrier>
#include <atomic>
#include <vector>
#include <memory>
#include "tensor/half.h"
struct cwb_dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local cwb_dim3 threadIdx, blockIdx;
cwb_dim3 blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static
std::barrier<>* cwb_block_barrier;
struct CwbWarp { std::barrier<> bar{32}; unsigned char slot[32][16]; };
std::vector<std::unique_ptr<CwbWarp>> cwb_warps;
inline void __syncthreads() { cwb_block_barrier->arrive_and_wait(); }
std::atomic<int> cwb_and_count{0};
inline int __syncthreads_and(int predicate) {
  cwb_block_barrier->arrive_and_wait();  // the previous use's readers are done
  if (threadIdx.x == 0 && threadIdx.y == 0) cwb_and_count = 0;
  cwb_block_barrier->arrive_and_wait();
  if (!predicate) cwb_and_count.fetch_add(1);
  cwb_block_barrier->arrive_and_wait();
  return cwb_and_count.load() == 0;
}
template <class T> T __shfl_xor_sync(unsigned, T v, int o) {
  const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x;
  CwbWarp& w = *cwb_warps[tid / 32];
  const unsigned lane = tid % 32;
  std::memcpy(w.slot[lane], &v, sizeof(T));
  w.bar.arrive_and_wait();
  T r;
  std::memcpy(&r, w.slot[lane ^ o], sizeof(T));
  w.bar.arrive_and_wait();
  return r;
}
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline float __int_as_float(int u) { float f; std::memcpy(&f, &u, 4); return f; }
inline double __longlong_as_double(long long u) { double f; std::memcpy(&f, &u, 8); return f; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
)SHIM";

inline std::string replaceOnce(std::string s, const std::string& from, const std::string& to) {
    auto at = s.find(from);
    if (at == std::string::npos) throw std::runtime_error("emu: prelude line not found: " + from);
    return s.replace(at, from.size(), to);
}

inline std::string hostSource(const Kernel& kernel, const inductor::cuda::CudaKernelCode& code) {
    std::string s = code.source;
    s = replaceOnce(s, R"(__device__ __forceinline__ float cwb_load(cwb_half h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits)); return f; })",
                    "inline float cwb_load(cwb_half h) { return eng::tensor::halfBitsToFloat(h.bits); }");
    s = replaceOnce(s, R"(__device__ __forceinline__ cwb_half cwb_to_half(float f) { cwb_half h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f)); return h; })",
                    "inline cwb_half cwb_to_half(float f) { return cwb_half{eng::tensor::floatToHalfBits(f)}; }");
    s = replaceOnce(s, R"(__device__ __forceinline__ cwb_bf16 cwb_to_bf16(float f) { cwb_bf16 h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(f)); return h; })",
                    "inline cwb_bf16 cwb_to_bf16(float f) { return cwb_bf16{eng::tensor::floatToBFloat16Bits(f)}; }");
    std::string call = kernel.name + "(";
    size_t arg = 0;
    for (size_t b = 0; b < kernel.buffers.size(); ++b, ++arg)
        call += fmt::format("{}({}*)*(void**)args[{}]", arg ? ", " : "", inductor::cuda::detail::storageType(kernel.buffers[b].dtype), arg);
    for (size_t k = 0; k < kernel.symbols.size(); ++k, ++arg) call += fmt::format(", *(long long*)args[{}]", arg);
    // Kernels with reductions over their outer range take the workspace and the piece count, and have a finish entry.
    if (code.outerPartials > 0) call += fmt::format(", *(unsigned char**)args[{}], *(int*)args[{}]", arg, arg + 1);
    call += ")";
    std::string finishCall = call;
    finishCall.replace(0, kernel.name.size(), kernel.name + "_finish");
    auto entry = [](const std::string& name, const std::string& body) {
        return fmt::format(R"(
extern "C" void {}(void** args, unsigned gx, unsigned bx, unsigned by) {{
  blockDim = {{bx, by, 1}}; gridDim = {{gx, 1, 1}};
  const unsigned n = bx * by;
  for (unsigned b = 0; b < gx; ++b) {{
    std::barrier<> bar(n); cwb_block_barrier = &bar;
    cwb_warps.clear(); for (unsigned w = 0; w < (n + 31) / 32; ++w) cwb_warps.push_back(std::make_unique<CwbWarp>());
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < n; ++t) threads.emplace_back([=] {{ threadIdx = {{t % bx, t / bx, 1}}; blockIdx = {{b, 1, 1}}; {}; }});
    for (auto& th : threads) th.join();
  }}
}}
)", name, body);
    };
    return std::string(kShim) + s + entry("cwb_emu_run", call) + (code.outerPartials > 0 ? entry("cwb_emu_run_finish", finishCall) : "");
}

inline void emulateAndCompare(const Kernel& kernel, const SymbolValues& symbols, const RunOptions& options = {}) {
    SCOPED_TRACE(fmt::format("kernel {} symbols {}", kernel.name, symbols.empty() ? std::string("-") : fmt::format("s0={}", symbols.begin()->second)));
    static int counter = 0;
    inductor::cuda::CudaTuning tuning = options.tuning;
    if (options.offsetElements != 0) tuning.assumeAligned = false;  // offset buffers get this variant, as on a device
    const inductor::cuda::CudaKernelCode code = inductor::cuda::generateCudaKernel(kernel, tuning);
    const std::string base = fmt::format("{}/k{}_{}", std::getenv("CWB_EMU_DIR") ? std::getenv("CWB_EMU_DIR") : "/tmp", getpid(), counter++);
    { std::ofstream(base + ".cpp") << hostSource(kernel, code); }
    const std::string cmd = fmt::format("g++ -std=c++20 -O1 -ffp-contract=off -w -shared -fPIC -I{1} -o {0}.so {0}.cpp -lpthread", base, CWB_EMU_ENGINE_DIR);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    void* lib = dlopen((base + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_TRUE(lib) << dlerror();
    auto run = reinterpret_cast<void (*)(void**, unsigned, unsigned, unsigned)>(dlsym(lib, "cwb_emu_run"));
    std::vector<std::vector<unsigned char>> expected = randomBuffers(kernel, symbols, options), actual;
    std::vector<void*> hostPointers, emuPointers;
    for (auto& buffer : expected) hostPointers.push_back(buffer.data());
    for (size_t b = 0; b < kernel.buffers.size(); ++b) {
        const size_t item = tensor::itemSize(kernel.buffers[b].dtype);
        const size_t offset = static_cast<size_t>(options.offsetElements) * item;
        actual.emplace_back(expected[b].size() + offset + 16);
        std::memcpy(actual.back().data() + offset, expected[b].data(), expected[b].size());
        emuPointers.push_back(actual.back().data() + offset);
    }
    std::vector<long long> values;
    for (const std::string& s : kernel.symbols) values.push_back(symbols.at(s));
    std::vector<void*> args;
    for (void*& p : emuPointers) args.push_back(&p);
    for (long long& v : values) args.push_back(&v);
    int64_t items = 1;
    for (const Index& r : kernel.outerRanges) items *= evaluate(r, {}, symbols);
    const auto shape = code.launchShape(symbols, 1 + counter % 2);
    std::vector<unsigned char> workspace(code.outerPartials > 0 ? code.workspaceBytes(shape, symbols) + 16 : 0);
    unsigned char* workspacePointer = workspace.data();
    int pieces = static_cast<int>(code.pieces(shape));
    args.push_back(&workspacePointer);
    args.push_back(&pieces);
    if (items > 0 || code.outerPartials > 0) run(args.data(), shape.gridX, shape.blockX, shape.blockY);
    if (code.outerPartials > 0) {
        const auto finish = code.finishShape(symbols);
        reinterpret_cast<void (*)(void**, unsigned, unsigned, unsigned)>(dlsym(lib, "cwb_emu_run_finish"))(args.data(), finish.gridX, finish.blockX,
                                                                                                           finish.blockY);
    }
    interpretKernel(kernel, hostPointers, symbols);
    expectWrittenBuffersMatch(kernel, expected, std::vector<const void*>(emuPointers.begin(), emuPointers.end()), options.tolerance,
                              fmt::format("strategy {} {}.cpp", inductor::cuda::strategyName(code.strategy), base));
    dlclose(lib);
}

}  // namespace eng::inductor::cudatest
