# TORCH_LOGS=aot_graphs titles each graph as AOT Autograd does ("Forward graph 0", "Backward graph 1"), numbering the
# AOT compiles of the process; an inference graph is a "Forward graph" too, and the trace records it with its
# post-grad graph as a real log does.
import torch

# torch_logs: aot_graphs,post_grad_graphs
# env: TORCHINDUCTOR_FX_GRAPH_CACHE=0


@torch.compile
def scale(x):
    return x.sin() * 2


@torch.compile
def loss(x, w):
    return (x @ w).relu().sum()


print(scale(torch.ones(3)).tolist() == (torch.ones(3).sin() * 2).tolist())
w = torch.ones(2, 2, requires_grad=True)
loss(torch.ones(2, 2), w).backward()
print(w.grad.tolist())

# expect: True
# expect: [[2.0, 2.0], [2.0, 2.0]]
# expect log: ===== Forward graph 0 =====
# expect log: ===== Forward graph 1 =====
# expect log: ===== Backward graph 1 =====
# expect log: ===== AFTER POST GRAD =====
# expect no log: ===== aot_forward_graph =====
# expect graph_names: dynamo_output_graph, aot_inference_graph, inductor_post_grad_graph, dynamo_output_graph, aot_joint_graph, aot_forward_graph, aot_backward_graph, inductor_post_grad_graph, inductor_post_grad_graph
# expect unique_graphs: 2
