// Compiled training steps through AOT Autograd against eager: losses, gradients and parameters after several
// optimizer steps (SGD, Adam) on an MLP, a LayerNorm/GELU/softmax/cross-entropy block and an attention block,
// with the inductor backend (generated forward and backward code) and aot_eager; no_grad regions, inference
// calls, a dynamic-shape recompile, the partition's recompute choices, and the eager fallback with its reason.
#include <gtest/gtest.h>

#include "aot_test_support.h"

namespace {

using capturetest::CapturedRun;

using aottest::expectSameAsEager;

CapturedRun runTraining(const std::string& source) { return aottest::runWithAot(source); }

/// The output code of the AOT-compiled graphs (forward and backward in one row).
std::vector<const traces::OutputCode*> aotCode(const CapturedRun& run) {
    std::vector<const traces::OutputCode*> out;
    for (const auto& code : run.events.code)
        if (code.source.find("# AOT Autograd: joint graph") != std::string::npos) out.push_back(&code);
    return out;
}

const char* const kTrainLoop = R"(
def train(model, backend, steps, opt_name, inputs, targets, step_fn):
    run = torch.compile(model, backend=backend) if backend else model
    params = list(model.parameters())
    opt = torch.optim.Adam(params, lr=0.01) if opt_name == "adam" else torch.optim.SGD(params, lr=0.1, momentum=0.9)
    out = []
    for i in range(steps):
        opt.zero_grad()
        loss = step_fn(run, inputs, targets)
        loss.backward()
        out.append(loss.detach())
        for p in params:
            out.append(p.grad.clone())
        opt.step()
    for p in params:
        out.append(p.detach().clone())
    return out

def compare(make, backend, steps, opt_name, inputs, targets, step_fn):
    eager = train(make(), None, steps, opt_name, inputs, targets, step_fn)
    compiled = train(make(), backend, steps, opt_name, inputs, targets, step_fn)
    return [eager, compiled]
)";

std::string mlpScript(const std::string& backend, const std::string& optimizer) {
    return std::string(R"(
import torch
import torch.nn as nn
)") + aottest::kSmallMlp + R"(
def make():
    torch.manual_seed(0)
    return MLP()

def mse(run, x, y):
    return ((run(x) - y) ** 2).mean()
)" + kTrainLoop + R"(
def main():
    torch.manual_seed(1)
    x = torch.randn(8, 16)
    y = torch.randn(8, 8)
    return compare(make, ")" + backend + "\", 4, \"" + optimizer + R"(", x, y, mse)
)";
}

TEST(AotTraining, MlpSgdInductorMatchesEager) {
    CapturedRun run = runTraining(mlpScript("inductor", "sgd"));
    expectSameAsEager(run);
    ASSERT_EQ(aotCode(run).size(), 1u) << run.events.code.size();
    // Two output code rows, forward then backward, each with generated kernels, as TORCH_TRACE records them.
    ASSERT_EQ(run.events.code.size(), 2u);
    EXPECT_NE(run.events.code[0].source.find("# forward graph"), std::string::npos);
    EXPECT_NE(run.events.code[1].source.find("# AOT Autograd: backward graph"), std::string::npos);
    for (const auto& code : run.events.code) {
        EXPECT_EQ(code.filename, "cwb_inductor_output_code");
        EXPECT_GE(code.kernels.size(), 1u) << code.source;
    }
    std::vector<std::string> graphs;
    for (const auto& [key, graph] : run.events.graphs) graphs.push_back(graph.name);
    EXPECT_EQ(graphs, (std::vector<std::string>{"dynamo_output_graph", "aot_joint_graph", "aot_forward_graph", "aot_backward_graph",
                                                "inductor_post_grad_graph", "inductor_post_grad_graph"}));
}

TEST(AotTraining, MlpAdamAotEagerMatchesEager) {
    CapturedRun run = runTraining(mlpScript("aot_eager", "adam"));
    expectSameAsEager(run);
    ASSERT_EQ(aotCode(run).size(), 1u);
    EXPECT_EQ(aotCode(run).front()->filename, "cwb_aot_eager");
}

