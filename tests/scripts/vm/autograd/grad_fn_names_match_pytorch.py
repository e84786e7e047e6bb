# type(y.grad_fn).__name__ of the ops a model uses: the names PyTorch 2.11 gives its backward nodes.
# expect: ['SumBackward1', 'SoftmaxBackward0', 'LogSoftmaxBackward0', 'AmaxBackward0', 'MaxBackward0', 'MaxBackward1', 'VarBackward0', 'StdBackward0', 'ViewBackward0', 'ViewBackward0', 'PermuteBackward0', 'TransposeBackward0', 'TBackward0', 'UnsqueezeBackward0', 'SqueezeBackward1', 'ExpandBackward0', 'ViewBackward0', 'CatBackward0', 'StackBackward0', 'SplitBackward0', 'SplitBackward0', 'SliceBackward0', 'SelectBackward0', 'IndexBackward0', 'TriuBackward0', 'TrilBackward0', 'ToCopyBackward0', 'None', 'ToCopyBackward0', 'NativeLayerNormBackward0', 'GeluBackward0', 'SiluBackward0', 'ReluBackward0', 'WhereBackward0', 'ClampBackward1', 'MaximumBackward0', 'MaskedFillBackward0', 'MeanBackward1', 'None', 'CloneBackward0', 'ExpBackward0', 'AbsBackward0', 'NegBackward0', 'SigmoidBackward0', 'PowBackward0', 'PowBackward2', 'NotImplemented', 'RemainderBackward0', 'RsubBackward1', 'AddmmBackward0', 'MmBackward0', 'MmBackward0', 'BmmBackward0', 'None', 'MseLossBackward0', 'NllLossBackward0', 'EmbeddingBackward0', 'MinBackward0', 'AminBackward0']
# expect: ExpBackward0
import torch
import torch.nn.functional as F
x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
names = []
for f in [lambda t: t.sum(dim=1), lambda t: t.softmax(-1), lambda t: F.log_softmax(t, dim=0), lambda t: t.amax(1),
          lambda t: t.max(dim=0).values, lambda t: t.max(), lambda t: t.var(1), lambda t: t.std(), lambda t: t.view(3, 2),
          lambda t: t.reshape(-1), lambda t: t.permute(1, 0), lambda t: t.transpose(0, 1), lambda t: t.t(),
          lambda t: t.unsqueeze(0), lambda t: t[None].squeeze(0), lambda t: t.expand(2, 2, 3), lambda t: t.flatten(),
          lambda t: torch.cat([t, t]), lambda t: torch.stack([t, t]), lambda t: t.split(1)[0], lambda t: t.chunk(3, 1)[1],
          lambda t: t[:, 1:], lambda t: t[0], lambda t: t[torch.tensor([1, 0, 1])], lambda t: t.triu(), lambda t: t.tril(-1),
          lambda t: t.to(torch.float64), lambda t: t.float(), lambda t: t.half(), lambda t: F.layer_norm(t, [3]),
          lambda t: F.gelu(t), lambda t: F.silu(t), lambda t: t.relu(), lambda t: torch.where(t > 0, t, 0.0),
          lambda t: t.clamp(-0.5, 1.0), lambda t: torch.maximum(t, t * 0.5), lambda t: t.masked_fill(t > 1, 0.0),
          lambda t: t.mean(0, keepdim=True), lambda t: t.contiguous(), lambda t: t.clone(), lambda t: t.exp(),
          lambda t: t.abs(), lambda t: -t, lambda t: t.sigmoid(), lambda t: t.pow(2), lambda t: 2 ** t, lambda t: t // 2,
          lambda t: t % 2, lambda t: 1 - t, lambda t: F.linear(t, torch.ones(4, 3), torch.ones(4)), lambda t: F.linear(t, torch.ones(4, 3)),
          lambda t: t @ torch.ones(3, 2), lambda t: torch.bmm(t[None], torch.ones(1, 3, 2)), lambda t: F.dropout(t, 0.0),
          lambda t: F.mse_loss(t, torch.zeros(2, 3)), lambda t: F.cross_entropy(t, torch.tensor([0, 2])),
          lambda t: F.embedding(torch.tensor([1, 0]), t), lambda t: t.min(1).values, lambda t: t.amin(0)]:
    y = f(x)
    names.append(type(y.grad_fn).__name__ if y.grad_fn is not None else "None")
print(names)
print(x.exp().grad_fn.name())
