// The CPU worker pool that compiled kernels launch on: every task runs exactly once per job, jobs follow each other
// without mixing, concurrent callers both finish, and a task's exception reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tensor/worker_pool.h"

namespace {

using eng::tensor::runOnWorkers;

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
