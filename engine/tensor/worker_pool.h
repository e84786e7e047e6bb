// A process-wide pool of CPU worker threads for kernels: a launch hands its outer range to threads that
// already exist, since starting threads per launch costs more than small kernels run for.
#pragma once

#include <cstdint>
#include <functional>

namespace eng::tensor {

/// Threads a parallel launch may use, the caller included: OMP_NUM_THREADS when it is a positive number (as
/// PyTorch's CPU kernels honour it), else the machine's hardware threads.
int workerThreadCount();

/// Runs task(i) for every i in [0, taskCount) on the pool's threads and the calling thread, and returns when all
/// have finished; the first exception a task throws is rethrown here. A call made while another thread's job
/// holds the pool runs its tasks on the calling thread alone, so concurrent launches never wait for each other.
void runOnWorkers(int64_t taskCount, const std::function<void(int64_t)>& task);

}  // namespace eng::tensor
