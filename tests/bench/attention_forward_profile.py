# One call of each attention forward case, for Nsight Compute (`ncu --kernel-name regex:flash_fwd|cwb_flash_attention`):
# [8, 12, 1024, 64] bfloat16 without and with the causal mask, under PyTorch (`python3 attention_forward_profile.py`,
# its FlashAttention backend forced) and cwb (`cwb run attention_forward_profile.py --device cuda`).
import torch
import torch.nn.functional as F

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"
SHAPE = (8, 12, 1024, 64)


def run_all():
    q = torch.randn(SHAPE, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(SHAPE, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(SHAPE, device="cuda", dtype=torch.bfloat16)
    for causal in (False, True):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
        print(f"PROFILED {IMPL} {'causal' if causal else 'full'} {float(out.float().abs().sum())}")


def main(spec=""):
    with torch.no_grad():
        run_all()


# cwb runs the module, then calls main(device).
if IMPL == "torch" and __name__ == "__main__":
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        main()
