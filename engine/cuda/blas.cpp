// cuBLAS handles per device and the strided-batched GEMM (float32/64, float16, bfloat16) behind
// matmul/mm/bmm/linear on CUDA tensors; cuBLASLt matmuls with bias/activation epilogues for compiled linears.
#include "cuda/blas.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "cuda/driver_api.h"
#include "cuda/events.h"
#include "cuda/lt_algo_store.h"
#include "cuda/toolkit_libraries.h"

namespace eng::cuda {

namespace {

void checkBlas(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw CudaError(fmt::format("{}: {} ({})", what, cublas().cublasGetStatusName(status), cublas().cublasGetStatusString(status)));
}

// PyTorch's cuBLAS workspace size on Hopper. A fixed workspace keeps cuBLAS from allocating its own inside a
// call, which CUDA graph capture forbids; cuBLASLt calls get the same buffer (all work is on one stream).
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

struct DeviceBlas {
    cublasHandle_t handle = nullptr;
    cublasLtHandle_t lt = nullptr;
    void* workspace = nullptr;  // never freed: the handles keep using it
};

// CWB_EAGER_KERNEL_LOG=1 also prints what starting cuBLAS costs and each cuBLASLt plan's first call (on stderr).
bool blasLogEnabled() {
    static const bool enabled = [] {
        const char* setting = std::getenv("CWB_EAGER_KERNEL_LOG");
        return setting != nullptr && std::atoi(setting) != 0;
    }();
    return enabled;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

DeviceBlas& blasFor(DeviceContext& context) {
    static std::mutex mutex;
    static auto& devices = *new std::vector<std::unique_ptr<DeviceBlas>>();  // leaked, as the contexts are
    std::lock_guard lock(mutex);
    const auto index = static_cast<size_t>(context.index());
    if (devices.size() <= index) devices.resize(index + 1);
    if (!devices[index]) {
        auto start = std::chrono::steady_clock::now();
        context.makeCurrent();
        auto blas = std::make_unique<DeviceBlas>();
        blas->workspace = context.allocate(kWorkspaceBytes);
        cublas();  // (loads libcublas, and libcublasLt which it needs)
        const double load = millisecondsSince(start);
        start = std::chrono::steady_clock::now();
        checkBlas(cublas().cublasCreate_v2(&blas->handle), "cublasCreate");
        // cublasSetStream resets the workspace to cuBLAS's own pool, so the workspace is set after it.
        checkBlas(cublas().cublasSetStream_v2(blas->handle, static_cast<cudaStream_t>(context.stream())), "cublasSetStream");
        checkBlas(cublas().cublasSetWorkspace_v2(blas->handle, blas->workspace, kWorkspaceBytes), "cublasSetWorkspace");
        // PyTorch keeps float32 matmuls in full precision unless allow_tf32 is set.
        checkBlas(cublas().cublasSetMathMode(blas->handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
        const double create = millisecondsSince(start);
        start = std::chrono::steady_clock::now();
        checkBlas(cublasLt().cublasLtCreate(&blas->lt), "cublasLtCreate");
        if (blasLogEnabled())
            std::fprintf(stderr, "[cwb blas] device %zu: workspace and libraries loaded in %.1f ms, cublasCreate %.1f ms, cublasLtCreate %.1f ms\n",
                         index, load, create, millisecondsSince(start));
        devices[index] = std::move(blas);
    }
    return *devices[index];
}

// The prewarm threads (prewarmBlas). Joining them from a static destructor came too late: the thread loads libcublas
// (dlopen) and starts cuBLAS after that object was made, so cuBLAS's own exit handlers and static destructors,
// registered later, ran first, under the thread still inside cuBLAS (a SIGSEGV at exit, H100 host, 2026-11-28). So the
// object is never destroyed, and the threads are joined by a thread-local object of the main thread instead (ExitJoin):
// returning from main calls exit(), which destroys the calling thread's thread-local objects before any static
// destructor or atexit handler runs ([basic.start.term]), cuBLAS's included. The main thread gets one when it starts a
// prewarm or asks for a device context while one runs (DeviceContext::get), so it joins them whenever it used CUDA; a
// thread that calls exit() itself while a prewarm runs (not the main thread, or a main thread that never used CUDA) is
// not covered, as any other thread it leaves running races the teardown. Other threads get none: a worker that ends
// would wait for the prewarm.
struct PrewarmThreads {
    std::mutex mutex;  // started, threads
    std::vector<bool> started;
    std::vector<std::thread> threads;
    std::mutex joining;           // held while joining: a second joiner waits until the threads have ended
    std::atomic<pid_t> owner{0};  // the process whose threads they are: a child of fork() has none of them to join
    std::atomic<bool> running{false};   // threads started and not yet joined
    std::atomic<bool> stopping{false};  // the process is ending: heuristic queries not yet begun are skipped
    void joinAll();
};

PrewarmThreads& prewarmThreads() {
    static auto& threads = *new PrewarmThreads();  // leaked (above)
    return threads;
}

void PrewarmThreads::joinAll() {
    // (A child of fork() has none of its parent's threads; fork waits for them, prewarmBlas, so this is a second guard.)
    if (!running.load() || getpid() != owner) return;
    std::lock_guard joiningLock(joining);
    std::vector<std::thread> ending;
    {
        std::lock_guard lock(mutex);
        ending.swap(threads);
    }
    for (std::thread& thread : ending) thread.join();
    std::lock_guard lock(mutex);
    if (threads.empty()) running.store(false);
}

// The main thread's: at exit it asks the prewarm threads to stop at their next step, then joins them.
struct ExitJoin {
    ~ExitJoin() {
        PrewarmThreads& prewarm = prewarmThreads();
        if (prewarm.running.load() && getpid() == prewarm.owner) prewarm.stopping.store(true);
        prewarm.joinAll();
    }
};

void joinPrewarmAtExitOfMainThread() {
    thread_local const bool mainThread = static_cast<pid_t>(syscall(SYS_gettid)) == getpid();
    if (!mainThread) return;
    thread_local ExitJoin join;
    (void)join;
}

// Held while cuBLASLt plans are made (linearLt) or the prewarm's heuristic queries run.
std::mutex& ltMutex() {
    static std::mutex mutex;
    return mutex;
}

cublasHandle_t handleFor(DeviceContext& context) { return blasFor(context).handle; }

int toInt(int64_t value, const char* what) {
    if (value > INT32_MAX || value < 0) throw CudaError(fmt::format("cuBLAS {} {} does not fit in int", what, value));
    return static_cast<int>(value);
}

// cuBLAS's storage and compute types for a GemmType. CUBLAS_COMPUTE_32F is full float32 under the
// default math mode (no TF32); for 16-bit storage it is PyTorch's float32 accumulation.
struct GemmTypes {
    cudaDataType_t data;
    cublasComputeType_t compute;
};

GemmTypes gemmTypes(GemmType type) {
    switch (type) {
        case GemmType::Float32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
        case GemmType::Float64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
        case GemmType::Float16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
        case GemmType::BFloat16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    }
    throw CudaError("cuBLAS gemm: unknown element type");
}

}  // namespace

void gemm(int device, const GemmCall& call) {
    DeviceContext& context = DeviceContext::get(device);
    cublasHandle_t handle = handleFor(context);
    context.makeCurrent();
    const cublasOperation_t opA = call.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opB = call.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int m = toInt(call.m, "m"), n = toInt(call.n, "n"), k = toInt(call.k, "k");
    const int lda = toInt(call.lda, "lda"), ldb = toInt(call.ldb, "ldb"), ldc = toInt(call.ldc, "ldc");
    const int batch = toInt(call.batch, "batch");
    const GemmTypes types = gemmTypes(call.type);
    // alpha and beta are in the compute type: double for float64, float otherwise.
    const float alphaF = static_cast<float>(call.alpha), betaF = static_cast<float>(call.beta);
    const bool doubleScale = types.compute == CUBLAS_COMPUTE_64F;
    const void* alpha = doubleScale ? static_cast<const void*>(&call.alpha) : &alphaF;
    const void* beta = doubleScale ? static_cast<const void*>(&call.beta) : &betaF;
    checkBlas(cublas().cublasGemmStridedBatchedEx(handle, opA, opB, m, n, k, alpha, call.a, types.data, lda, call.strideA, call.b,
                                         types.data, ldb, call.strideB, beta, call.c, types.data, ldc, call.strideC, batch,
                                         types.compute, CUBLAS_GEMM_DEFAULT),
              "cublasGemmStridedBatchedEx");
}

namespace {

uint32_t alignmentOf(const void* pointer) {
    const auto address = reinterpret_cast<uintptr_t>(pointer);
    uint32_t alignment = 16;  // cuBLASLt's kernels care up to 16 bytes
    while (alignment > 1 && address % alignment != 0) alignment /= 2;
    return alignment;
}

cublasLtEpilogue_t ltEpilogue(Epilogue epilogue) {
    switch (epilogue) {
        case Epilogue::None: return CUBLASLT_EPILOGUE_DEFAULT;
        case Epilogue::Bias: return CUBLASLT_EPILOGUE_BIAS;
        case Epilogue::Relu: return CUBLASLT_EPILOGUE_RELU;
        case Epilogue::ReluBias: return CUBLASLT_EPILOGUE_RELU_BIAS;
        case Epilogue::GeluTanh: return CUBLASLT_EPILOGUE_GELU;
        case Epilogue::GeluTanhBias: return CUBLASLT_EPILOGUE_GELU_BIAS;
    }
    return CUBLASLT_EPILOGUE_DEFAULT;
}

bool hasBias(Epilogue e) { return e == Epilogue::Bias || e == Epilogue::ReluBias || e == Epilogue::GeluTanhBias; }

// Descriptors and the heuristic's algorithm for one problem; only the bias pointer changes between calls.
struct LtPlan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
};

using LtKey = std::tuple<int, GemmType, int64_t, int64_t, int64_t, Epilogue, uint32_t, uint32_t, uint32_t, uint32_t>;

// Problems up to this many multiply-adds have the heuristic's candidates timed on their first call (a few runs of
// each, well under a millisecond); larger ones take its first choice, which is what their time is made of anyway.
constexpr int64_t kTunedMacs = int64_t{1} << 30;
constexpr int kCandidates = 8;

bool streamCapturing(DeviceContext& context) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    detail::check(detail::driver().streamIsCapturing(static_cast<CUstream>(context.stream()), &status), "cuStreamIsCapturing");
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

void runPlan(DeviceBlas& blas, DeviceContext& context, const LtPlan& plan, const cublasLtMatmulAlgo_t& algo, const LinearCall& call) {
    const float alpha = 1.0f, beta = 0.0f;
    checkBlas(cublasLt().cublasLtMatmul(blas.lt, plan.desc, &alpha, call.weight, plan.a, call.x, plan.b, &beta, call.out, plan.d, call.out,
                                        plan.d, &algo, blas.workspace, kWorkspaceBytes, static_cast<cudaStream_t>(context.stream())),
              "cublasLtMatmul");
}

// The fastest of the heuristic's candidates on this call's own buffers (the runs write only call.out, which the
// call itself overwrites next). The heuristic's first choice is no good guess for skinny products: for float32
// [8, 256] x [256, 256] with bias and relu on the H100 it splits k 132 ways and takes 32 us where another of its
// candidates takes 3.
cublasLtMatmulAlgo_t fastestCandidate(DeviceBlas& blas, DeviceContext& context, const LtPlan& plan, const LinearCall& call,
                                      const cublasLtMatmulHeuristicResult_t* results, int found) {
    constexpr int kRuns = 3;
    Event start(context.index(), true), end(context.index(), true);
    int best = 0;
    float bestMs = 0.0f;
    for (int i = 0; i < found; ++i) {
        if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
        runPlan(blas, context, plan, results[i].algo, call);  // warm-up (loads the kernel)
        start.record();
        for (int run = 0; run < kRuns; ++run) runPlan(blas, context, plan, results[i].algo, call);
        end.record();
        end.synchronize();
        const float ms = start.elapsedMs(end);
        if (i == 0 || ms < bestMs) {
            best = i;
            bestMs = ms;
        }
    }
    return results[best].algo;
}

static_assert(sizeof(cublasLtMatmulAlgo_t) == sizeof(LtAlgoWords), "cuBLASLt's algorithm struct is 8 opaque words");

// Timed choices persist in the kernel cache directory: another process of the same problem on the same device and
// library runs the same algorithm (and so the same summation order) instead of timing again, perhaps differently.
const LtAlgoStore& algoStore() {
    static const LtAlgoStore store;
    return store;
}

LtAlgoKey storedKeyOf(DeviceContext& context, const LinearCall& call, const LtKey& key) {
    LtAlgoKey stored;
    stored.library = std::to_string(cublasLt().cublasLtGetVersion());
    stored.device = context.name() + " " + context.arch();
    stored.type = call.type;
    stored.m = call.m;
    stored.n = call.n;
    stored.k = call.k;
    stored.epilogue = call.epilogue;
    stored.alignWeight = std::get<6>(key);
    stored.alignX = std::get<7>(key);
    stored.alignOut = std::get<8>(key);
    stored.alignBias = std::get<9>(key);
    return stored;
}

// Whether `algo` runs this plan's problem within the fixed workspace.
bool supports(DeviceBlas& blas, const LtPlan& plan, const cublasLtMatmulAlgo_t& algo) {
    cublasLtMatmulHeuristicResult_t check{};
    return cublasLt().cublasLtMatmulAlgoCheck(blas.lt, plan.desc, plan.a, plan.b, plan.d, plan.d, &algo, &check) == CUBLAS_STATUS_SUCCESS &&
           check.workspaceSize <= kWorkspaceBytes;
}

// Row-major out[m, n] = x[m, k] weight[n, k]^T is column-major out^T (n x m) = weight^T^T (n x k) x^T (k x m):
// A is the weight's memory read as a k x n column-major matrix and transposed, B is x's memory as k x m, and
// the bias (one value per row of the column-major result) is cuBLASLt's per-row bias of length n.
// `productAlgo`: the algorithm of the same product without the activation (see planFor), taken when it supports
// this epilogue.
LtPlan makePlan(DeviceBlas& blas, DeviceContext& context, const LinearCall& call, const LtKey& key, const cublasLtMatmulAlgo_t* productAlgo) {
    const cudaDataType_t data = gemmTypes(call.type).data;
    LtPlan plan;
    checkBlas(cublasLt().cublasLtMatmulDescCreate(&plan.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T;
    checkBlas(cublasLt().cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "cublasLt TRANSA");
    const cublasLtEpilogue_t epilogue = ltEpilogue(call.epilogue);
    checkBlas(cublasLt().cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), "cublasLt EPILOGUE");
    // The bias pointer changes between calls: linearLt sets it on the descriptor before each one.
    if (hasBias(call.epilogue)) {
        checkBlas(cublasLt().cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &data, sizeof data), "cublasLt BIAS_DATA_TYPE");
        checkBlas(cublasLt().cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &call.bias, sizeof call.bias),
                  "cublasLt BIAS_POINTER");
    }
    checkBlas(cublasLt().cublasLtMatrixLayoutCreate(&plan.a, data, static_cast<uint64_t>(call.k), static_cast<uint64_t>(call.n), call.k), "cublasLtMatrixLayoutCreate");
    checkBlas(cublasLt().cublasLtMatrixLayoutCreate(&plan.b, data, static_cast<uint64_t>(call.k), static_cast<uint64_t>(call.m), call.k), "cublasLtMatrixLayoutCreate");
    checkBlas(cublasLt().cublasLtMatrixLayoutCreate(&plan.d, data, static_cast<uint64_t>(call.n), static_cast<uint64_t>(call.m), call.n), "cublasLtMatrixLayoutCreate");
    if (productAlgo && supports(blas, plan, *productAlgo)) {
        plan.algo = *productAlgo;
        return plan;
    }
    // A problem small enough to be timed takes the choice an earlier process timed, also while capturing a graph.
    const bool timed = call.m * call.n * call.k <= kTunedMacs;
    const LtAlgoKey storedKey = timed ? storedKeyOf(context, call, key) : LtAlgoKey{};
    if (timed)
        if (std::optional<LtAlgoWords> words = algoStore().load(storedKey)) {
            cublasLtMatmulAlgo_t stored;
            std::memcpy(&stored, words->data(), sizeof stored);
            if (supports(blas, plan, stored)) {
                plan.algo = stored;
                return plan;
            }
        }
    cublasLtMatmulPreference_t preference = nullptr;
    checkBlas(cublasLt().cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    const size_t workspace = kWorkspaceBytes;
    cublasLt().cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    // Algorithms that need more alignment than these pointers have would fault: tell the heuristic. (The bias's
    // alignment is only part of the key: the bias epilogue's vector loads depend on it.)
    const uint32_t alignW = std::get<6>(key), alignX = std::get<7>(key), alignOut = std::get<8>(key);
    cublasLt().cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alignW, sizeof alignW);
    cublasLt().cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alignX, sizeof alignX);
    cublasLt().cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alignOut, sizeof alignOut);
    cublasLt().cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignOut, sizeof alignOut);
    // Timing needs a synchronize, which a CUDA graph capture forbids: a plan first made while capturing keeps
    // the heuristic's first choice.
    const bool tune = timed && !streamCapturing(context);
    cublasLtMatmulHeuristicResult_t results[kCandidates]{};
    int found = 0;
    const cublasStatus_t status =
        cublasLt().cublasLtMatmulAlgoGetHeuristic(blas.lt, plan.desc, plan.a, plan.b, plan.d, plan.d, preference, tune ? kCandidates : 1, results, &found);
    cublasLt().cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS || found == 0)
        throw CudaError(fmt::format("cuBLASLt has no algorithm for linear {}x{}x{} with epilogue {}", call.m, call.n, call.k,
                                    epilogueName(call.epilogue)));
    plan.algo = found > 1 ? fastestCandidate(blas, context, plan, call, results, found) : results[0].algo;
    if (found > 1) {
        LtAlgoWords words;
        std::memcpy(words.data(), &plan.algo, sizeof words);
        algoStore().store(storedKey, words);
    }
    return plan;
}