TEST(AotTraining, LayerNormGeluSoftmaxCrossEntropyBlockWithAdam) {
    CapturedRun run = runTraining(std::string(R"(
import torch
import torch.nn as nn
import torch.nn.functional as F
)") + aottest::kLayerNormBlock + std::string(R"(
def make():
    torch.manual_seed(0)
    return Block()

def loss_of(run, x, y):
    return run(x, y)
)") + kTrainLoop + R"(
def main():
    torch.manual_seed(2)
    x = torch.randn(6, 24)
    y = torch.tensor([1, 0, 9, 3, 3, 7])
    return compare(make, "inductor", 3, "adam", x, y, loss_of)
)");
    expectSameAsEager(run);
    EXPECT_EQ(aotCode(run).size(), 1u);
}

std::string attentionScript(const std::string& backend) {
    return std::string(R"(
import torch
import torch.nn as nn

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 16)
        self.v = nn.Linear(16, 16)
        self.proj = nn.Linear(16, 16)
        self.ln = nn.LayerNorm(16)

    def forward(self, x):
        b, t, c = x.shape
        h = self.ln(x)
        q = self.q(h).view(b, t, 4, 4).transpose(1, 2)
        k = self.k(h).view(b, t, 4, 4).transpose(1, 2)
        v = self.v(h).view(b, t, 4, 4).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * 0.5
        mask = torch.ones(t, t).tril() == 0
        att = att.masked_fill(mask, -1e9).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return x + self.proj(y)

def make():
    torch.manual_seed(0)
    return Attention()

def mse(run, x, y):
    return ((run(x) - y) ** 2).mean()
)") + kTrainLoop + R"(
def main():
    torch.manual_seed(3)
    x = torch.randn(2, 5, 16)
    y = torch.randn(2, 5, 16)
    return compare(make, ")" + backend + R"(", 3, "sgd", x, y, mse)
)";
}

TEST(AotTraining, CausalAttentionBlockAotEager) {
    CapturedRun run = runTraining(attentionScript("aot_eager"));
    expectSameAsEager(run);
    EXPECT_EQ(aotCode(run).size(), 1u);
}

TEST(AotTraining, CausalAttentionBlockInductor) {
    CapturedRun run = runTraining(attentionScript("inductor"));
    expectSameAsEager(run);
    EXPECT_EQ(aotCode(run).size(), 1u);
}

TEST(AotTraining, NoGradRegionsAndInferenceCalls) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x, w):
    h = torch.sin(x @ w)
    with torch.no_grad():
        scale = h.abs().mean() + 1.0
    return (h * scale).sum(), h

def run(fn):
    torch.manual_seed(4)
    x = torch.randn(4, 3)
    w = torch.randn(3, 5, requires_grad=True)
    loss, h = fn(x, w)
    loss.backward()
    with torch.no_grad():
        _, h2 = fn(x, w)
    return [loss.detach(), w.grad.clone(), h.detach(), h2, torch.tensor(float(h2.requires_grad))]

)"));
    expectSameAsEager(run);
    // The inference call under no_grad compiles its own graph (grad mode is part of the cache key), without AOT.
    EXPECT_EQ(aotCode(run).size(), 1u);
}

TEST(AotTraining, DynamicShapeRecompileCompilesBothGraphs) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x, w, b):
    return torch.nn.functional.gelu(x @ w + b).mean()

def run(fn):
    torch.manual_seed(5)
    w = torch.randn(6, 4, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    out = []
    for n in [8, 12, 5]:
        x = torch.randn(n, 6)
        loss = fn(x, w, b)
        loss.backward()
        out += [loss.detach(), w.grad.clone(), b.grad.clone()]
        w.grad = None
        b.grad = None
    return out

)"));
    expectSameAsEager(run);
    const auto code = aotCode(run);
    ASSERT_EQ(code.size(), 2u);  // the static first compile, then one dynamic graph for 12 and 5
    EXPECT_NE(code[1]->source.find("s0"), std::string::npos) << code[1]->source;
}

TEST(AotTraining, PartitionRecomputesPointwiseAndSavesMatmul) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x, w):
    return torch.cos(torch.sin(x @ w) * 3.0).sum()

def run(fn):
    torch.manual_seed(6)
    x = torch.randn(16, 32)
    w = torch.randn(32, 64, requires_grad=True)
    loss = fn(x, w)
    loss.backward()
    return [loss.detach(), w.grad.clone()]

)"));
    expectSameAsEager(run);
    ASSERT_EQ(aotCode(run).size(), 1u);
    const std::string& source = aotCode(run).front()->source;
    EXPECT_NE(source.find("#   saved matmul"), std::string::npos) << source;
    EXPECT_EQ(source.find("#   saved sin"), std::string::npos) << source;
    EXPECT_NE(source.find("recomputed in the backward: sin"), std::string::npos) << source;
}

TEST(AotTraining, UnsupportedDerivativeFallsBackWithReason) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x):
    return torch.cumsum(x * 2.0, dim=0).sum()

def run(fn):
    x = torch.arange(6.0).reshape(3, 2).requires_grad_()
    loss = fn(x)
    loss.backward()
    return [loss.detach(), x.grad.clone()]

)"));
    expectSameAsEager(run);
    ASSERT_EQ(run.events.code.size(), 1u);
    EXPECT_EQ(run.events.code[0].filename, "cwb_inductor_eager_fallback");
    EXPECT_NE(run.events.code[0].source.find("Reason: AOT Autograd: cumsum"), std::string::npos) << run.events.code[0].source;
}

