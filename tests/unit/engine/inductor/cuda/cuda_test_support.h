// Test-only helpers: buffer sizes from a kernel's indices, random inputs per dtype (NaN/inf, ties), ulp-aware
// comparison, and one call that runs a kernel on the GPU and on interpretKernel and compares every output.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "inductor/cuda/cuda_kernel_codegen.h"
#include "tensor/half.h"

namespace eng::inductor::cudatest {

/// Elements each buffer needs: one past the largest index any load or store reaches.
inline std::vector<int64_t> bufferExtents(const Kernel& kernel, const SymbolValues& symbols) {
    if (kernel.isCombo()) {  // each part's extents, in the combo's buffers
        std::vector<int64_t> extents(kernel.buffers.size(), 0);
        for (const ComboPart& part : kernel.parts) {
            const std::vector<int64_t> partExtents = bufferExtents(part.kernel, symbols);
            for (size_t j = 0; j < part.buffers.size(); ++j)
                extents[static_cast<size_t>(part.buffers[j])] = std::max(extents[static_cast<size_t>(part.buffers[j])], partExtents[j]);
        }
        return extents;
    }
    std::vector<std::pair<int, Index>> outerAccesses, reductionAccesses;
    std::function<void(const ExprPtr&, std::vector<std::pair<int, Index>>&)> collect = [&](const ExprPtr& e, auto& out) {
        if (!e) return;
        if (e->kind == Expr::Kind::Load) out.emplace_back(e->buffer, e->index);
        collect(e->a, out);
        collect(e->b, out);
        collect(e->c, out);
    };
    for (const KernelPass& pass : kernel.passes) {
        auto& out = pass.overReductionRange ? reductionAccesses : outerAccesses;
        for (const Reduction& r : pass.reductions) collect(r.value, out);
        for (const Store& s : pass.stores) {
            out.emplace_back(s.buffer, s.index);
            collect(s.value, out);
        }
    }
    for (const Store& s : kernel.finalStores) {  // over the reduction range only
        reductionAccesses.emplace_back(s.buffer, s.index);
        collect(s.value, reductionAccesses);
    }
    std::vector<int64_t> extents(kernel.buffers.size(), 0);
    const size_t outers = kernel.outerRanges.size(), reduces = kernel.reductionRanges.size();
    std::vector<int64_t> vars(outers + reduces, 0), outerSize, reduceSize;
    int64_t outerTotal = 1, reduceTotal = 1;
    for (const Index& r : kernel.outerRanges) outerTotal *= outerSize.emplace_back(evaluate(r, {}, symbols));
    for (const Index& r : kernel.reductionRanges) reduceTotal *= reduceSize.emplace_back(evaluate(r, {}, symbols));
    auto touch = [&](const std::vector<std::pair<int, Index>>& accesses) {
        for (const auto& [b, index] : accesses) {
            auto& extent = extents[static_cast<size_t>(b)];
            extent = std::max(extent, evaluate(index, vars, symbols) + 1);
        }
    };
    for (int64_t o = 0; o < outerTotal; ++o) {
        int64_t rest = o;
        for (size_t d = outers; d-- > 0;) {
            vars[d] = rest % outerSize[d];
            rest /= outerSize[d];
        }
        touch(outerAccesses);
        for (int64_t r = 0; r < reduceTotal; ++r) {
            rest = r;
            for (size_t d = reduces; d-- > 0;) {
                vars[outers + d] = rest % reduceSize[d];
                rest /= reduceSize[d];
            }
            touch(reductionAccesses);
        }
    }
    return extents;
}

struct FillOptions {
    bool specials = true;  // NaN, +-inf, -0.0 among floats; large magnitudes among int32/int64
    bool ties = false;     // floats from a coarse grid, so that extremes repeat (argmax's first-occurrence rule)
};

inline void fillRandom(void* data, DType dtype, int64_t count, std::mt19937& rng, const FillOptions& options) {
    std::uniform_real_distribution<double> uniform(-3, 3);
    std::uniform_int_distribution<int> small(-50, 50), special(0, 31), grid(-4, 4);
    auto floatValue = [&]() -> double {
        if (options.specials && special(rng) == 0) {
            const double choices[] = {std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY, -0.0, 0.0};
            return choices[rng() % 5];
        }
        return options.ties ? grid(rng) * 0.5 : uniform(rng);
    };
    auto intValue = [&](int64_t big) -> int64_t {
        if (options.specials && big > 0 && special(rng) == 0) return (rng() & 1 ? 1 : -1) * (big - static_cast<int64_t>(rng() % 1000));
        return small(rng);
    };
    for (int64_t i = 0; i < count; ++i) {
        switch (dtype) {
            case DType::Bool: static_cast<bool*>(data)[i] = (rng() & 1) != 0; break;
            case DType::UInt8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(rng() & 255); break;
            case DType::Int8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(intValue(0)); break;
            case DType::Int16: static_cast<int16_t*>(data)[i] = static_cast<int16_t>(intValue(0)); break;
            case DType::Int32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(intValue(2000000000)); break;
            case DType::Int64: static_cast<int64_t*>(data)[i] = intValue(int64_t{1} << 62); break;
            case DType::Float16: static_cast<tensor::Half*>(data)[i] = tensor::Half(static_cast<float>(floatValue())); break;
            case DType::BFloat16: static_cast<tensor::BFloat16*>(data)[i] = tensor::BFloat16(static_cast<float>(floatValue())); break;
            case DType::Float32: static_cast<float*>(data)[i] = static_cast<float>(floatValue()); break;
            case DType::Float64: static_cast<double*>(data)[i] = floatValue(); break;
            case DType::Complex64:
            case DType::Complex128: throw std::logic_error("kernels have no complex buffers");
        }
    }
}

struct Tolerance {
    int ulps = 8;           // float32/float64 results (CUDA's libm is within 1-4 ulp, the interpreter within 0.5)
    int ulps16 = 1;         // float16/bfloat16 results: a float result a few ulp off may round the other way
    double relative = 0;    // |a - b| <= relative * |expected| + absolute also passes (reassociated sums)
    double absolute = 0;
};

// Distance in representable values between two finite floats of the same sign class.
template <typename Bits>
inline int64_t orderedDistance(Bits a, Bits b, Bits signBit) {
    auto ordered = [&](Bits v) -> int64_t { return (v & signBit) ? -static_cast<int64_t>(v & ~signBit) : static_cast<int64_t>(v); };
    const int64_t d = ordered(a) - ordered(b);
    return d < 0 ? -d : d;
}

inline bool closeEnough(double expected, double actual, int64_t ulpDistance, int maxUlps, const Tolerance& t) {
    if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
    if (expected == actual) return true;
    if (std::isinf(expected) || std::isinf(actual)) return false;
    if (ulpDistance <= maxUlps) return true;
    return std::fabs(expected - actual) <= t.relative * std::fabs(expected) + t.absolute;
}

/// Compares count elements of dtype: integers and bools bit for bit, floats within the tolerance.
inline ::testing::AssertionResult compareBuffers(const std::string& name, DType dtype, const void* expected, const void* actual, int64_t count,
                                                 const Tolerance& t) {
    int mismatches = 0;
    std::string report;
    for (int64_t i = 0; i < count; ++i) {
        bool ok = true;
        std::string e, a;
        switch (dtype) {
            case DType::Float32: {
                const float x = static_cast<const float*>(expected)[i], y = static_cast<const float*>(actual)[i];
                ok = closeEnough(x, y, orderedDistance(std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(y), 0x80000000u), t.ulps, t);
                e = fmt::format("{}", x), a = fmt::format("{}", y);
                break;
            }
            case DType::Float64: {
                const double x = static_cast<const double*>(expected)[i], y = static_cast<const double*>(actual)[i];
                ok = closeEnough(x, y, orderedDistance(std::bit_cast<uint64_t>(x), std::bit_cast<uint64_t>(y), uint64_t{1} << 63), t.ulps, t);
                e = fmt::format("{}", x), a = fmt::format("{}", y);
                break;
            }
            case DType::Float16:
            case DType::BFloat16: {
                const uint16_t x = static_cast<const uint16_t*>(expected)[i], y = static_cast<const uint16_t*>(actual)[i];
                const bool half = dtype == DType::Float16;
                const float fx = half ? tensor::halfBitsToFloat(x) : tensor::bfloat16BitsToFloat(x);
                const float fy = half ? tensor::halfBitsToFloat(y) : tensor::bfloat16BitsToFloat(y);
                ok = closeEnough(fx, fy, orderedDistance<uint16_t>(x, y, 0x8000u), t.ulps16, t);
                e = fmt::format("{}", fx), a = fmt::format("{}", fy);
                break;
            }
            default: {
                const size_t size = tensor::itemSize(dtype);
                const auto* px = static_cast<const unsigned char*>(expected) + i * static_cast<int64_t>(size);
                const auto* py = static_cast<const unsigned char*>(actual) + i * static_cast<int64_t>(size);
                ok = std::memcmp(px, py, size) == 0;
                int64_t vx = 0, vy = 0;
                tensor::dispatchDType(dtype, [&]<typename T>() {
                    if constexpr (std::is_integral_v<T>) {
                        T tx, ty;
                        std::memcpy(&tx, px, sizeof(T));
                        std::memcpy(&ty, py, sizeof(T));
                        vx = static_cast<int64_t>(tx), vy = static_cast<int64_t>(ty);
                    }
                });
                e = std::to_string(vx), a = std::to_string(vy);
            }
        }
        if (!ok && ++mismatches <= 8) report += fmt::format("\n  {}[{}]: expected {} got {}", name, i, e, a);
    }
    if (mismatches == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << mismatches << " of " << count << " elements of " << name << " differ:" << report;
}

struct RunOptions {
    inductor::cuda::CudaTuning tuning;
    Tolerance tolerance;
    FillOptions fill;
    int offsetElements = 0;  // pass every buffer this many elements past an aligned address (scalar fallback)
    uint32_t seed = 1;
};

/// One host buffer per kernel buffer (at least one element each), filled from options' seed and fill rules.
inline std::vector<std::vector<unsigned char>> randomBuffers(const Kernel& kernel, const SymbolValues& symbols, const RunOptions& options) {
    const std::vector<int64_t> extents = bufferExtents(kernel, symbols);
    std::mt19937 rng(options.seed);
    std::vector<std::vector<unsigned char>> buffers;
    for (size_t b = 0; b < kernel.buffers.size(); ++b) {
        const DType dtype = kernel.buffers[b].dtype;
        const auto count = std::max<int64_t>(extents[b], 1);
        buffers.emplace_back(static_cast<size_t>(count) * tensor::itemSize(dtype));
        fillRandom(buffers.back().data(), dtype, count, rng, options.fill);
    }
    return buffers;
}

/// Every buffer the kernel writes, as the generated code left it (`actual`), equals the interpreter's (`expected`).
inline void expectWrittenBuffersMatch(const Kernel& kernel, const std::vector<std::vector<unsigned char>>& expected,
                                      const std::vector<const void*>& actual, const Tolerance& tolerance, const std::string& context) {
    for (size_t b = 0; b < kernel.buffers.size(); ++b) {
        if (!kernel.buffers[b].written) continue;
        const DType dtype = kernel.buffers[b].dtype;
        EXPECT_TRUE(compareBuffers(kernel.buffers[b].name, dtype, expected[b].data(), actual[b],
                                   static_cast<int64_t>(expected[b].size() / tensor::itemSize(dtype)), tolerance))
            << context;
    }
}

/// Generates, compiles for the device, runs, and compares every written buffer with interpretKernel's.
inline void runAndCompare(const Kernel& kernel, const SymbolValues& symbols, const RunOptions& options = {}) {
    SCOPED_TRACE(fmt::format("kernel {} symbols {}", kernel.name, symbols.empty() ? std::string("-") : fmt::format("s0={}", symbols.begin()->second)));
    auto& device = eng::cuda::DeviceContext::get(0);
    std::vector<std::vector<unsigned char>> expected = randomBuffers(kernel, symbols, options), actual = expected;
    std::vector<void*> hostPointers, devicePointers, allocations;
    for (size_t b = 0; b < kernel.buffers.size(); ++b) {
        hostPointers.push_back(expected[b].data());
        const size_t offset = static_cast<size_t>(options.offsetElements) * tensor::itemSize(kernel.buffers[b].dtype);
        void* block = device.allocate(actual[b].size() + offset + 16);
        allocations.push_back(block);
        devicePointers.push_back(static_cast<unsigned char*>(block) + offset);
        device.copyHostToDevice(devicePointers.back(), actual[b].data(), actual[b].size());
    }
    // Offset buffers get the kernel generated without the alignment assumption, as the launcher does.
    inductor::cuda::CudaTuning tuning = options.tuning;
    if (!inductor::cuda::buffersAligned(devicePointers)) tuning.assumeAligned = false;
    const inductor::cuda::CudaKernelCode code = inductor::cuda::generateCudaKernel(kernel, tuning);
    // CWB_CUDA_CODEGEN=llvm runs the kernels the LLVM NVPTX path covers through it.
    auto compiled = inductor::cuda::compileCudaKernel(kernel, code, device.arch(), inductor::cuda::cudaCodegenFromEnvironment());
    inductor::cuda::launchCudaKernel(device, *compiled, code, devicePointers, symbols);
    interpretKernel(kernel, hostPointers, symbols);
    std::vector<const void*> results;
    for (size_t b = 0; b < kernel.buffers.size(); ++b) {
        device.copyDeviceToHost(actual[b].data(), devicePointers[b], actual[b].size());
        results.push_back(actual[b].data());
    }
    expectWrittenBuffersMatch(kernel, expected, results, options.tolerance,
                              fmt::format("strategy {}, {}", inductor::cuda::strategyName(code.strategy),
                                          code.launchText(symbols, device.multiprocessorCount())));
    for (void* block : allocations) device.deallocate(block);
}

}  // namespace eng::inductor::cudatest