using LtPlans = std::map<LtKey, LtPlan>;

LtKey keyOf(int device, const LinearCall& call) {
    return LtKey{device, call.type, call.m, call.n, call.k, call.epilogue, alignmentOf(call.weight), alignmentOf(call.x),
                 alignmentOf(call.out), hasBias(call.epilogue) ? alignmentOf(call.bias) : 16u};
}

// The plan of `call`'s problem, made on first use. An epilogue with an activation runs the algorithm chosen for
// the same product without it (bias or none), so that a compiled linear + relu computes, before the activation,
// exactly what eager F.linear (that product) does and then relu: one timing can pick another kernel for each
// epilogue, and another kernel sums in another order (bfloat16 results would differ in the last bit).
const LtPlan& planFor(LtPlans& plans, DeviceBlas& blas, DeviceContext& context, int device, const LinearCall& call) {
    const LtKey key = keyOf(device, call);
    if (auto it = plans.find(key); it != plans.end()) return it->second;
    const Epilogue product = hasBias(call.epilogue) ? Epilogue::Bias : Epilogue::None;
    const cublasLtMatmulAlgo_t* productAlgo = nullptr;
    if (call.epilogue != product) {
        LinearCall plain = call;
        plain.epilogue = product;
        productAlgo = &planFor(plans, blas, context, device, plain).algo;  // (std::map: references stay valid)
    }
    return plans.emplace(key, makePlan(blas, context, call, key, productAlgo)).first->second;
}

}  // namespace

