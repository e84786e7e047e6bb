# Two backward() calls without retain_graph in the compiled step raise eager's error.
# expect error: Trying to backward through the graph a second time
from _lib.compiled_autograd_training import eager_and_compiled_steps


def twice(loss):
    loss.backward()
    loss.backward()


eager_and_compiled_steps("inductor", True, backward=twice)
