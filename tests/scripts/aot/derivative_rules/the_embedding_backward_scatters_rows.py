# The embedding's backward sums the gradient rows by index (index_put with accumulation), not through a one-hot
# [tokens, vocabulary] matmul, which costs tokens x vocabulary x d, nor a cumsum over sorted indices.
# expect: True
# expect graph: torch.index_put(
# expect no graph: cumsum
import torch
from _lib.derivative_rules import f_embedding, grads
from _lib.eager_comparison import same_as_eager

shapes = [[6, 4], [6, 4], [2]]
print(same_as_eager([grads(f_embedding, shapes), grads(torch.compile(f_embedding, backend="aot_eager"), shapes)]))
