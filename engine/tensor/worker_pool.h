// A process-wide pool of CPU worker threads for kernels: a launch hands its outer range to threads that
// already exist, since starting threads per launch costs more than small kernels run for.
#pragma once

#include <cstdint>
#include <functional>

namespace eng::tensor {

/// Threads a parallel launch may use, the caller included: what setWorkerThreadCount (torch.set_num_threads) last
/// set, else OMP_NUM_THREADS when it is a positive number (as PyTorch's CPU kernels honour it), else the machine's
/// hardware threads.
int workerThreadCount();
/// torch.set_num_threads: later launches use at most `count` threads (at least 1), the caller included.
void setWorkerThreadCount(int count);

/// Runs task(i) for every i in [0, taskCount) on the pool's threads and the calling thread, and returns when all
/// have finished; the first exception a task throws is rethrown here. A call made while another thread's job
/// holds the pool runs its tasks on the calling thread alone, so concurrent launches never wait for each other.
void runOnWorkers(int64_t taskCount, const std::function<void(int64_t)>& task);

/// Elements an eager kernel gives each thread at least (PyTorch's at::internal::GRAIN_SIZE): below it a thread
/// costs more to wake than the work it would take.
constexpr int64_t kEagerGrain = 32768;

/// Ranges per thread for element-wise loops, whose results do not depend on where ranges start: with one range a
/// thread, the job lasts as long as its latest-woken thread; with several, the threads that start first take the
/// ranges of those that start late. CWB_EAGER_RANGES_PER_THREAD, else 4.
int elementwiseRangesPerThread();

/// fn(begin, end) over consecutive ranges covering [0, total), on up to workerThreadCount() threads, each range
/// holding at least `grain` items (one range, on the calling thread, when total < 2 * grain), at most
/// `rangesPerThread` ranges a thread. Ranges start at multiples of `align` so that vector loops see the same element
/// positions as on one thread.
template <typename Fn>
void parallelRanges(int64_t total, int64_t grain, const Fn& fn, int64_t align = 1, int64_t rangesPerThread = 1) {
    const int64_t byWork = total / (grain > 0 ? grain : 1);
    const int64_t threads = workerThreadCount();
    const int64_t most = threads > 1 ? threads * (rangesPerThread > 1 ? rangesPerThread : 1) : 1;
    const int64_t tasks = byWork < most ? byWork : most;
    if (tasks <= 1) {
        if (total > 0) fn(int64_t{0}, total);
        return;
    }
    int64_t chunk = (total + tasks - 1) / tasks;
    chunk = (chunk + align - 1) / align * align;
    runOnWorkers((total + chunk - 1) / chunk, [&](int64_t task) {
        const int64_t begin = task * chunk;
        fn(begin, begin + chunk < total ? begin + chunk : total);
    });
}

}  // namespace eng::tensor
