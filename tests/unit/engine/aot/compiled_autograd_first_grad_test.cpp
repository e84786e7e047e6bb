// Under compiled autograd a leaf's first .grad is the compiled pass's gradient output itself when nothing else holds
// it (AccumulateGrad takes it, no copy, as the eager engine's does), and a copy when something does. The step compiles
// with aot_eager wrapped in a backend that sees the backward pass's outputs (and, when asked, keeps them).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <vector>

#include "aot/aot_backend.h"
#include "capture/capture_engine.h"
#include "fx/backend.h"
#include "tensor/autograd/grad_mode.h"

namespace eng {
namespace {

struct PassOutputs {
    std::vector<const void*> data;  // of each tensor a backward pass returned
    std::vector<vm::ValueList> kept;
    bool keep = false;
};

PassOutputs& passOutputs() {
    static PassOutputs outputs;
    return outputs;
}

/// aot_eager, recording the outputs of each call run without grad mode (the compiled autograd pass; forwards of a
/// training step run with it).
class RecordingBackend : public fx::Backend {
public:
    explicit RecordingBackend(std::unique_ptr<fx::Backend> inner) : inner_(std::move(inner)) {}
    fx::CompiledFn compile(vm::Interpreter& vm, std::shared_ptr<const fx::Graph> graph, const vm::ValueList& examples) override {
        fx::CompiledFn compiled = inner_->compile(vm, std::move(graph), examples);
        return [compiled](vm::Interpreter& m, const vm::ValueList& inputs) {
            vm::ValueList outputs = compiled(m, inputs);
            if (tensor::autograd::isGradEnabled()) return outputs;
            for (const vm::Value& v : outputs)
                if (v.is(vm::Kind::Tensor)) passOutputs().data.push_back(v.tensor().data());
            if (passOutputs().keep) passOutputs().kept.push_back(outputs);
            return outputs;
        };
    }

private:
    std::unique_ptr<fx::Backend> inner_;
};

constexpr const char* kScript = R"(
import torch


def backward_once(loss):
    loss.backward()


def step(w, x):
    backward_once((x @ w).sin().sum())


def run():
    torch._dynamo.reset()
    torch._dynamo.config.compiled_autograd = True
    torch.manual_seed(0)
    w = torch.randn(16, 8, requires_grad=True)
    x = torch.randn(32, 16)
    torch.compile(step, backend="cwb_test_recording_aot_eager")(w, x)
    compiled = w.grad
    w.grad = None
    step(w, x)
    assert torch.allclose(compiled, w.grad)
    assert torch._dynamo.utils.counters["compiled_autograd"]["captures"] >= 1
    return compiled
)";

/// The data pointer of w's first .grad after a compiled step, and whether it is one of the pass's outputs.
bool firstGradIsAPassOutput(bool keep) {
    passOutputs() = PassOutputs{};
    passOutputs().keep = keep;
    std::ostringstream out;
    vm::Interpreter vm(out);
    capture::CaptureEngine engine(vm);
    engine.install();
    aot::installAotAutograd();
    fx::registerBackend("cwb_test_recording_aot_eager", [](const vm::CompileOptions& options) {
        vm::CompileOptions inner = options;
        inner.backend = "aot_eager";
        return std::make_unique<RecordingBackend>(fx::makeBackend(inner));
    });
    const vm::RunResult result = vm.runScript("step.py", kScript);
    EXPECT_TRUE(result.ok) << result.error;
    const vm::Value grad = vm.call(*vm.global("run"), {});
    EXPECT_FALSE(passOutputs().data.empty()) << "the backward pass did not run through the compiled autograd backend";
    const void* data = grad.tensor().data();
    const bool found = std::find(passOutputs().data.begin(), passOutputs().data.end(), data) != passOutputs().data.end();
    passOutputs() = PassOutputs{};
    return found;
}

TEST(CompiledAutogradFirstGrad, TakesTheGradientNothingElseHolds) { EXPECT_TRUE(firstGradIsAPassOutput(false)); }

TEST(CompiledAutogradFirstGrad, CopiesAGradientSomethingElseHolds) { EXPECT_FALSE(firstGradIsAPassOutput(true)); }

}  // namespace
}  // namespace eng
