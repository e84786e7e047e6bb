// Deferred element loops for the capture's example values: inside a DeferredFillScope an eager kernel that supports
// it (CPU loops; CUDA launches, whose first one compiles the kernel) allocates its result (geometry and dtype from the
// kernel's own rules) and leaves the work that fills it to run when the elements are first touched, so tracing a
// graph costs no work per element and no kernel compile (Dynamo's FakeTensors).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace eng::tensor {

/// While one is alive on this thread, fillOrDefer defers (the capture engine opens one around each example value).
class DeferredFillScope {
public:
    DeferredFillScope();
    ~DeferredFillScope();
    DeferredFillScope(const DeferredFillScope&) = delete;
    DeferredFillScope& operator=(const DeferredFillScope&) = delete;

private:
    bool previous_;
};

/// The loop that writes a kernel's result `out` from `inputs` (the tensors it reads, as the kernel saw them).
using FillFunction = std::function<void(const Tensor& out, std::span<const Tensor> inputs)>;

/// Runs fill(out, inputs) now, or, inside a DeferredFillScope when out and every input are on one device (the CPU,
/// or one CUDA device, where fills are launches on the device's one stream, so settling in order keeps eager's
/// order) and out owns its storage alone, reads none of it and has nothing pending on it (a fresh result), when
/// out's storage is first touched. Exactness: Tensor::data() is the only way to the elements (the device pointer a
/// launch passes too), and touching any storage first runs the pending fills that read it (they see its contents
/// as they were when the op ran) and its own pending fill; a CPU fill must not throw (the kernel's checks come
/// before); a CUDA fill's failure (a kernel that does not compile) surfaces where the elements are first touched.
void fillOrDefer(const Tensor& out, std::vector<Tensor> inputs, FillFunction fill);

/// Whether fillOrDefer may defer on this thread now (inside a DeferredFillScope): CUDA kernels ask first, so that
/// eager launches outside a capture build no closure.
bool deferringFills();

/// "Launch now unless deferring", for kernels that ask deferringFills() first: now(out, inputs) outside a
/// DeferredFillScope (no closure built, no input list copied: an eager launch); inside one, fillOrDefer with the fill
/// that deferred() returns, built only then (a closure owning what the deferred launch needs).
template <typename Now, typename MakeDeferred>
void launchOrDefer(const Tensor& out, std::span<const Tensor> inputs, Now&& now, MakeDeferred&& deferred) {
    if (!deferringFills()) {
        now(out, inputs);
        return;
    }
    FillFunction fill = deferred();
    fillOrDefer(out, std::vector<Tensor>(inputs.begin(), inputs.end()), std::move(fill));
}
/// The same with one fill both ways (copied into the deferred closure).
template <typename Fill>
void launchOrDefer(const Tensor& out, std::span<const Tensor> inputs, Fill&& fill) {
    launchOrDefer(out, inputs, fill, [&fill] { return FillFunction(fill); });
}

/// How many storages have pending fills or pending readers; Tensor::data() looks further only when it is not 0.
extern std::atomic<int64_t> g_deferredStorages;

/// Runs what is pending on `storage` (its own fill, then the pending fills that read it): called by Tensor::data().
void settleDeferred(const Storage* storage);
/// Drops what is pending on a storage being destroyed (its fill is no longer needed): called by ~Storage.
void forgetDeferred(const Storage* storage);

/// Storages whose fills ran since the process started (for tests and the bench's own accounting).
int64_t deferredFillsRun();

}  // namespace eng::tensor
