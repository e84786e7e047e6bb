// The eager CUDA kernel memo: one map from spec keys (device first) to loaded entry points, for every device, and
// the prefetch threads that compile kernels a first launch names as likely next. Entries are never dropped: a device
// context keeps its modules loaded for the process's life.
#include "tensor/cuda_launch_memo.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace eng::tensor::cudaops {

namespace {

using CompiledPointer = std::shared_ptr<const cuda::CompiledKernel>;

// A queued prefetch: whichever thread claims it first compiles it (a launch that needs it before a prefetch thread
// has started it compiles it itself rather than wait behind the queue).
struct PrefetchJob {
    std::function<cuda::KernelSource()> source;
    std::string arch;
    std::atomic<bool> claimed{false};
    std::promise<CompiledPointer> done;
    std::shared_future<CompiledPointer> result = done.get_future().share();
};

// Looked up by the key's text in place (no copy per launch); the kernels sit behind stable pointers.
struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

struct Memo {
    std::mutex mutex;
    std::unordered_map<std::string, std::unique_ptr<MemoizedKernel>, StringHash, std::equal_to<>> kernels;
    // Prefetches queued or compiling, by key: memoize() waits for these rather than compiling the kernel again.
    std::unordered_map<std::string, std::shared_ptr<PrefetchJob>, StringHash, std::equal_to<>> prefetches;
    EagerKernelStats stats;
};

Memo& memo() {
    static Memo instance;
    return instance;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Threads that compile prefetched kernels, started on the first prefetch. Jobs still queued at exit are dropped
// (nothing waits for them then); a compile in progress is finished.
class PrefetchThreads {
public:
    static PrefetchThreads& instance() {
        // The compiler is constructed first, so that it outlives the threads that use it.
        cuda::KernelCompiler::instance();
        static PrefetchThreads threads;
        return threads;
    }

    void push(std::shared_ptr<PrefetchJob> job) {
        {
            std::lock_guard lock(mutex_);
            jobs_.push_back(std::move(job));
        }
        ready_.notify_one();
    }

    ~PrefetchThreads() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
            jobs_.clear();
        }
        ready_.notify_all();
        for (std::thread& worker : workers_) worker.join();
    }

private:
    PrefetchThreads() {
        // One hardware thread is left to the thread that launches (it compiles its own misses meanwhile).
        const unsigned hardware = std::max(2u, std::thread::hardware_concurrency());
        const unsigned count = std::min(hardware - 1, 15u);
        for (unsigned i = 0; i < count; ++i) workers_.emplace_back([this] { work(); });
    }

    void work() {
        for (;;) {
            std::shared_ptr<PrefetchJob> job;
            {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
                if (stopping_) return;
                job = std::move(jobs_.front());
                jobs_.pop_front();
            }
            if (job->claimed.exchange(true)) continue;
            try {
                job->done.set_value(cuda::KernelCompiler::instance().compile(job->source(), job->arch));
            } catch (...) {
                job->done.set_exception(std::current_exception());
            }
        }
    }

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::shared_ptr<PrefetchJob>> jobs_;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

// A field's end: a byte no family name, dtype code, number or generated expression contains.
constexpr char kFieldEnd = '\x1f';

int levelFromEnvironment(const char* name, int fallback) {
    const char* setting = std::getenv(name);
    if (setting == nullptr || *setting == '\0') return fallback;
    return std::atoi(setting);
}

// CWB_EAGER_KERNEL_LOG=1: a stderr line for each eager kernel's first launch (its key, and the time it compiled
// or waited for its prefetch).
bool logEnabled() {
    static const bool enabled = levelFromEnvironment("CWB_EAGER_KERNEL_LOG", 0) != 0;
    return enabled;
}

}  // namespace

KernelKey::KernelKey(int device, std::string_view family) {
    text_ = std::to_string(device);
    text_ += kFieldEnd;
    add(family);
}