int blasPrewarmLevel() {
    static const int level = [] {
        const char* setting = std::getenv("CWB_BLAS_PREWARM");
        // Default 2: what measured best for compiled-only cold calls (engine/cuda/README.md). Levels 1 and 2 were
        // opt-in while the join at exit came after cuBLAS's teardown (PrewarmThreads).
        return setting && *setting ? std::atoi(setting) : 2;
    }();
    return level;
}

namespace {

// One heuristic query of a [64, 64] x [64, 64] product of `type` (no launch, nothing allocated on the device): a
// type's first query loads what cuBLASLt's heuristic needs for it.
void queryHeuristic(DeviceBlas& blas, GemmType type) {
    const cudaDataType_t data = gemmTypes(type).data;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t layout = nullptr;
    cublasLtMatmulPreference_t preference = nullptr;
    const auto& lt = cublasLt();
    if (lt.cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
        lt.cublasLtMatrixLayoutCreate(&layout, data, 64, 64, 64) == CUBLAS_STATUS_SUCCESS &&
        lt.cublasLtMatmulPreferenceCreate(&preference) == CUBLAS_STATUS_SUCCESS) {
        const size_t workspace = kWorkspaceBytes;
        lt.cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        std::lock_guard lock(ltMutex());
        lt.cublasLtMatmulAlgoGetHeuristic(blas.lt, desc, layout, layout, layout, layout, preference, 1, &result, &found);
    }
    if (preference) lt.cublasLtMatmulPreferenceDestroy(preference);
    if (layout) lt.cublasLtMatrixLayoutDestroy(layout);
    if (desc) lt.cublasLtMatmulDescDestroy(desc);
}

}  // namespace

