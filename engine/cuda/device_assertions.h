// Device-side assertions, as PyTorch's CUDA kernels assert on the device: a kernel that finds bad input (a class
// target out of range) writes an assertion word instead of the host reading the input back to check it, and the
// device's next synchronisation (a copy to the host, .item(), torch.cuda.synchronize()) raises the error.
#pragma once

#include <cstdint>

namespace eng::cuda {

/// Throws the error of an assertion kind, given the value the kernel recorded (the offending target).
using AssertionRaiser = void (*)(int64_t value);

/// The same with two more values the kernel recorded (an index check: the dimension and its size).
using DetailedAssertionRaiser = void (*)(int64_t value, int64_t first, int64_t second);

/// Registers a kind of assertion once (a static of its user); kernels write the returned id (never 0).
uint64_t registerDeviceAssertion(AssertionRaiser raise);
uint64_t registerDeviceAssertion(DetailedAssertionRaiser raise);

/// The words a kernel writes: word[0] the assertion's id (the first failing kernel wins: atomicCAS from 0),
/// word[1] its value, word[2] and word[3] the details a detailed kind reads (kAssertionWords in all). In host
/// memory mapped into the device, so that the host reads it after a synchronisation without a copy.
constexpr int kAssertionWords = 4;
struct AssertionWord {
    volatile uint64_t* host = nullptr;
    void* device = nullptr;  // the same memory as the device sees it, a kernel argument
};

/// If the word holds an assertion: clears it and throws that assertion's error (a CudaError saying
/// "device-side assert triggered" for an id nobody registered). Call only once the device has finished the work
/// that may write it.
void raisePendingAssertion(volatile uint64_t* word);

}  // namespace eng::cuda
