// The CPU worker pool: threads start on the first parallel launch and then sleep on a condition variable between
// jobs; each job's tasks are claimed from an atomic counter by whichever thread is free.
#include "tensor/worker_pool.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

namespace eng::tensor {

namespace {

// Never destroyed, and its threads are detached: at exit they are asleep on wake_, and no static destructor has
// to join threads that may be running a static destructor's victims.
class WorkerPool {
public:
    void run(int64_t taskCount, const std::function<void(int64_t)>& task) {
        std::unique_lock job(jobMutex_, std::try_to_lock);
        // A forked child has the parent's pool but none of its threads: it runs alone.
        const bool forkedChild = started_ && ownerPid_ != getpid();
        const int threads = workerThreadCount();
        if (!job.owns_lock() || forkedChild || threads <= 1 || taskCount <= 1) {
            for (int64_t i = 0; i < taskCount; ++i) task(i);
            return;
        }
        startThreadsIfNeeded(threads - 1);
        {
            std::lock_guard lock(mutex_);
            helpers_ = threads - 1;
            task_ = &task;
            taskCount_ = taskCount;
            nextTask_.store(0);
            finishedTasks_ = 0;
            firstError_ = nullptr;
            ++generation_;
        }
        wake_.notify_all();
        claimTasks();
        std::unique_lock lock(mutex_);
        // Also wait for workers that woke for this job but claimed nothing: they must not see the next job's counter
        // with this job's task.
        done_.wait(lock, [&] { return finishedTasks_ == taskCount_ && activeWorkers_ == 0; });
        task_ = nullptr;
        if (firstError_) std::rethrow_exception(firstError_);
    }

private:
    // Grows the pool to `helpers` threads besides the caller (torch.set_num_threads may raise the count later).
    void startThreadsIfNeeded(int helpers) {
        if (!started_) ownerPid_ = getpid();
        started_ = true;
        for (; startedHelpers_ < helpers; ++startedHelpers_) {
            const int index = startedHelpers_;
            std::thread([this, index] { workerLoop(index); }).detach();
        }
    }

    void workerLoop(int index) {
        uint64_t seen = 0;
        std::unique_lock lock(mutex_);
        while (true) {
            wake_.wait(lock, [&] { return generation_ != seen && task_ != nullptr; });
            seen = generation_;
            // A job that asked for fewer threads than the pool holds leaves the rest asleep.
            if (index >= helpers_) continue;
            ++activeWorkers_;
            lock.unlock();
            claimTasks();
            lock.lock();
            --activeWorkers_;
            if (finishedTasks_ == taskCount_ && activeWorkers_ == 0) done_.notify_all();
        }
    }

    void claimTasks() {
        int64_t finishedHere = 0;
        std::exception_ptr error;
        for (int64_t i = nextTask_.fetch_add(1); i < taskCount_; i = nextTask_.fetch_add(1)) {
            try {
                (*task_)(i);
            } catch (...) {
                if (!error) error = std::current_exception();
            }
            ++finishedHere;
        }
        if (finishedHere == 0) return;
        std::lock_guard lock(mutex_);
        finishedTasks_ += finishedHere;
        if (error && !firstError_) firstError_ = error;
        if (finishedTasks_ == taskCount_) done_.notify_all();
    }

    std::mutex jobMutex_;  // one job at a time
    std::mutex mutex_;     // guards everything below but nextTask_
    std::condition_variable wake_, done_;
    const std::function<void(int64_t)>* task_ = nullptr;
    int64_t taskCount_ = 0;
    std::atomic<int64_t> nextTask_{0};
    int64_t finishedTasks_ = 0;
    int activeWorkers_ = 0;
    uint64_t generation_ = 0;
    int helpers_ = 0;  // pool threads the current job may use
    std::exception_ptr firstError_;
    bool started_ = false;  // under jobMutex_, as startedHelpers_
    int startedHelpers_ = 0;
    pid_t ownerPid_ = 0;
};

}  // namespace

namespace {

constexpr long kMaxThreads = 1024;

// The environment variable `name` as a whole positive integer, at most `most`; `fallback` when unset or not one.
int positiveSetting(const char* name, long most, int fallback) {
    if (const char* env = std::getenv(name)) {
        char* end = nullptr;
        const long value = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && value > 0) return static_cast<int>(std::min(value, most));
    }
    return fallback;
}

std::atomic<int>& threadCountSetting() {
    static std::atomic<int> count{
        positiveSetting("OMP_NUM_THREADS", kMaxThreads, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())))};
    return count;
}

}  // namespace

int workerThreadCount() { return threadCountSetting().load(std::memory_order_relaxed); }

int elementwiseRangesPerThread() {
    static const int ranges = positiveSetting("CWB_EAGER_RANGES_PER_THREAD", 64, 4);
    return ranges;
}

void setWorkerThreadCount(int count) {
    threadCountSetting().store(static_cast<int>(std::clamp<long>(count, 1, kMaxThreads)), std::memory_order_relaxed);
}

void runOnWorkers(int64_t taskCount, const std::function<void(int64_t)>& task) {
    static WorkerPool* const pool = new WorkerPool;
    pool->run(taskCount, task);
}

}  // namespace eng::tensor
