// Micro-benchmark (not a test) of guard evaluation: what every call of a compiled function pays before its
// cached graph runs. Build: cmake --build build-capture --target engine_capture_bench
// Run: build-capture/engine/engine_capture_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <sstream>

#include "capture/guards.h"
#include "tensor/creation.h"

namespace {

using namespace eng;  // NOLINT: benchmark file, brevity over qualification

capture::GuardSpec tensorGuard(capture::SourceRef source, const tensor::Tensor& t) {
    capture::GuardSpec g;
    g.kind = capture::GuardKind::TensorMatch;
    g.source = std::move(source);
    g.dtype = t.dtype();
    g.device = t.device();
    g.sizes.assign(t.sizes().begin(), t.sizes().end());
    g.strides.assign(t.strides().begin(), t.strides().end());
    g.dynamicDims.assign(g.sizes.size(), false);
    g.requiresGrad = t.requiresGrad();
    return g;
}

/// f(a, b, c, d) with four tensor arguments and one global flag: TENSOR_MATCH x4 + EQUALS_MATCH.
void BM_GuardCheckFourTensors(benchmark::State& state) {
    std::ostringstream out;
    vm::Interpreter interpreter(out);
    vm::ValueList locals;
    std::vector<capture::GuardSpec> guards;
    for (int i = 0; i < 4; ++i) {
        tensor::Tensor t = tensor::zeros({8, 16 + i});
        locals.push_back(vm::makeTensor(t));
        guards.push_back(tensorGuard(capture::Source::local(std::string(1, static_cast<char>('a' + i)), i), t));
    }
    vm::Namespace globals{{"FLAG", vm::Value(true)}};
    capture::GuardSpec flag;
    flag.kind = capture::GuardKind::EqualsMatch;
    flag.source = capture::Source::global("FLAG");
    flag.expected = vm::Value(true);
    guards.push_back(flag);
    capture::GuardTree tree(std::move(guards));
    for (auto _ : state) benchmark::DoNotOptimize(tree.check(interpreter, locals, globals));
}
BENCHMARK(BM_GuardCheckFourTensors);

/// A two-layer module: self.fc1/fc2 weight and bias through shared accessors (L['self']._modules['fc1'] read once).
void BM_GuardCheckModuleParameters(benchmark::State& state) {
    std::ostringstream out;
    vm::Interpreter interpreter(out);
    auto moduleClass = interpreter.builtinClass("Module");
    auto model = std::make_shared<vm::InstanceObject>(moduleClass);
    std::vector<capture::GuardSpec> guards;
    capture::SourceRef self = capture::Source::local("self", 0);
    for (const char* layer : {"fc1", "fc2"}) {
        auto linear = std::make_shared<vm::InstanceObject>(moduleClass);
        capture::SourceRef layerSource = capture::Source::child(self, capture::Source::Kind::ModuleChild, layer);
        for (const char* name : {"weight", "bias"}) {
            tensor::Tensor t = std::string(name) == "weight" ? tensor::zeros({32, 32}) : tensor::zeros({32});
            linear->attributes[name] = vm::makeTensor(t);
            guards.push_back(tensorGuard(capture::Source::child(layerSource, capture::Source::Kind::Parameter, name), t));
        }
        model->attributes[layer] = vm::Value(linear);
    }
    tensor::Tensor x = tensor::zeros({8, 32});
    guards.push_back(tensorGuard(capture::Source::local("x", 1), x));
    vm::ValueList locals{vm::Value(model), vm::makeTensor(x)};
    vm::Namespace globals;
    capture::GuardTree tree(std::move(guards));
    for (auto _ : state) benchmark::DoNotOptimize(tree.check(interpreter, locals, globals));
}
BENCHMARK(BM_GuardCheckModuleParameters);

/// The verbose pass after a miss: the first failing guard in Dynamo's wording.
void BM_GuardFailureReason(benchmark::State& state) {
    std::ostringstream out;
    vm::Interpreter interpreter(out);
    tensor::Tensor compiled = tensor::zeros({8, 16});
    capture::GuardTree tree({tensorGuard(capture::Source::local("x", 0), compiled)});
    vm::ValueList locals{vm::makeTensor(tensor::zeros({8, 32}))};
    vm::Namespace globals;
    for (auto _ : state) benchmark::DoNotOptimize(tree.explainFailure(interpreter, locals, globals));
}
BENCHMARK(BM_GuardFailureReason);

}  // namespace

BENCHMARK_MAIN();
