// Compiled autograd (`torch._dynamo.config.compiled_autograd = True`): a backward pass run inside a compiled function
// is captured as one graph of its own (the backward graphs of the AOT-compiled regions it crosses, inlined in the
// autograd engine's order; the leaves' gradients as its outputs) and compiled with the function's backend under a
// compile id of its own (`!0/2/0`), as PyTorch's compiled autograd traces the autograd engine and hands the graph
// to Dynamo. Graphs are cached by the autograd graph's structure; later passes of the same structure run the code.
#pragma once

namespace eng::aot {

/// Registers compiled autograd with the capture engine (installAotAutograd calls it).
void installCompiledAutograd();

}  // namespace eng::aot
