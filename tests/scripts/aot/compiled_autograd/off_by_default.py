# compiled_autograd off: the compiled step's backward is AOT Autograd's backward graph; nothing is captured.
# expect: True
# expect: 0 0
# expect no graph: grad_root
from _lib.compiled_autograd_training import compiled_autograd_counts, eager_and_compiled_steps
from _lib.eager_comparison import same_as_eager

print(same_as_eager(eager_and_compiled_steps("inductor", False)))
print(*compiled_autograd_counts())
