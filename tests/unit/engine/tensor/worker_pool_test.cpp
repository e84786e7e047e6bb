// The CPU worker pool that compiled kernels launch on: every task runs exactly once per job, jobs follow each other
// without mixing, concurrent callers both finish, and a task's exception reaches the caller; parallelRanges' ranges
// (several a thread for element-wise loops) cover each item once, start aligned and hold at least the grain.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <thread>
#include <vector>

#include "tensor/worker_pool.h"

namespace {

using eng::tensor::parallelRanges;
using eng::tensor::runOnWorkers;
using eng::tensor::setWorkerThreadCount;
using eng::tensor::workerThreadCount;

TEST(WorkerPool, ParallelRangesCoverEachItemOnceInAlignedRangesOfAtLeastTheGrain) {
    const int saved = workerThreadCount();
    for (int threads : {1, 3, 8}) {
        setWorkerThreadCount(threads);
        for (int64_t perThread : {1, 4}) {
            const int64_t total = 1'000'003, grain = 4096, align = 64;
            std::vector<std::atomic<int>> seen(static_cast<size_t>(total));
            std::mutex mutex;
            std::vector<std::pair<int64_t, int64_t>> ranges;
            parallelRanges(total, grain, [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) seen[static_cast<size_t>(i)].fetch_add(1);
                std::lock_guard lock(mutex);
                ranges.emplace_back(begin, end);
            }, align, perThread);
            for (const auto& s : seen) ASSERT_EQ(s.load(), 1) << threads << " threads, " << perThread << " a thread";
            EXPECT_EQ(ranges.size(), static_cast<size_t>(threads == 1 ? 1 : threads * perThread));
            std::sort(ranges.begin(), ranges.end());
            for (size_t r = 0; r + 1 < ranges.size(); ++r) {
                EXPECT_EQ(ranges[r].first % align, 0);
                EXPECT_GE(ranges[r].second - ranges[r].first, grain);
            }
        }
    }
    setWorkerThreadCount(saved);
}

TEST(WorkerPool, EveryTaskRunsExactlyOnce) {
    std::vector<std::atomic<int>> runs(1000);
    runOnWorkers(static_cast<int64_t>(runs.size()), [&](int64_t i) { runs[static_cast<size_t>(i)].fetch_add(1); });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
}

TEST(WorkerPool, ManyShortJobsInARowNeverMixTheirTasks) {
    // Workers that wake late must not run a finished job's task against the next job's counter.
    for (int job = 0; job < 2000; ++job) {
        std::vector<int> seen(static_cast<size_t>(job % 7 + 2), 0);
        runOnWorkers(static_cast<int64_t>(seen.size()), [&](int64_t i) { seen[static_cast<size_t>(i)] += job + 1; });
        for (int v : seen) ASSERT_EQ(v, job + 1) << "job " << job;
    }
}

TEST(WorkerPool, ConcurrentCallersBothFinish) {
    std::atomic<int64_t> total{0};
    auto caller = [&] {
        for (int job = 0; job < 200; ++job) runOnWorkers(16, [&](int64_t i) { total.fetch_add(i + 1); });
    };
    std::thread other(caller);
    caller();
    other.join();
    EXPECT_EQ(total.load(), 2 * 200 * (16 * 17 / 2));
}

TEST(WorkerPool, ATasksExceptionReachesTheCaller) {
    EXPECT_THROW(runOnWorkers(64, [](int64_t i) { if (i == 37) throw std::runtime_error("task 37"); }), std::runtime_error);
    // The pool still works afterwards.
    std::atomic<int> count{0};
    runOnWorkers(64, [&](int64_t) { count.fetch_add(1); });
    EXPECT_EQ(count.load(), 64);
}

}  // namespace
