// Autograd as Python programs see it: .grad accumulation, backward(gradient), no_grad / enable_grad, detach,
// clone, retain_grad, in-place ops on non-leaves, nn.Module zero_grad, grad_fn names, and PyTorch's error
// messages. Every expected output below is what PyTorch 2.11 printed for the same program.
#include <gtest/gtest.h>

#include <sstream>

#include "script_support.h"

namespace {

void expectOutput(const std::string& source, const std::string& expected) {
    vmtest::ScriptRun run = vmtest::runScript(source);
    ASSERT_TRUE(run.ok) << run.error << "\noutput so far:\n" << run.out;
    EXPECT_EQ(run.out, expected);
}

TEST(VmAutograd, GradAccumulatesAndBackwardTakesAGradient) {
    expectOutput(R"(import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
print(y.grad_fn is None, x.grad_fn is None, x.is_leaf, y.is_leaf, y.requires_grad)
print(y)
print(x * 2, x + 1, x.mean(), x - 1, x / 2, torch.tanh(x)[0], x @ x)
y.backward()
print(x.grad)
z = (x * 3).sum()
z.backward()
print(x.grad)
x.grad = None
print(x.grad)
(x ** 3).mean().backward()
print(x.grad)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = w * w
v.backward(torch.tensor([1.0, 0.5, 2.0]))
print(w.grad)
)",
                 R"(False True True False True
tensor(14., grad_fn=<SumBackward0>)
tensor([2., 4., 6.], grad_fn=<MulBackward0>) tensor([2., 3., 4.], grad_fn=<AddBackward0>) tensor(2., grad_fn=<MeanBackward0>) tensor([0., 1., 2.], grad_fn=<SubBackward0>) tensor([0.5000, 1.0000, 1.5000], grad_fn=<DivBackward0>) tensor(0.7616, grad_fn=<SelectBackward0>) tensor(14., grad_fn=<DotBackward0>)
tensor([2., 4., 6.])
tensor([5., 7., 9.])
None
tensor([1., 4., 9.])
tensor([ 2.,  2., 12.])
)");
}

TEST(VmAutograd, GradModesDetachCloneAndRetainGrad) {
    expectOutput(R"(import torch
x = torch.tensor([1.0, -2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    with torch.enable_grad():
        w = x * 2
    print(torch.is_grad_enabled())
print(y.requires_grad, w.requires_grad, torch.is_grad_enabled(), y.grad_fn is None)
d = x.detach()
print(d.requires_grad, d.is_leaf)
c = x.clone()
print(c.requires_grad, c.is_leaf)
c.sum().backward()
print(x.grad)

@torch.no_grad()
def doubled(t):
    return t * 2

print(doubled(x).requires_grad)
h = x * 3
h.retain_grad()
out = (h * h).sum()
out.backward()
print(h.grad, x.grad, h.retains_grad, x.retains_grad)
t = torch.ones(2)
print(t.requires_grad, t.is_leaf)
t.requires_grad_()
print(t.requires_grad)
i = torch.tensor([1, 2])
try:
    i.requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    h.requires_grad = False
except RuntimeError as e:
    print("RuntimeError:", e)
)",
                 R"(False
False True True True
False True
True False
tensor([1., 1.])
False
tensor([  6., -12.]) tensor([ 19., -35.]) True False
False True
True
RuntimeError: only Tensors of floating point dtype can require gradients
RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().
)");
}

TEST(VmAutograd, ErrorsUsePyTorchsWording) {
    expectOutput(R"(import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    (x * x).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.tensor([1.0]).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x[0] = 5.0
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    x.add_(1)
    x[0] = 5.0
print(x)
x.grad = None
s = (x * 2).sum()
s.backward(retain_graph=True)
s.backward()
print(x.grad)
a = (x + 1).sum()
a.backward()
a.backward()
print(x.grad)
try:
    (x * x).backward(torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.grad = torch.ones(3)
except RuntimeError as e:
    print("RuntimeError:", e)
)",
                 R"(RuntimeError: grad can be implicitly created only for scalar outputs
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
tensor([5., 3.], requires_grad=True)
tensor([4., 4.])
tensor([6., 6.])
RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([2]).
RuntimeError: attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the gradient and the tensor are the same size
)");
}

TEST(VmAutograd, InPlaceOpsOnNonLeavesAndVersionCounter) {
    expectOutput(R"(import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 2
h.add_(1)
h.mul_(x)
h -= x
print(h)
h.sum().backward()
print(x.grad)
w = torch.tensor([1.0, 2.0], requires_grad=True)
out = torch.zeros(3)
out[1:] = w * 2
print(out.requires_grad, out.is_leaf)
(out * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(w.grad)
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = a * 1
b[0, 1] = 0.0
b.sum().backward()
print(a.grad)
p = torch.tensor([0.5, -0.5, 2.0], requires_grad=True)
q = p * 2
q.relu_()
q.sum().backward()
print(p.grad)
r = torch.tensor([1.0, 2.0], requires_grad=True)
s = r * 1
t = s * s
s.add_(1)
try:
    t.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
e = r.exp()
e.add_(1)
try:
    e.sum().backward()
    print(r.grad)
except RuntimeError as err:
    print("RuntimeError:", err)
u = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    (u // 2).sum().backward()
except RuntimeError as err:
    print("RuntimeError:", err)
)",
                 R"(tensor([2., 8.], grad_fn=<SubBackward0>)
tensor([4., 8.])
True False
tensor([4., 6.])
tensor([[1., 0.],
        [1., 1.]])
tensor([2., 0., 2.])
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of AddBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
RuntimeError: derivative for aten::floor_divide is not implemented
)");
}

TEST(VmAutograd, ModuleZeroGradAndRequiresGrad) {
    expectOutput(R"(import torch
import torch.nn as nn
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
    lin.bias.copy_(torch.tensor([0.01, -0.02]))
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
loss = lin(x).pow(2).sum()
loss.backward()
print(lin.weight.grad)
print(lin.bias.grad)
lin.zero_grad(set_to_none=False)
print(lin.weight.grad)
lin.zero_grad()
print(lin.weight.grad)
lin.requires_grad_(False)
print(lin.weight.requires_grad, lin(x).requires_grad)
)",
                 R"(tensor([[ 0.4000,  2.8500,  5.3000],
        [ 1.9000, -3.0500, -8.0000]])
tensor([ 2.0400, -3.5800])
tensor([[0., 0., 0.],
        [0., 0., 0.]])
None
False False
)");
}

