// CPU matrix products through oneDNN's matmul primitive: libdnnl.so.2 (Debian's libdnnl2, 40 MB) is opened with
// dlopen on the first product, as the CUDA libraries are, so a cwb command that multiplies no CPU matrices never
// loads it, and so that its OpenMP runtime's settings can be chosen before that runtime starts (below).
#include "tensor/onednn_matmul.h"

#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>

#include "tensor/conversion.h"
#include "tensor/worker_pool.h"

namespace eng::tensor::onednn {

namespace {

// The C API's entry points used here, looked up by name in the library (its header supplies the types only): one
// list, expanded into the table's members and into their lookups.
#define CWB_DNNL_FUNCTIONS(X)                                                                                   \
    X(dnnl_engine_create) X(dnnl_stream_create) X(dnnl_stream_wait) X(dnnl_memory_desc_init_by_strides)        \
    X(dnnl_memory_desc_get_size) X(dnnl_matmul_desc_init) X(dnnl_primitive_attr_create)                        \
    X(dnnl_primitive_attr_destroy) X(dnnl_primitive_attr_set_scratchpad_mode) X(dnnl_primitive_desc_create)    \
    X(dnnl_primitive_desc_destroy) X(dnnl_primitive_desc_query) X(dnnl_primitive_desc_query_md)                \
    X(dnnl_primitive_create) X(dnnl_primitive_destroy) X(dnnl_primitive_execute) X(dnnl_memory_create)         \
    X(dnnl_memory_destroy) X(dnnl_post_ops_create) X(dnnl_post_ops_destroy) X(dnnl_post_ops_append_eltwise)       \
    X(dnnl_primitive_attr_set_post_ops)

struct Api {
#define CWB_DNNL_MEMBER(name) decltype(&::name) name = nullptr;
    CWB_DNNL_FUNCTIONS(CWB_DNNL_MEMBER)
#undef CWB_DNNL_MEMBER
    int (*omp_get_max_threads)() = nullptr;
    void (*omp_set_num_threads)(int) = nullptr;
    dnnl_engine_t engine = nullptr;
};

// Loads the library once; null where it is missing (or incomplete), or CWB_ONEDNN=0.
const Api* api() {
    static const Api* loaded = []() -> const Api* {
        if (const char* setting = std::getenv("CWB_ONEDNN"); setting && std::string_view(setting) == "0") return nullptr;
        // libgomp reads its settings once, when it loads. By default its threads spin for about 300,000 pauses
        // (milliseconds on a Xeon) after each parallel region before sleeping; here every other CPU kernel runs
        // on cwb's own worker pool right after a product, whose threads would share the cores with those spinning
        // ones. A short spin keeps back-to-back products' threads awake and leaves the cores to the pool soon
        // after; a user's OMP_WAIT_POLICY or GOMP_SPINCOUNT, or a libgomp already loaded, is left alone.
        if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT") && !dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD))
            setenv("GOMP_SPINCOUNT", "1000", 0);
        void* library = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!library) return nullptr;
        auto* table = new Api();
        bool complete = true;
        auto bind = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
            complete = complete && fn != nullptr;
        };
#define CWB_DNNL_BIND(name) bind(table->name, #name);
        CWB_DNNL_FUNCTIONS(CWB_DNNL_BIND)
        CWB_DNNL_BIND(omp_get_max_threads)  // libgomp, which libdnnl needs, is searched through the handle too
        CWB_DNNL_BIND(omp_set_num_threads)
#undef CWB_DNNL_BIND
        if (!complete || table->dnnl_engine_create(&table->engine, dnnl_cpu, 0) != dnnl_success) {
            delete table;
            return nullptr;
        }
        return table;
    }();
    return loaded;
}

