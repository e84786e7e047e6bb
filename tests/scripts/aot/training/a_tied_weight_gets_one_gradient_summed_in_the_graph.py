# A head tied to an embedding (one Parameter at two inputs of the captured graph): AOT Autograd gives it one
# gradient, the sum of the embedding's scatter and the head's product, computed in the backward graph (as Dynamo's
# one input per tensor gives PyTorch's graph), equal to eager's. After the head is untied (a Parameter of its own at
# the second position), the same entry runs eagerly and both gradients are still eager's.
# expect: True
# expect code_count 1: is the same tensor as
import torch
import torch.nn as nn
import torch.nn.functional as F
from _lib.eager_comparison import same_as_eager


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx, targets):
        logits = self.head(torch.tanh(self.emb(idx)))
        return F.cross_entropy(logits.view(-1, 10), targets.view(-1))


def run(backend):
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = Tied()
    step = torch.compile(model, backend=backend) if backend else model
    idx = torch.tensor([[1, 3, 3, 7], [0, 9, 3, 1]])
    targets = torch.tensor([[2, 3, 5, 7], [1, 1, 0, 9]])
    out = []
    for _ in range(2):
        model.zero_grad()
        loss = step(idx, targets)
        loss.backward()
        out += [loss.detach(), model.emb.weight.grad.clone()]
    model.head.weight = nn.Parameter(model.emb.weight.detach() * 0.5)
    model.zero_grad()
    loss = step(idx, targets)
    loss.backward()
    out += [loss.detach(), model.emb.weight.grad.clone(), model.head.weight.grad.clone()]
    return out


print(same_as_eager([run(None), run("inductor")]))
