# An MLP trained for four Adam steps with aot_eager equals eager; the one AOT compile's code is aot_eager's.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
# expect code_files: cwb_aot_eager
from _lib.eager_comparison import same_as_eager
from _lib.model_training import mlp_training

print(same_as_eager(mlp_training("aot_eager", "adam")))
