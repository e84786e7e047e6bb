# torch._dynamo.reset() forgets the captured backward passes: the next step captures again, and its compiled
# autograd ids start again from 0.
# expect: True
# expect: 2
from _lib.compiled_autograd_training import compiled_autograd_counts, eager_and_compiled_steps
from _lib.eager_comparison import same_as_eager

print(same_as_eager(eager_and_compiled_steps("inductor", True, reset_before_last=True)))
print(compiled_autograd_counts()[0])
