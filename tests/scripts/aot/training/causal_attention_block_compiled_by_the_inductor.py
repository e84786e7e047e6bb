# A causal attention block (LayerNorm, four heads, masked_fill, softmax, a residual projection) trained for three
# SGD steps with inductor equals eager, in one AOT compile.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
from _lib.eager_comparison import same_as_eager
from _lib.model_training import attention_training

print(same_as_eager(attention_training("inductor")))