TEST(AotTraining, InPlaceOpOnIntermediateIsFunctionalised) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x, w):
    h = x @ w
    h.mul_(2.0)
    h += 1.0
    return torch.tanh(h).sum()

def run(fn):
    torch.manual_seed(7)
    x = torch.randn(4, 3)
    w = torch.randn(3, 2, requires_grad=True)
    loss = fn(x, w)
    loss.backward()
    return [loss.detach(), w.grad.clone()]

)"));
    expectSameAsEager(run);
    EXPECT_EQ(aotCode(run).size(), 1u);
}

}  // namespace

namespace {

TEST(AotTraining, GradFreeInputMutationIsWrittenBack) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x, w, running):
    h = x @ w
    running.mul_(0.9).add_(h.detach().mean(0) * 0.1)
    return torch.relu(h).sum()

def run(fn):
    torch.manual_seed(8)
    x = torch.randn(6, 3)
    w = torch.randn(3, 4, requires_grad=True)
    running = torch.zeros(4)
    out = []
    for i in range(3):
        loss = fn(x, w, running)
        loss.backward()
        out += [loss.detach(), w.grad.clone(), running.clone()]
    return out

)"));
    expectSameAsEager(run);
    EXPECT_EQ(aotCode(run).size(), 1u);
}

TEST(AotTraining, SeveralResultsFromGradInputsFallBack) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x):
    return x.max(dim=1).values.sum() * 2.0

def run(fn):
    x = torch.tensor([[1.0, 3.0], [4.0, 2.0]], requires_grad=True)
    loss = fn(x)
    loss.backward()
    return [loss.detach(), x.grad.clone()]

)", "aot_eager"));
    expectSameAsEager(run);
    ASSERT_EQ(run.events.code.size(), 1u);
    EXPECT_NE(run.events.code[0].source.find("returns several values from inputs that require grad"), std::string::npos)
        << run.events.code[0].source;
}

}  // namespace

namespace {

TEST(AotTraining, DivisionPowersAndPiecewiseConstantOps) {
    CapturedRun run = runTraining(aottest::eagerAndCompiled(R"(
import torch

def f(x, w):
    h = x @ w
    r = torch.floor(h * 3.0)
    q = (h ** 3 - 2.0 / (h * h + 1.0)) / (w.sum() + 4.0)
    return r, (q * torch.sigmoid(h)).mean() + torch.sign(h).sum() * h.abs().mean()

def run(fn):
    torch.manual_seed(9)
    x = torch.randn(5, 4)
    w = torch.randn(4, 3, requires_grad=True)
    r, loss = fn(x, w)
    (loss + r.sum()).backward()
    return [loss.detach(), r.detach(), w.grad.clone(), torch.tensor(float(r.requires_grad))]

)"));
    expectSameAsEager(run);
    EXPECT_EQ(aotCode(run).size(), 1u);
}

}  // namespace

namespace {

// A GPT-2-style model: token and position embeddings with the token embedding tied to the output head, fused qkv
// split into heads, causal attention, LayerNorm, tanh-GELU MLP, cross_entropy over the flattened logits.
const char* const kTinyGpt = R"(import torch
import torch.nn as nn
import torch.nn.functional as F

class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // self.heads) ** 0.5)
        att = att.masked_fill(torch.ones(t, t).tril() == 0, -1e9)
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.c_proj(y)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))

class GPT(nn.Module):
    def __init__(self, vocab=50, d=32, layers=2, heads=4, block=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.h = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx, targets):
        b, t = idx.size()
        pos = torch.arange(0, t)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

def train(backend):
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = GPT()
    step = torch.compile(model, backend=backend) if backend else model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    torch.manual_seed(1)
    idx = torch.randint(0, 50, (2, 16))
    targets = torch.randint(0, 50, (2, 16))
    out = []
    for i in range(3):
        opt.zero_grad()
        loss = step(idx, targets)
        loss.backward()
        opt.step()
        out.append(loss.detach())
    out.append(model.wte.weight.detach().clone())
    out.append(model.h[0].c_attn.weight.detach().clone())
    return out

def main():
    return [train(None), train("inductor")]
)";

TEST(AotTraining, TinyGptWithTiedEmbeddingsAndAdamW) {
    CapturedRun run = runTraining(kTinyGpt);
    expectSameAsEager(run, 1e-4);
    ASSERT_EQ(aotCode(run).size(), 1u);
    for (const auto& code : run.events.code) EXPECT_EQ(code.filename, "cwb_inductor_output_code") << code.source.substr(0, 300);
}

}  // namespace
