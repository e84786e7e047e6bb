# The captured backward pass compiled with aot_eager equals eager, one capture for the three steps.
# expect: True
# expect: 1
from _lib.compiled_autograd_training import compiled_autograd_counts, eager_and_compiled_steps
from _lib.eager_comparison import same_as_eager

print(same_as_eager(eager_and_compiled_steps("aot_eager", True)))
print(compiled_autograd_counts()[0])
