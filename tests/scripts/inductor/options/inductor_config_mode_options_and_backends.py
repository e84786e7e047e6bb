# torch._inductor.config reads and assigns as PyTorch's config module does (nested triton.*; an unknown name raises
# "... does not exist"); list_options() names the keys torch.compile's options accept, list_mode_options() what each
# mode turns on; what a program sets in the config reaches the next compile as options={...} would (freezing set in
# the config compiles with freezing on); list_backends(None) adds the debugging backends.
# expect: {'max_autotune': True, 'triton.cudagraphs': True, 'coordinate_descent_tuning': True}
# expect: ['default', 'reduce-overhead', 'max-autotune-no-cudagraphs', 'max-autotune'] {}
# expect: True False False True
# expect: torch._inductor.config.nope does not exist
# expect: Unrecognized mode=fast, should be one of: default, reduce-overhead, max-autotune-no-cudagraphs, max-autotune
# expect: [0.0, 2.0]
# expect: [2.0]
# expect: True True False
import torch

print(torch._inductor.list_mode_options("max-autotune"))
print(list(torch._inductor.list_mode_options().keys()), torch._inductor.list_mode_options("default"))
options = torch._inductor.list_options()
print("max_autotune" in options and "triton.cudagraphs" in options, torch._inductor.config.max_autotune,
      torch._inductor.config.triton.cudagraphs, torch._inductor.config.epilogue_fusion)
try:
    torch._inductor.config.nope = 1
except AttributeError as e:
    print(e)
try:
    torch._inductor.list_mode_options("fast")
except RuntimeError as e:
    print(e)


def f(x):
    return torch.sin(x) * 2


torch._inductor.config.max_autotune = True
print(torch.compile(f)(torch.tensor([0.0, 1.5707963])).round().tolist())
torch._inductor.config.freezing = True
print(torch.compile(f)(torch.tensor([1.5707963])).round().tolist())
print("eager" in torch._dynamo.list_backends(None), "inductor" in torch._dynamo.list_backends(),
      "eager" in torch._dynamo.list_backends())
