# An MLP trained for four SGD steps (momentum) with the inductor through AOT Autograd equals eager: losses,
# gradients and parameters. One AOT compile gives two output code rows, forward then backward, each with
# generated kernels, and the graphs TORCH_TRACE records for it, in order.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
# expect code_files: cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels
# expect code[0]: # forward graph
# expect code[1]: # AOT Autograd: backward graph
# expect graph_names: dynamo_output_graph, aot_joint_graph, aot_forward_graph, aot_backward_graph, inductor_post_grad_graph, inductor_post_grad_graph
from _lib.eager_comparison import same_as_eager
from _lib.model_training import mlp_training

print(same_as_eager(mlp_training("inductor", "sgd")))