TEST(VmAutograd, GradFnNamesMatchPyTorch) {
    expectOutput(R"(import torch
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
)",
                 "['SumBackward1', 'SoftmaxBackward0', 'LogSoftmaxBackward0', 'AmaxBackward0', 'MaxBackward0', 'MaxBackward1', "
                 "'VarBackward0', 'StdBackward0', 'ViewBackward0', 'ViewBackward0', 'PermuteBackward0', 'TransposeBackward0', "
                 "'TBackward0', 'UnsqueezeBackward0', 'SqueezeBackward1', 'ExpandBackward0', 'ViewBackward0', 'CatBackward0', "
                 "'StackBackward0', 'SplitBackward0', 'SplitBackward0', 'SliceBackward0', 'SelectBackward0', 'IndexBackward0', "
                 "'TriuBackward0', 'TrilBackward0', 'ToCopyBackward0', 'None', 'ToCopyBackward0', 'NativeLayerNormBackward0', "
                 "'GeluBackward0', 'SiluBackward0', 'ReluBackward0', 'WhereBackward0', 'ClampBackward1', 'MaximumBackward0', "
                 "'MaskedFillBackward0', 'MeanBackward1', 'None', 'CloneBackward0', 'ExpBackward0', 'AbsBackward0', 'NegBackward0', "
                 "'SigmoidBackward0', 'PowBackward0', 'PowBackward2', 'NotImplemented', 'RemainderBackward0', 'RsubBackward1', "
                 "'AddmmBackward0', 'MmBackward0', 'MmBackward0', 'BmmBackward0', 'None', 'MseLossBackward0', 'NllLossBackward0', "
                 "'EmbeddingBackward0', 'MinBackward0', 'AminBackward0']\nExpBackward0\n");
}

TEST(VmAutograd, AutogradBackwardInPlaceActivationsAndAModel) {
    // y = relu(2x) in place, so dy/dx = 2 where x > 0; z = x * x; torch.autograd.backward sums both roots' grads.
    expectOutput(R"(import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = F.relu(x * 2, inplace=True)
z = x * x
torch.autograd.backward([y.sum(), z], [None, torch.tensor([1.0, 1.0, 0.5])])
print(x.grad.tolist())
model = nn.Sequential(nn.Linear(4, 3), nn.GELU(), nn.LayerNorm(3), nn.Linear(3, 2))
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
data = torch.sin(torch.arange(20, dtype=torch.float32).reshape(5, 4))
target = torch.tensor([0, 1, 1, 0, 1])
first = None
for step in range(30):
    opt.zero_grad()
    loss = F.cross_entropy(model(data), target)
    loss.backward()
    opt.step()
    first = loss.item() if first is None else first
print(loss.item() < first, all(p.grad is not None for p in model.parameters()))
)",
                 "[4.0, -4.0, 5.0]\nTrue True\n");
}