// A primitive for one dtype, shape and layout, with the scratchpad bytes it asks for (given by the caller, so that
// concurrent calls of one primitive from several threads never share one).
struct Primitive {
    dnnl_primitive_t handle = nullptr;
    dnnl_memory_desc_t src{}, weights{}, bias{}, dst{}, scratchpad{};
    size_t scratchpadBytes = 0;
    ~Primitive() {
        if (handle) api()->dnnl_primitive_destroy(handle);
    }
};

// dtype, batch, m, k, n, a's then b's strides (batch, row, column; a batch stride of 0 broadcasts), the thread
// count (oneDNN sizes a primitive's work split and scratchpad for the OpenMP team it is created under), whether
// a bias row is added, and the activation applied after it (LinearActivation).
using Key = std::array<int64_t, 14>;
struct KeyHash {
    size_t operator()(const Key& key) const {
        size_t h = 0;
        for (int64_t v : key) h = h * 1000003u ^ std::hash<int64_t>()(v);
        return h;
    }
};

dnnl_data_type_t dnnlType(DType dtype) { return dtype == DType::BFloat16 ? dnnl_bf16 : dnnl_f32; }

// oneDNN's eltwise algorithm of an activation (alpha 0: relu's negative slope; gelu ignores alpha and beta).
dnnl_alg_kind_t eltwiseOf(LinearActivation activation) {
    switch (activation) {
        case LinearActivation::Relu: return dnnl_eltwise_relu;
        case LinearActivation::GeluTanh: return dnnl_eltwise_gelu_tanh;
        case LinearActivation::GeluErf: return dnnl_eltwise_gelu_erf;
        case LinearActivation::None: break;
    }
    return dnnl_alg_kind_undef;
}

// The primitive for `key`, or null where oneDNN offers only its reference loops (orders of magnitude slower than
// BLAS) or nothing at all. The answer is kept either way.
std::shared_ptr<const Primitive> primitiveFor(const Key& key) {
    static std::mutex mutex;
    // Never destroyed: no primitive is torn down at exit, when libdnnl and its OpenMP threads may be finishing.
    static auto& cache = *new std::unordered_map<Key, std::shared_ptr<const Primitive>, KeyHash>();
    std::lock_guard lock(mutex);
    if (auto found = cache.find(key); found != cache.end()) return found->second;
    if (cache.size() >= 512) cache.clear();  // shapes that keep changing: primitives in use stay alive by reference
    const Api& dnnl = *api();
    const auto dt = dnnlType(static_cast<DType>(key[0]));
    const int64_t batch = key[1], m = key[2], k = key[3], n = key[4];
    const bool withBias = key[12] != 0;
    const auto activation = static_cast<LinearActivation>(key[13]);
    const int rank = batch == 1 ? 2 : 3;
    // A batch stride of 0 in the key stands for a broadcast operand: a batch of 1.
    auto describe = [&](dnnl_memory_desc_t& md, int64_t rows, int64_t cols, int64_t sBatch, int64_t sRow, int64_t sCol) {
        dnnl_dims_t dims{}, strides{};
        if (rank == 3) {
            dims[0] = sBatch == 0 ? 1 : batch, dims[1] = rows, dims[2] = cols;
            strides[0] = sBatch, strides[1] = sRow, strides[2] = sCol;
        } else {
            dims[0] = rows, dims[1] = cols;
            strides[0] = sRow, strides[1] = sCol;
        }
        return dnnl.dnnl_memory_desc_init_by_strides(&md, rank, dims, dt, strides) == dnnl_success;
    };
    auto made = std::make_shared<Primitive>();
    std::shared_ptr<const Primitive> result;
    dnnl_matmul_desc_t op{};
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_post_ops_t postOps = nullptr;
    dnnl_primitive_desc_t pd = nullptr;
    // The activation: one eltwise post-op, applied to the float32 sum of product and bias before the rounding.
    auto withPostOps = [&] {
        if (activation == LinearActivation::None) return true;
        return dnnl.dnnl_post_ops_create(&postOps) == dnnl_success &&
               dnnl.dnnl_post_ops_append_eltwise(postOps, 1.0f, eltwiseOf(activation), 0.0f, 0.0f) == dnnl_success &&
               dnnl.dnnl_primitive_attr_set_post_ops(attr, postOps) == dnnl_success;
    };
    if (describe(made->src, m, k, key[5], key[6], key[7]) && describe(made->weights, k, n, key[8], key[9], key[10]) &&
        describe(made->dst, m, n, m * n, n, 1) &&
        // The bias: one row of n, broadcast over the rows (and the batch), in the output's dtype.
        (!withBias || describe(made->bias, 1, n, 0, n, 1)) &&
        dnnl.dnnl_matmul_desc_init(&op, &made->src, &made->weights, withBias ? &made->bias : nullptr, &made->dst) == dnnl_success &&
        dnnl.dnnl_primitive_attr_create(&attr) == dnnl_success &&
        dnnl.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success && withPostOps() &&
        dnnl.dnnl_primitive_desc_create(&pd, &op, attr, dnnl.engine, nullptr) == dnnl_success) {
        const char* impl = nullptr;
        dnnl.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, static_cast<void*>(&impl));
        if (impl && std::string_view(impl).substr(0, 3) != "ref") {
            if (const dnnl_memory_desc_t* scratch = dnnl.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)) made->scratchpad = *scratch;
            made->scratchpadBytes = dnnl.dnnl_memory_desc_get_size(&made->scratchpad);
            if (dnnl.dnnl_primitive_create(&made->handle, pd) == dnnl_success) result = made;
        }
    }
    if (pd) dnnl.dnnl_primitive_desc_destroy(pd);
    if (attr) dnnl.dnnl_primitive_attr_destroy(attr);
    if (postOps) dnnl.dnnl_post_ops_destroy(postOps);
    cache.emplace(key, result);
    return result;
}

