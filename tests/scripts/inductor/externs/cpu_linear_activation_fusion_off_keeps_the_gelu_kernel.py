# CWB_CPU_EPILOGUE_FUSION=0 (to time the post-op against a pass of its own): the linear keeps only its bias in
# oneDNN's matmul and its reader's GELU is a generated kernel again, equal to eager.
# env: CWB_CPU_EPILOGUE_FUSION=0
# expect: True
# expect code: bias fused into the oneDNN matmul
# expect code: cwb_poi_fused_gelu
# expect no code: bias and gelu
import torch
import torch.nn.functional as F


def lin_gelu(x, w, b):
    return F.gelu(F.linear(x, w, b))


torch.manual_seed(0)
x, w, b = torch.randn(256, 128), torch.randn(256, 128) / 11.3, torch.randn(256)
with torch.no_grad():
    print((torch.compile(lin_gelu)(x, w, b) - lin_gelu(x, w, b)).abs().max().item() < 1e-5)
