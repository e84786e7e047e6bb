// libmvec's float32 sin and cos for the eager loops: loaded once with dlopen (cwb does not link libmvec; the
// compiled kernels' JIT loads it the same way), called 4, 8 or 16 lanes at a time by the SIMD level in use.
#include "tensor/vector_libm.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "tensor/simd_dispatch.h"
#include "tensor/worker_pool.h"

namespace eng::tensor::vectorlibm {

namespace {

// One function's entry points in the x86-64 vector ABI: SSE (b, 4 lanes), AVX2 (d, 8), AVX-512 (e, 16).
struct Variants {
    void* sse = nullptr;
    void* avx2 = nullptr;
    void* avx512 = nullptr;
    bool complete() const { return sse && avx2 && avx512; }
};

struct Library {
    Variants sin, cos;
};

const Library& library() {
    static const Library loaded = [] {
        Library lib;
#if defined(__x86_64__) && defined(__GNUC__)
        void* handle = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle) return lib;
        auto variants = [&](const std::string& name) {
            Variants v{dlsym(handle, ("_ZGVbN4v_" + name).c_str()), dlsym(handle, ("_ZGVdN8v_" + name).c_str()),
                       dlsym(handle, ("_ZGVeN16v_" + name).c_str())};
            return v.complete() ? v : Variants{};
        };
        lib.sin = variants("sinf");
        lib.cos = variants("cosf");
#endif
        return lib;
    }();
    return loaded;
}

const Variants* variantsOf(UnaryOp op) {
    const Library& lib = library();
    if (op == UnaryOp::Sin && lib.sin.complete()) return &lib.sin;
    if (op == UnaryOp::Cos && lib.cos.complete()) return &lib.cos;
    return nullptr;
}

#if defined(__x86_64__) && defined(__GNUC__)
// Whole vectors from memory, then the rest padded with zeros in a buffer: each element goes through the vector
// function whatever its position. (The vector types appear only inside functions compiled for them.)
#define CWB_VECTOR_LOOP(name, isa, Vector, lanes, load, store)                               \
    [[gnu::target(isa)]] void name(void* entry, const float* in, float* out, int64_t n) { \
        const auto f = reinterpret_cast<Vector (*)(Vector)>(entry);                           \
        int64_t i = 0;                                                                        \
        for (; i + lanes <= n; i += lanes) store(out + i, f(load(in + i)));                   \
        if (i < n) {                                                                          \
            float buffer[lanes] = {};                                                         \
            std::memcpy(buffer, in + i, static_cast<size_t>(n - i) * sizeof(float));          \
            store(buffer, f(load(buffer)));                                                   \
            std::memcpy(out + i, buffer, static_cast<size_t>(n - i) * sizeof(float));         \
        }                                                                                     \
    }
CWB_VECTOR_LOOP(lanes4, "sse2", __m128, 4, _mm_loadu_ps, _mm_storeu_ps)
CWB_VECTOR_LOOP(lanes8, "avx2", __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps)
CWB_VECTOR_LOOP(lanes16, "avx512f", __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps)
#undef CWB_VECTOR_LOOP
#endif

}  // namespace

bool covers(UnaryOp op) { return variantsOf(op) != nullptr; }

void run(UnaryOp op, const float* in, float* out, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
    const Variants& v = *variantsOf(op);
    const SimdLevel level = simdLevel();
    auto range = [&](int64_t begin, int64_t end) {
        switch (level) {
            case SimdLevel::Avx512: return lanes16(v.avx512, in + begin, out + begin, end - begin);
            case SimdLevel::Avx2: return lanes8(v.avx2, in + begin, out + begin, end - begin);
            case SimdLevel::Baseline: return lanes4(v.sse, in + begin, out + begin, end - begin);
        }
    };
    parallelRanges(n, kEagerGrain, range, 16, elementwiseRangesPerThread());
#else
    (void)op, (void)in, (void)out, (void)n;
#endif
}

}  // namespace eng::tensor::vectorlibm
