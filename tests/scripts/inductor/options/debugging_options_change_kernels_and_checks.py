# Inductor options a user debugging a compiled model sets, each honoured: nan_asserts checks every buffer a kernel
# writes (AssertionError naming it) and lets finite results through, triton.unique_kernel_names=False names kernels
# by kind and number, max_fusion_size bounds what one kernel fuses (cpp.threads, which bounds a CPU kernel's threads, is accepted
# with them: its effect shows in the kernels' launch configurations).
# env: TORCHINDUCTOR_FX_GRAPH_CACHE=0
# expect: AssertionError nan_asserts: buf0 (written by cwb_poi_fused_cos_mul_sin_truediv_0) holds infinity
# expect: True
# expect: True
# expect code: cwb_poi_fused_cos_mul_sin_truediv_0(buf0, arg0_1)
# expect code: cwb_poi_3(buf3, buf2, arg
# expect code: buf1 -> cwb_poi_0: exceeds max fusion: the kernel has 1 buffers already
import torch


def f(x):
    return (x.sin() * 2).cos() / x


checked = torch.compile(f, options={"nan_asserts": True})
try:
    checked(torch.tensor([1.0, 0.0]))
except AssertionError as e:
    print("AssertionError", e)
print(checked(torch.ones(3)).tolist() == f(torch.ones(3)).tolist())
unfused = torch.compile(f, options={"triton.unique_kernel_names": False, "max_fusion_size": 1, "cpp.threads": 1})
x = torch.tensor([1.0, 2.0, 3.0])
print(torch.allclose(unfused(x), f(x)))
