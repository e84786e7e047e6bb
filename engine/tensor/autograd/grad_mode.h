// Grad mode: whether ops record autograd history, per thread as in PyTorch. torch.no_grad / enable_grad in the
// VM set it; the backward pass turns it off while it runs the derivative formulas.
#pragma once

namespace eng::tensor::autograd {

bool isGradEnabled();
void setGradEnabled(bool enabled);

// Sets grad mode for a scope and restores the previous mode on exit (also on exceptions).
class GradModeGuard {
public:
    explicit GradModeGuard(bool enabled) : previous_(isGradEnabled()) { setGradEnabled(enabled); }
    ~GradModeGuard() { setGradEnabled(previous_); }
    GradModeGuard(const GradModeGuard&) = delete;
    GradModeGuard& operator=(const GradModeGuard&) = delete;

private:
    bool previous_;
};

}  // namespace eng::tensor::autograd