// Per thread: the stream calls are made on, and the scratchpad, grown to the largest a primitive asked for.
struct ThreadState {
    dnnl_stream_t stream = nullptr;
    std::unique_ptr<std::byte[], void (*)(std::byte*)> scratch{nullptr, [](std::byte* p) { ::operator delete[](p, std::align_val_t(64)); }};
    size_t scratchBytes = 0;
    std::byte* scratchpad(size_t bytes) {
        if (bytes > scratchBytes) {
            scratch.reset(static_cast<std::byte*>(::operator new[](bytes, std::align_val_t(64))));
            scratchBytes = bytes;
        }
        return scratch.get();
    }
};

// A 2-D view oneDNN reads in place: rows or columns contiguous, the other stride at least the extent (BLAS's rule).
bool plainLayout(int64_t rows, int64_t cols, int64_t sRow, int64_t sCol) {
    return (sCol == 1 && (rows == 1 || sRow >= cols)) || (sRow == 1 && (cols == 1 || sCol >= rows));
}

// The strides given for a matrix operand: one-element dims get the stride a contiguous layout would have (they
// carry no meaning), so that such shapes share a primitive and oneDNN sees an ordinary layout.
std::array<int64_t, 2> matrixStrides(int64_t rows, int64_t cols, int64_t sRow, int64_t sCol) {
    if (rows == 1 && cols == 1) return {1, 1};
    if (rows == 1) return sCol == 1 ? std::array<int64_t, 2>{cols, 1} : std::array<int64_t, 2>{1, sCol};
    if (cols == 1) return sRow == 1 ? std::array<int64_t, 2>{1, rows} : std::array<int64_t, 2>{sRow, 1};
    return {sRow, sCol};
}

}  // namespace

bool available() { return api() != nullptr; }