void prewarmBlas(int device) {
    PrewarmThreads& prewarm = prewarmThreads();
    {
        std::lock_guard lock(prewarm.mutex);
        const auto index = static_cast<size_t>(device);
        if (prewarm.started.size() <= index) prewarm.started.resize(index + 1, false);
        if (prewarm.started[index]) return;
        prewarm.started[index] = true;
        prewarm.owner = getpid();
        // fork() waits for the threads: a child copied while one was inside dlopen or cuBLAS would inherit the
        // loader's lock or cuBLAS's state half-made, and its exit() (or a dlopen) would hang on them.
        static const bool joinAtFork = pthread_atfork([] { prewarmThreads().joinAll(); }, nullptr, nullptr) == 0;
        (void)joinAtFork;
        prewarm.running.store(true);
        prewarm.threads.emplace_back([device] {
            PrewarmThreads& threads = prewarmThreads();
            try {
                DeviceBlas& blas = blasFor(DeviceContext::get(device));
                if (blasPrewarmLevel() >= 2)
                    for (GemmType type : {GemmType::Float32, GemmType::BFloat16}) {
                        if (threads.stopping.load()) break;
                        const auto start = std::chrono::steady_clock::now();
                        queryHeuristic(blas, type);
                        if (blasLogEnabled())
                            std::fprintf(stderr, "[cwb blas] prewarm: first heuristic query of type %d %.1f ms\n", static_cast<int>(type),
                                         millisecondsSince(start));
                    }
            } catch (const std::exception&) {
                // (the first product on the device runs blasFor itself and reports the failure there)
            }
        });
    }
    joinPrewarmAtExitOfMainThread();
}

