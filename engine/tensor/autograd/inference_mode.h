// Inference mode (torch.inference_mode), per thread: every storage allocated while it is on is an inference storage,
// so the tensors made then, and views of them anywhere, are inference tensors, which autograd refuses to save and
// in-place ops outside inference mode refuse to change, with PyTorch's errors. Grad mode is its opposite.
#pragma once

namespace eng::tensor {
class Storage;
class Tensor;
}  // namespace eng::tensor

namespace eng::tensor::autograd {

bool isInferenceModeEnabled();
// Sets inference mode and grad mode to its opposite, as c10::InferenceMode does (also for inference_mode(False)).
void setInferenceMode(bool enabled);

// t.is_inference(): its storage was allocated in inference mode.
bool isInference(const Tensor& t);

// The storage's allocation and release (device.cpp): inference storages are kept in a side table, so that a normal
// tensor costs one atomic load to ask.
void noteStorageCreated(const Storage* storage);
void noteStorageReleased(const Storage* storage);

// PyTorch's errors for an inference tensor outside inference mode.
void checkNotInferenceInPlace(const Tensor& t);
void checkNotInferenceSaved(const Tensor& t);
void checkMayRequireGrad(const Tensor& t);

}  // namespace eng::tensor::autograd