// h[0] += h[1] updates a view of h in place: h's history becomes PyTorch's CopySlices. With h = 2x,
// L = sum(h * h) gives dL/dx0 = 4 h0 and dL/dx1 = 4 h0 + 4 h1 (h0 = [8, 12], h1 = [6, 8]).
TEST(VmAutograd, InPlaceOnAViewRewritesTheBase) {
    expectOutput(R"(import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
h = x * 2
h[0] += h[1]
print(h, type(h.grad_fn).__name__)
(h * h).sum().backward()
print(x.grad)
try:
    x[0].add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
)",
                 R"(tensor([[ 8., 12.],
        [ 6.,  8.]], grad_fn=<CopySlices>) CopySlices
tensor([[32., 48.],
        [56., 80.]])
RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
)");
}

// retain_grad() follows the tensor through an in-place op: h.grad is d/dh of sum(h * h) = 2 h, h = 2x + 1.
TEST(VmAutograd, RetainGradSurvivesInPlaceOps) {
    expectOutput(R"(import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 2
h.retain_grad()
h.add_(1)
(h * h).sum().backward()
print(h.grad, x.grad)
)",
                 "tensor([ 6., 10.]) tensor([12., 20.])\n");
}

// A small attention block (embedding, layer_norm, split views, causal SDPA, GELU, cross_entropy) trained with
// AdamW and then SGD with Nesterov momentum: losses and gradient norms as PyTorch 2.11 printed them.
TEST(VmAutograd, AttentionBlockTrainsLikePyTorch) {
    vmtest::ScriptRun run = vmtest::runScript(R"(import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 8)
        self.ln = nn.LayerNorm(8)
        self.qkv = nn.Linear(8, 24)
        self.proj = nn.Linear(8, 8)
        self.head = nn.Linear(8, 11)

    def forward(self, idx):
        h = self.emb(idx)
        x = self.ln(h)
        q, k, v = self.qkv(x).split(8, dim=-1)
        B, T, C = q.shape
        q = q.view(B, T, 2, 4).transpose(1, 2)
        k = k.view(B, T, 2, 4).transpose(1, 2)
        v = v.view(B, T, 2, 4).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = a.transpose(1, 2).contiguous().view(B, T, C)
        h = h + self.proj(a)
        h = h + F.gelu(h) * torch.sigmoid(h.mean(-1, keepdim=True))
        return self.head(h)


model = Block()
k = 0
with torch.no_grad():
    for p in model.parameters():
        p.copy_((torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.37 + k) * 0.3).reshape(p.shape))
        k += 1
opt = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.1)
idx = (torch.arange(24) * 7 % 11).reshape(3, 8)
tgt = (torch.arange(24) * 5 % 11).reshape(3, 8)
for step in range(5):
    opt.zero_grad()
    logits = model(idx)
    loss = F.cross_entropy(logits.view(-1, 11), tgt.view(-1))
    loss.backward()
    gn = sum((p.grad ** 2).sum() for p in model.parameters()).sqrt()
    opt.step()
    print(f"{loss.item():.5f} {gn.item():.5f}")
sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
for step in range(3):
    sgd.zero_grad()
    out = model(idx)
    loss = F.mse_loss(out.softmax(-1).max(-1).values, torch.ones(3, 8) * 0.5) + out.var() * 0.01 + out.std(-1).amax() * 0.1
    loss.backward()
    sgd.step()
    print(f"{loss.item():.5f}")
)");
    ASSERT_TRUE(run.ok) << run.error;
    const std::vector<double> expected = {2.55252, 0.62353, 2.29156, 0.34025, 2.13122, 0.34910, 1.97413, 0.37341,
                                          1.80446, 0.30728, 0.29009, 0.26292, 0.23054};
    std::istringstream printed(run.out);
    std::vector<double> actual;
    for (double v; printed >> v;) actual.push_back(v);
    ASSERT_EQ(actual.size(), expected.size()) << run.out;
    // Printed to 5 decimals: a last-digit difference is float32 rounding.
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 2e-5) << "value " << i;
}

}  // namespace
