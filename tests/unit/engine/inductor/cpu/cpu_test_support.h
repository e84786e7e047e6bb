// Test helpers for the CPU code generator: buffers sized from a kernel's own indices, random inputs with NaN/inf,
// running the interpreter and the JIT'd kernel on copies, and ulp-aware comparison of the outputs.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <stdexcept>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "inductor/cpu/cpu_codegen.h"
#include "inductor/ir/kernel_ir.h"
#include "tensor/half.h"

namespace eng::inductor::cpu::testing {

struct Buffers {
    std::vector<std::vector<unsigned char>> bytes;
    std::vector<void*> pointers() {
        std::vector<void*> out;
        for (auto& b : bytes) out.push_back(b.data());
        return out;
    }
};

inline void collectIndices(const ExprPtr& e, int buffer, std::vector<Index>& out) {
    if (!e) return;
    if (e->kind == Expr::Kind::Load && e->buffer == buffer) out.push_back(e->index);
    collectIndices(e->a, buffer, out);
    collectIndices(e->b, buffer, out);
    collectIndices(e->c, buffer, out);
}

/// Elements each buffer needs: 1 + the largest offset any load or store of it reaches (brute force; outer passes
/// are visited once per outer point, so an empty reduction range still sizes their outputs).
inline std::vector<int64_t> bufferElements(const Kernel& k, const SymbolValues& symbols) {
    std::vector<int64_t> out(k.buffers.size(), 1);
    for (const ComboPart& part : k.parts) {
        const std::vector<int64_t> partElements = bufferElements(part.kernel, symbols);
        for (size_t j = 0; j < part.buffers.size(); ++j) {
            int64_t& merged = out[static_cast<size_t>(part.buffers[j])];
            merged = std::max(merged, partElements[j]);
        }
    }
    std::vector<int64_t> outer, red;
    for (const Index& r : k.outerRanges) outer.push_back(evaluate(r, {}, symbols));
    for (const Index& r : k.reductionRanges) red.push_back(evaluate(r, {}, symbols));
    auto points = [](const std::vector<int64_t>& extents) {
        int64_t total = 1;
        for (int64_t e : extents) total *= e;
        return total;
    };
    auto decode = [](int64_t flat, const std::vector<int64_t>& extents, int64_t* vars) {
        for (size_t d = extents.size(); d-- > 0;) {
            vars[d] = flat % extents[d];
            flat /= extents[d];
        }
    };
    for (size_t buf = 0; buf < k.buffers.size(); ++buf) {
        std::vector<Index> outerIndices, innerIndices;
        for (const KernelPass& p : k.passes) {
            auto& target = p.overReductionRange ? innerIndices : outerIndices;
            for (const Store& s : p.stores) {
                if (s.buffer == static_cast<int>(buf)) target.push_back(s.index);
                collectIndices(s.value, static_cast<int>(buf), target);
            }
            for (const Reduction& r : p.reductions) collectIndices(r.value, static_cast<int>(buf), target);
        }
        // finalStores run once per point of the reduction range (outer variables 0).
        std::vector<Index> finalIndices;
        for (const Store& s : k.finalStores) {
            if (s.buffer == static_cast<int>(buf)) finalIndices.push_back(s.index);
            collectIndices(s.value, static_cast<int>(buf), finalIndices);
        }
        std::vector<int64_t> vars(outer.size() + red.size(), 0);
        for (int64_t r = 0; r < points(red) && !finalIndices.empty(); ++r) {
            decode(r, red, vars.data() + outer.size());
            for (const Index& ix : finalIndices) out[buf] = std::max(out[buf], evaluate(ix, vars, symbols) + 1);
        }
        for (int64_t o = 0; o < points(outer); ++o) {
            decode(o, outer, vars.data());
            for (size_t d = 0; d < red.size(); ++d) vars[outer.size() + d] = 0;
            for (const Index& ix : outerIndices) out[buf] = std::max(out[buf], evaluate(ix, vars, symbols) + 1);
            for (int64_t r = 0; r < points(red); ++r) {
                decode(r, red, vars.data() + outer.size());
                for (const Index& ix : innerIndices) out[buf] = std::max(out[buf], evaluate(ix, vars, symbols) + 1);
            }
        }
    }
    return out;
}

/// Random contents of `dtype`: floats mostly in [-scale, scale] with a sprinkle of NaN, +-inf, -0 and large values
/// (unless `special` is false); integers over a small signed range (never 0 when `nonZero`).
inline void fillRandom(void* data, DType dtype, int64_t n, std::mt19937& rng, double scale = 4, bool special = true, bool nonZero = false, bool large = true) {
    std::uniform_real_distribution<double> uni(-scale, scale);
    std::uniform_int_distribution<int> pick(0, 99);
    std::uniform_int_distribution<int64_t> ints(-100, 100);
    for (int64_t i = 0; i < n; ++i) {
        double f = uni(rng);
        if (special) {
            const int p = pick(rng);
            if (p == 0) f = std::numeric_limits<double>::quiet_NaN();
            else if (p == 1) f = std::numeric_limits<double>::infinity();
            else if (p == 2) f = -std::numeric_limits<double>::infinity();
            else if (p == 3) f = -0.0;
            else if (p == 4 && large) f = uni(rng) * 1e4;
        }
        int64_t v = ints(rng);
        if (nonZero && v == 0) v = 7;
        switch (dtype) {
            case DType::Float32: static_cast<float*>(data)[i] = static_cast<float>(f); break;
            case DType::Float64: static_cast<double*>(data)[i] = f; break;
            case DType::Float16: static_cast<tensor::Half*>(data)[i] = tensor::Half(static_cast<float>(f)); break;
            case DType::BFloat16: static_cast<tensor::BFloat16*>(data)[i] = tensor::BFloat16(static_cast<float>(f)); break;
            case DType::Bool: static_cast<uint8_t*>(data)[i] = v > 0; break;
            case DType::UInt8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(v + 100); break;
            case DType::Int8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(v); break;
            case DType::Int16: static_cast<int16_t*>(data)[i] = static_cast<int16_t>(v * 300); break;
            case DType::Int32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(v * 100000); break;
            case DType::Int64: static_cast<int64_t*>(data)[i] = v * 10000000000LL; break;
            case DType::Complex64:
            case DType::Complex128: throw std::logic_error("kernels have no complex buffers");
        }
    }
}

inline int64_t orderedBits(double v, DType d) {
    // Maps floats to integers whose difference counts representable values between them (ulps of the dtype).
    int64_t bits = 0;
    if (d == DType::Float64) bits = std::bit_cast<int64_t>(v);
    else if (d == DType::Float32) bits = std::bit_cast<int32_t>(static_cast<float>(v));
    else if (d == DType::Float16) bits = static_cast<int16_t>(tensor::Half(static_cast<float>(v)).bits);
    else bits = static_cast<int16_t>(tensor::BFloat16(static_cast<float>(v)).bits);
    const int64_t signBit = d == DType::Float64 ? INT64_MIN : d == DType::Float32 ? int64_t{INT32_MIN} : int64_t{INT16_MIN};
    return bits < 0 ? signBit - bits : bits;
}

inline double readFloat(const void* data, DType d, int64_t i) {
    switch (d) {
        case DType::Float32: return static_cast<const float*>(data)[i];
        case DType::Float64: return static_cast<const double*>(data)[i];
        case DType::Float16: return static_cast<float>(static_cast<const tensor::Half*>(data)[i]);
        default: return static_cast<float>(static_cast<const tensor::BFloat16*>(data)[i]);
    }
}

struct Tolerance {
    int64_t ulps = 0;       // float outputs: allowed ulps of the output dtype
    double absolute = 0;    // ... or this absolute difference (sums that cancel, results near zero)
};

/// Compares written buffers: integers and bools bit-exact, floats within `tol` (NaN matches NaN).
inline void expectSame(const Kernel& k, Buffers& expected, Buffers& actual, Tolerance tol, const std::string& what) {
    for (size_t b = 0; b < k.buffers.size(); ++b) {
        const DType d = k.buffers[b].dtype;
        const size_t item = tensor::itemSize(d);
        const int64_t n = static_cast<int64_t>(expected.bytes[b].size() / item);
        int failures = 0;
        for (int64_t i = 0; i < n && failures < 5; ++i) {
            if (!tensor::isFloating(d)) {
                if (std::memcmp(expected.bytes[b].data() + i * item, actual.bytes[b].data() + i * item, item) != 0) {
                    ADD_FAILURE() << what << ": buffer " << k.buffers[b].name << "[" << i << "] differs";
                    ++failures;
                }
                continue;
            }
            const double e = readFloat(expected.bytes[b].data(), d, i), a = readFloat(actual.bytes[b].data(), d, i);
            if (std::isnan(e) && std::isnan(a)) continue;
            if (e == a) continue;
            const int64_t ulps = std::llabs(orderedBits(e, d) - orderedBits(a, d));
            const bool finite = std::isfinite(e) && std::isfinite(a);
            // A 16-bit float is at most one rounding flip away: its ulp is already 2^-8 / 2^-11 relative.
            const int64_t allowed = tensor::isReducedFloat(d) ? std::min<int64_t>(tol.ulps, 1) : tol.ulps;
            if (finite && (ulps <= allowed || std::fabs(e - a) <= std::max(tol.absolute, 1.2e-38))) continue;
            ADD_FAILURE() << what << ": buffer " << k.buffers[b].name << "[" << i << "] expected " << e << " got " << a << " (" << ulps
                          << " ulps)";
            ++failures;
        }
    }
}

/// Fresh random buffers for `k` (outputs pre-filled too, so unwritten elements must stay equal).
inline Buffers randomBuffers(const Kernel& k, const SymbolValues& symbols, uint32_t seed, double scale = 4, bool special = true,
                             bool nonZeroInts = false, bool large = true) {
    std::mt19937 rng(seed);
    Buffers out;
    auto sizes = bufferElements(k, symbols);
    for (size_t b = 0; b < k.buffers.size(); ++b) {
        out.bytes.emplace_back(static_cast<size_t>(sizes[b]) * tensor::itemSize(k.buffers[b].dtype));
        fillRandom(out.bytes.back().data(), k.buffers[b].dtype, sizes[b], rng, scale, special, nonZeroInts, large);
    }
    return out;
}

inline std::vector<int64_t> symbolArray(const Kernel& k, const SymbolValues& symbols) {
    std::vector<int64_t> out;
    for (const std::string& s : k.symbols) out.push_back(symbols.at(s));
    return out;
}

/// Runs the interpreter and kernel `index` of `module` on identical copies of `inputs`; the compiled kernel is
/// called over `pieces` consecutive sub-ranges of the outer range.
inline void checkAgainstInterpreter(const Kernel& k, const CpuKernelModule& module, size_t index, const SymbolValues& symbols,
                                    const Buffers& inputs, Tolerance tol, const std::string& what, int pieces = 1) {
    Buffers expected = inputs, actual = inputs;
    auto ep = expected.pointers();
    interpretKernel(k, ep, symbols);
    auto ap = actual.pointers();
    auto syms = symbolArray(k, symbols);
    const int64_t total = outerPointCount(k, symbols);
    for (int p = 0; p < pieces; ++p) {
        const int64_t begin = total * p / pieces, end = total * (p + 1) / pieces;
        module.entry(index)(ap.data(), syms.data(), begin, end);
    }
    expectSame(k, expected, actual, tol, what + " (" + std::to_string(pieces) + " pieces)");
}

}  // namespace eng::inductor::cpu::testing
