# The functions whose kernels tests/unit/engine/inductor/graph/fusion_test.cpp checks (how many, what each fuses,
# the reasons recorded): main(name) compiles one case's f, runs it twice, and returns [compiled, eager] results.
import torch
import torch.nn.functional as F

y = torch.tensor([1, 0, 9, 3, 3, 7])
mask = torch.rand(6, 6) > 0.3
w = torch.randn(96, 32)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


model = MLP()
for p in model.parameters():
    p.requires_grad_(False)


def pointwise_chain(x):
    return torch.relu(x * 2 + 1).sin() * torch.sigmoid(x)


def softmax_row(x):
    return torch.softmax(x, dim=-1)


def loss_tail(x):
    p = torch.softmax(x, dim=-1)
    return F.cross_entropy(x, y) + (p * p).sum() * 0.01 - F.log_softmax(x, dim=1).mean() * 0.1


def softmax_and_log_softmax(x):
    return torch.softmax(x, dim=-1), F.log_softmax(x, dim=-1)


def layer_norm_with_affine(x):
    w = torch.ones(64) * 1.5
    return F.layer_norm(x, (64,), w, None, 1e-5)


def linear_gelu_linear(x):
    return model(x)


# CPU linears whose product oneDNN takes (every bfloat16 one, float32 from 2**21 multiply-adds): the bias is added
# in the matmul, no kernel of its own
linear_bf16 = torch.nn.Linear(24, 40).to(torch.bfloat16)
linear_large = torch.nn.Linear(128, 256)
for p in list(linear_bf16.parameters()) + list(linear_large.parameters()):
    p.requires_grad_(False)


def linear_bias_bf16(x):
    return linear_bf16(x)


def linear_bias_large(x):
    return linear_large(x)


# ... and the activation of the linear's only reader is oneDNN's eltwise post-op: no GELU or relu kernel either
def linear_gelu_large(x):
    return F.gelu(linear_large(x))


def linear_relu_large(x):
    return torch.relu(linear_large(x))


# query, key and value are the graph's input itself: nothing to copy before the matmuls
def causal_attention(x):
    q = x
    k = x
    v = x
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def masked_attention(x):
    q = x
    k = x
    v = x
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def scaled_attention(x):
    q = x
    k = x
    v = x
    return F.scaled_dot_product_attention(q, k, v, scale=0.3)


def sum_and_amax(x):
    return x.sum(dim=1), x.amax()


def row_sum_and_column_mean(x):
    return x.sum(dim=1), x.mean(dim=0)


def column_amax_and_row_sum_keepdim(x):
    return x.amax(dim=0, keepdim=True), x.sum(dim=1, keepdim=True)


def column_sums_with_pointwise_ops(x):
    return x.sum(dim=0), x.amin(dim=1) * 2, x.sum(dim=0) * 3 + 1


def three_dim_reductions(x):
    y = x.view(6, 5, 12)
    return y.sum(dim=(1, 2)), y.amax(dim=0).sin()


def pointwise_over_the_column_sizes(x):
    return x.sum(dim=1), x.sum(dim=0), x[0] * 2


# var(dim=0) reads mean(dim=0) at every element; x - c reads the column sums at every element
def row_sum_and_column_var(x):
    return x.sum(dim=1), x.var(dim=0)


def row_sum_and_centered_by_column_sums(x):
    r = x.sum(dim=1)
    c = x.sum(dim=0)
    return r, x - c


def view_read_three_times(x):
    y = x.permute(1, 0)
    return y + 1, y * 2, y.sum(dim=1)


def attention_over_a_projection(x):
    b, s, _ = x.shape
    qkv = F.linear(x, w).view(b, s, 3, 2, 16).permute(2, 0, 3, 1, 4)
    scores = qkv[0] @ qkv[1].transpose(-2, -1)
    return (scores.softmax(dim=-1) @ qkv[2]).transpose(1, 2).reshape(b, s, 32)


# name: (function, its input). The attention cases are 3-D: 4-D CPU ones call the flash kernel (one extern call, no
# kernels; tests/scripts/inductor/externs/cpu_sdpa_is_one_extern_call_and_equals_eager.py).
CASES = {
    "pointwise_chain": (pointwise_chain, lambda: torch.randn(4099)),
    "softmax_row": (softmax_row, lambda: torch.randn(33, 257)),
    "loss_tail": (loss_tail, lambda: torch.randn(6, 10)),
    "softmax_and_log_softmax": (softmax_and_log_softmax, lambda: torch.randn(6, 10)),
    "layer_norm_with_affine": (layer_norm_with_affine, lambda: torch.randn(10, 64) * 3 + 1),
    "linear_gelu_linear": (linear_gelu_linear, lambda: torch.randn(5, 16)),
    "linear_bias_bf16": (linear_bias_bf16, lambda: torch.randn(3, 7, 24).to(torch.bfloat16)),
    "linear_bias_large": (linear_bias_large, lambda: torch.randn(2, 32, 128)),
    "linear_gelu_large": (linear_gelu_large, lambda: torch.randn(2, 32, 128)),
    "linear_relu_large": (linear_relu_large, lambda: torch.randn(2, 32, 128)),
    "causal_attention": (causal_attention, lambda: torch.randn(8, 6, 8)),
    "masked_attention": (masked_attention, lambda: torch.randn(8, 6, 8)),
    "scaled_attention": (scaled_attention, lambda: torch.randn(8, 6, 8)),
    "sum_and_amax": (sum_and_amax, lambda: torch.randn(40, 24)),
    "row_sum_and_column_mean": (row_sum_and_column_mean, lambda: torch.randn(40, 24)),
    # enough work to split the rows over threads: each piece's column partials are combined
    "row_sum_and_column_mean_large": (row_sum_and_column_mean, lambda: torch.randn(300, 517)),
    "column_amax_and_row_sum_keepdim": (column_amax_and_row_sum_keepdim, lambda: torch.randn(30, 12)),
    "column_sums_with_pointwise_ops": (column_sums_with_pointwise_ops, lambda: torch.randn(30, 12)),
    "three_dim_reductions": (three_dim_reductions, lambda: torch.randn(30, 12)),
    "pointwise_over_the_column_sizes": (pointwise_over_the_column_sizes, lambda: torch.randn(40, 24)),
    "row_sum_and_column_var": (row_sum_and_column_var, lambda: torch.randn(40, 24)),
    "row_sum_and_centered_by_column_sums": (row_sum_and_centered_by_column_sums, lambda: torch.randn(40, 24)),
    "view_read_three_times": (view_read_three_times, lambda: torch.randn(24, 40)),
    "attention_over_a_projection": (attention_over_a_projection, lambda: torch.randn(2, 5, 32)),
}


def main(name):
    torch.manual_seed(0)
    f, make_input = CASES[name]
    x = make_input()
    compiled = torch.compile(f)
    got = compiled(x)
    got = compiled(x)
    want = f(x)
    return [got, want]
