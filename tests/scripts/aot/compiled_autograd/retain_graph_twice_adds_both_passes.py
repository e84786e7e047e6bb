# backward(retain_graph=True) then backward() in the compiled step: both passes add into the gradients, as in eager.
# expect: True
# expect: 1
from _lib.compiled_autograd_training import compiled_autograd_counts, eager_and_compiled_steps
from _lib.eager_comparison import same_as_eager


def twice(loss):
    loss.backward(retain_graph=True)
    loss.backward()


print(same_as_eager(eager_and_compiled_steps("inductor", True, backward=twice)))
print(compiled_autograd_counts()[0])
