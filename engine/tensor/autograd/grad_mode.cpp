// Thread-local grad mode (on by default in every thread, as in PyTorch).
#include "tensor/autograd/grad_mode.h"

namespace eng::tensor::autograd {

namespace {
thread_local bool gGradEnabled = true;
}  // namespace

bool isGradEnabled() { return gGradEnabled; }
void setGradEnabled(bool enabled) { gGradEnabled = enabled; }

}  // namespace eng::tensor::autograd
