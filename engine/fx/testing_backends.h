// PyTorch's four *_TESTING_ONLY debugging backends (torch/_dynamo/backends/debugging.py), which plant a bug on
// purpose so that repro extraction and the minifier have something to find: listed by list_backends(None) only.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fx/backend.h"

namespace eng::fx {

/// Each *_TESTING_ONLY backend's name and factory: relu_compile_error (ReluCompileError while compiling a graph
/// that calls torch.relu), relu_runtime_error (that call becomes torch._assert(False, "ReluRuntimeError")),
/// relu_accuracy_error (it becomes torch.add(x, 1)) and non_leaf_compile_error (TestingOnlyCompileError for a
/// graph with a call_function node and a non-leaf tensor input).
std::vector<std::pair<std::string, BackendFactory>> testingOnlyBackends();

}  // namespace eng::fx
