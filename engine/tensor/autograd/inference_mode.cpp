// Inference mode's thread-local flag, the table of inference storages and PyTorch's errors for inference tensors.
#include "tensor/autograd/inference_mode.h"

#include <atomic>
#include <mutex>
#include <unordered_set>

#include "tensor/autograd/grad_mode.h"
#include "tensor/error.h"
#include "tensor/tensor.h"

namespace eng::tensor::autograd {

namespace {

thread_local bool tInferenceMode = false;

struct InferenceStorages {
    std::mutex mutex;
    std::unordered_set<const Storage*> storages;
    std::atomic<size_t> count{0};
};

InferenceStorages& table() {
    // Leaked on purpose: storages held by other statics are released during exit.
    static auto* storages = new InferenceStorages();
    return *storages;
}

}  // namespace

bool isInferenceModeEnabled() { return tInferenceMode; }

void setInferenceMode(bool enabled) {
    tInferenceMode = enabled;
    setGradEnabled(!enabled);
}

bool isInference(const Tensor& t) {
    if (!t.defined() || !t.storage()) return false;
    InferenceStorages& s = table();
    if (s.count.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(s.mutex);
    return s.storages.contains(t.storage().get());
}

void noteStorageCreated(const Storage* storage) {
    if (!tInferenceMode) return;
    InferenceStorages& s = table();
    std::lock_guard lock(s.mutex);
    if (s.storages.insert(storage).second) s.count.fetch_add(1, std::memory_order_release);
}

void noteStorageReleased(const Storage* storage) {
    InferenceStorages& s = table();
    if (s.count.load(std::memory_order_acquire) == 0) return;
    std::lock_guard lock(s.mutex);
    if (s.storages.erase(storage)) s.count.fetch_sub(1, std::memory_order_release);
}

void checkNotInferenceInPlace(const Tensor& t) {
    if (!tInferenceMode && isInference(t))
        fail(ErrorKind::Runtime,
             "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
             "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
}

void checkNotInferenceSaved(const Tensor& t) {
    if (isInference(t))
        fail(ErrorKind::Runtime,
             "Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor "
             "and use it in autograd.");
}

void checkMayRequireGrad(const Tensor& t) {
    if (!tInferenceMode && isInference(t))
        fail(ErrorKind::Runtime, "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
}

}  // namespace eng::tensor::autograd