KernelKey& KernelKey::add(DType dtype) {
    text_ += static_cast<char>('A' + static_cast<int>(dtype));
    text_ += kFieldEnd;
    return *this;
}

KernelKey& KernelKey::add(int64_t value) {
    text_ += std::to_string(value);
    text_ += kFieldEnd;
    return *this;
}

KernelKey& KernelKey::add(std::string_view text) {
    text_ += text;
    text_ += kFieldEnd;
    return *this;
}

bool memoEnabled() {
    static const bool enabled = levelFromEnvironment("CWB_EAGER_KERNEL_MEMO", 1) != 0;
    return enabled;
}

int prefetchLevel() {
    static const int level = levelFromEnvironment("CWB_EAGER_PREFETCH", 1);
    return level;
}

const MemoizedKernel* findMemoized(const KernelKey& key) {
    Memo& m = memo();
    std::lock_guard lock(m.mutex);
    auto it = m.kernels.find(std::string_view(key.text()));
    return it == m.kernels.end() ? nullptr : it->second.get();
}

const MemoizedKernel& memoize(cuda::DeviceContext& context, const KernelKey& key, const cuda::KernelSource& source) {
    Memo& m = memo();
    std::shared_ptr<PrefetchJob> job;
    {
        std::lock_guard lock(m.mutex);
        if (auto it = m.prefetches.find(std::string_view(key.text())); it != m.prefetches.end()) job = it->second;
    }
    const auto started = std::chrono::steady_clock::now();
    CompiledPointer compiled;
    // A prefetch already compiling is waited for; one still queued is compiled here (its thread then skips it).
    const bool prefetched = job && job->claimed.exchange(true);
    if (prefetched) {
        try {
            compiled = job->result.get();
        } catch (...) {
            // (compiled again below, which reports the failure where it happens)
        }
    }
    if (!compiled) {
        try {
            compiled = cuda::KernelCompiler::instance().compile(source, context.arch());
        } catch (...) {
            if (job && !prefetched) job->done.set_exception(std::current_exception());
            throw;
        }
        if (job && !prefetched) job->done.set_value(compiled);
    }
    const double seconds = secondsSince(started);
    if (logEnabled()) {
        std::string fields = key.text();
        std::replace(fields.begin(), fields.end(), kFieldEnd, ' ');
        std::fprintf(stderr, "[cwb eager kernel] %s%s %.1f ms\n", fields.c_str(), prefetched ? "prefetched, waited" : "compiled in", seconds * 1e3);
    }
    auto kernel = std::make_unique<MemoizedKernel>(MemoizedKernel{context.function(*compiled), compiled->entry});
    std::lock_guard lock(m.mutex);
    if (prefetched) {
        ++m.stats.fromPrefetch;
        m.stats.prefetchWaitSeconds += seconds;
    } else {
        ++m.stats.compiled;
        m.stats.compileSeconds += seconds;
    }
    m.prefetches.erase(key.text());
    // (another thread may have memoized the same key meanwhile: the first entry stays, both are the same kernel)
    return *m.kernels.try_emplace(key.text(), std::move(kernel)).first->second;
}

void prefetch(const cuda::DeviceContext& context, std::vector<EagerKernel> kernels) {
    Memo& m = memo();
    for (EagerKernel& kernel : kernels) {
        auto job = std::make_shared<PrefetchJob>();
        job->source = std::move(kernel.source);
        job->arch = context.arch();
        {
            std::lock_guard lock(m.mutex);
            const std::string& key = kernel.key.text();
            if (m.kernels.count(key) || m.prefetches.count(key)) continue;
            m.prefetches.emplace(key, job);
            ++m.stats.prefetched;
        }
        PrefetchThreads::instance().push(std::move(job));
    }
}

EagerKernelStats eagerKernelStats() {
    Memo& m = memo();
    std::lock_guard lock(m.mutex);
    return m.stats;
}

}  // namespace eng::tensor::cudaops