bool matmulInto(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, LinearActivation activation) {
    const Api* dnnl = api();
    const DType dtype = out.dtype();
    if (!dnnl || (dtype != DType::Float32 && dtype != DType::BFloat16) || a.dtype() != dtype || b.dtype() != dtype || !out.isContiguous())
        return false;
    const int64_t batch = a.dim() == 3 ? a.sizes()[0] : 1;
    const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
    if (bias.defined() && (bias.dtype() != dtype || bias.dim() != 1 || bias.size(0) != n)) return false;
    const Tensor biasRow = bias.defined() ? contiguous(bias) : Tensor();
    // A layout with no contiguous rows or columns (a gathered view): copied to contiguous first, as for BLAS.
    auto readable = [](const Tensor& t) { return plainLayout(t.size(-2), t.size(-1), t.stride(-2), t.stride(-1)) ? t : contiguous(t); };
    const Tensor left = readable(a), right = readable(b);
    // A batch stride of 0 (an operand expanded over the batch) is oneDNN's broadcast batch of 1; both at once is not.
    const int64_t leftBatch = batch > 1 && left.strides()[0] != 0 ? batch : 1;
    const int64_t rightBatch = batch > 1 && right.strides()[0] != 0 ? batch : 1;
    if (batch > 1 && leftBatch == 1 && rightBatch == 1) return false;
    const auto [aRow, aCol] = matrixStrides(m, k, left.stride(-2), left.stride(-1));
    const auto [bRow, bCol] = matrixStrides(k, n, right.stride(-2), right.stride(-1));
    // OpenMP's team size follows cwb's worker pool setting (OMP_NUM_THREADS, torch.set_num_threads); the pool's
    // threads sleep while the calling thread waits here, so the two never run at once.
    const int threads = workerThreadCount();
    if (dnnl->omp_get_max_threads() != threads) dnnl->omp_set_num_threads(threads);
    const Key key{static_cast<int64_t>(dtype), batch, m, k, n, leftBatch > 1 ? left.strides()[0] : 0, aRow, aCol,
                  rightBatch > 1 ? right.strides()[0] : 0, bRow, bCol, threads, biasRow.defined() ? 1 : 0,
                  static_cast<int64_t>(activation)};
    const std::shared_ptr<const Primitive> primitive = primitiveFor(key);
    if (!primitive) return false;

    thread_local ThreadState state;
    if (!state.stream && dnnl->dnnl_stream_create(&state.stream, dnnl->engine, dnnl_stream_default_flags) != dnnl_success) {
        state.stream = nullptr;
        return false;
    }
    // The arguments in use: source, weights, destination, then the bias and the scratchpad where there are.
    const void* handles[5] = {left.data(), right.data(), out.data()};
    const dnnl_memory_desc_t* descs[5] = {&primitive->src, &primitive->weights, &primitive->dst};
    int roles[5] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    int count = 3;
    if (biasRow.defined()) handles[count] = biasRow.data(), descs[count] = &primitive->bias, roles[count++] = DNNL_ARG_BIAS;
    if (primitive->scratchpadBytes > 0)
        handles[count] = state.scratchpad(primitive->scratchpadBytes), descs[count] = &primitive->scratchpad, roles[count++] = DNNL_ARG_SCRATCHPAD;
    dnnl_memory_t memories[5] = {};
    bool ok = true;
    dnnl_exec_arg_t args[5];
    for (int i = 0; i < count; ++i) {
        ok = ok && dnnl->dnnl_memory_create(&memories[i], descs[i], dnnl->engine, const_cast<void*>(handles[i])) == dnnl_success;
        args[i] = {roles[i], memories[i]};
    }
    ok = ok && dnnl->dnnl_primitive_execute(primitive->handle, state.stream, count, args) == dnnl_success &&
         dnnl->dnnl_stream_wait(state.stream) == dnnl_success;
    for (dnnl_memory_t memory : memories)
        if (memory) dnnl->dnnl_memory_destroy(memory);
    if (!ok) fail(ErrorKind::Runtime, "oneDNN's matmul failed on the CPU");
    return true;
}

}  // namespace eng::tensor::onednn
