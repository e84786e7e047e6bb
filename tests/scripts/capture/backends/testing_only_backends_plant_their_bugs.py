# PyTorch's *_TESTING_ONLY debugging backends (listed by list_backends(None) only) plant a bug on purpose, for repro
# extraction and the minifier to find: only call_function nodes of torch.relu count (F.relu inlines to one; x.relu()
# is a call_method and compiles untouched). relu_compile_error fails the compile with ReluCompileError, relu_runtime_error turns the relu into
# torch._assert(False, "ReluRuntimeError"), relu_accuracy_error into torch.add(x, 1); non_leaf_compile_error fails
# a graph that calls a function when an input is not a leaf tensor.
# expect: ['non_leaf_compile_error_TESTING_ONLY', 'relu_accuracy_error_TESTING_ONLY', 'relu_compile_error_TESTING_ONLY', 'relu_runtime_error_TESTING_ONLY'] []
# expect: BackendCompilerFailed
# expect: "backend='relu_compile_error_TESTING_ONLY' raised:"
# expect: 'ReluCompileError: '
# expect: x.relu() compiles: [0.0, 4.0]
# expect: AssertionError ReluRuntimeError
# expect: relu becomes add 1: [1.0, 4.0] eager: [1.0, 3.0]
# expect: BackendCompilerFailed "backend='non_leaf_compile_error_TESTING_ONLY' raised:" 'TestingOnlyCompileError: '
# expect: leaf input: [0.0, 0.0]
# expect: no call_function: 4.0
import torch
import torch.nn.functional as F


def relu_then_add(x):
    return torch.relu(x) + 1.0


def functional_relu_then_add(x):
    return F.relu(x) + 1.0


def method_relu(x):
    return x.relu() * 2.0


def scaled_sin(t):
    return torch.sin(t) * 3.0


def total(t):
    return t.sum()


def report(error):
    lines = str(error).split("\n")
    return type(error).__name__, repr(lines[0]), repr(lines[1])


debugging = torch._dynamo.list_backends(None)
print([name for name in debugging if name.endswith("_TESTING_ONLY")], [name for name in torch._dynamo.list_backends() if "TESTING" in name])
x = torch.tensor([-1.0, 2.0])

try:
    torch.compile(functional_relu_then_add, backend="relu_compile_error_TESTING_ONLY")(x)
except Exception as e:
    name, first, second = report(e)
    print(name)
    print(first)
    print(second)
torch._dynamo.reset()
print("x.relu() compiles:", torch.compile(method_relu, backend="relu_compile_error_TESTING_ONLY")(x).tolist())
torch._dynamo.reset()

try:
    torch.compile(relu_then_add, backend="relu_runtime_error_TESTING_ONLY")(x)
except AssertionError as e:
    print("AssertionError", e)
torch._dynamo.reset()

print("relu becomes add 1:", torch.compile(relu_then_add, backend="relu_accuracy_error_TESTING_ONLY")(x).tolist(), "eager:", relu_then_add(x).tolist())
torch._dynamo.reset()

leaf = torch.zeros(2, requires_grad=True)
non_leaf = leaf * 2.0
try:
    torch.compile(scaled_sin, backend="non_leaf_compile_error_TESTING_ONLY")(non_leaf)
except Exception as e:
    print(*report(e))
torch._dynamo.reset()
print("leaf input:", torch.compile(scaled_sin, backend="non_leaf_compile_error_TESTING_ONLY")(leaf).tolist())
torch._dynamo.reset()
print("no call_function:", torch.compile(total, backend="non_leaf_compile_error_TESTING_ONLY")(torch.ones(2, 2).requires_grad_() * 1.0).item())