void awaitBlasPrewarm() { prewarmThreads().joinAll(); }

void joinBlasPrewarmAtExit() {
    if (prewarmThreads().running.load(std::memory_order_relaxed)) joinPrewarmAtExitOfMainThread();
}

const char* epilogueName(Epilogue epilogue) {
    switch (epilogue) {
        case Epilogue::None: return "none";
        case Epilogue::Bias: return "bias";
        case Epilogue::Relu: return "relu";
        case Epilogue::ReluBias: return "bias + relu";
        case Epilogue::GeluTanh: return "gelu(tanh)";
        case Epilogue::GeluTanhBias: return "bias + gelu(tanh)";
    }
    return "?";
}

void linearLt(int device, const LinearCall& call) {
    if (call.type == GemmType::Float64) throw CudaError("cuBLASLt linear: float64 is not supported");
    if (hasBias(call.epilogue) && !call.bias) throw CudaError("cuBLASLt linear: the bias epilogue needs a bias");
    if (call.m == 0 || call.n == 0) return;
    DeviceContext& context = DeviceContext::get(device);
    DeviceBlas& blas = blasFor(context);
    context.makeCurrent();
    std::mutex& mutex = ltMutex();
    static auto& plans = *new LtPlans();  // leaked: descriptors stay valid to the end
    LtPlan plan;
    {
        std::lock_guard lock(mutex);
        const size_t plansBefore = plans.size();
        // The clock only for the log: three reads a call were about 1% of a compiled B5 call's host time (H100 host).
        const bool log = blasLogEnabled();
        auto start = log ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
        plan = planFor(plans, blas, context, device, call);
        const double planning = log ? millisecondsSince(start) : 0.0;
        // The descriptor is shared by calls of this shape; the bias pointer is set under the lock, just before use.
        if (hasBias(call.epilogue))
            checkBlas(cublasLt().cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &call.bias, sizeof call.bias),
                      "cublasLt BIAS_POINTER");
        if (log) start = std::chrono::steady_clock::now();
        runPlan(blas, context, plan, plan.algo, call);
        // A new plan's first call: the heuristic (or the stored choice) and the host side of its first launch,
        // which loads the chosen kernel's module (lazy loading).
        if (log && plans.size() != plansBefore)
            std::fprintf(stderr, "[cwb blas] linear %lldx%lldx%lld type %d epilogue %s: plan %.1f ms, first call %.1f ms\n",
                         static_cast<long long>(call.m), static_cast<long long>(call.n), static_cast<long long>(call.k),
                         static_cast<int>(call.type), epilogueName(call.epilogue), planning, millisecondsSince(start));
    }
}

}  // namespace eng::cuda
