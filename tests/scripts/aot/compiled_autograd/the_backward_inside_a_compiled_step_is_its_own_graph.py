# With compiled_autograd on, the backward pass inside a compiled training step is captured (compile id `!0`, the
# compiled_autograd_graph: the region's backward inlined, its saved values and the root gradient as inputs) and
# compiled by Dynamo as a compile of its own (`!0/<frame>/0`, AOT Autograd's inference graph with generated code).
# One capture serves the three steps: the later passes have the same structure and run the cached code. (The
# step calls backward in a helper of _lib/compiled_autograd_training.py, whose frame compiles on its own.)
# expect: True
# expect: 1 1
# expect graph: grad_root
# expect graph: aot0_
# expect code: _inference']
# expect compiles: 0/0 step, 1/0 backward_once, !0/2/0 forward, 3/0 torch_dynamo_resume_in_step_at_43
from _lib.compiled_autograd_training import compiled_autograd_counts, eager_and_compiled_steps
from _lib.eager_comparison import same_as_eager

print(same_as_eager(eager_and_compiled_steps("inductor", True)))
print(*compiled_autograd_counts())
