# Attention over a fused qkv tensor for the scaled_dot_product_attention programs: q, k and v split from one
# [b, s, 3 * 256] tensor into 4 heads of 64, and the same from a projection computed in the graph.
import torch.nn.functional as F


def heads(x, b, s, h, d):
    return x.view(b, s, h, d).transpose(1, 2)


def attn(qkv, causal: bool):
    b, s, _ = qkv.shape
    q, k, v = qkv.chunk(3, dim=-1)
    y = F.scaled_dot_product_attention(heads(q, b, s, 4, 64), heads(k, b, s, 4, 64), heads(v, b, s, 4, 64), is_causal=causal)
    return y.transpose(1, 2).reshape(b, s, 256)


def projected(x, w):
    # The projection is computed inside the graph: q, k and v are strided views of its buffer.
    b, s, _ = x.shape
    qkv = F.linear(x, w).view(b, s, 3, 4, 64).permute(2, 0, 3, 1, 4)
    y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    return y.transpose(1, 2).reshape(b, s, 256)
