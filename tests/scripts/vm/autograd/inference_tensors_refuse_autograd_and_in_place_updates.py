# torch.inference_mode: tensors allocated inside are inference tensors (views of them too, anywhere; views of normal
# tensors stay normal); outside inference mode autograd refuses to save one, in-place ops and requires_grad_ refuse to
# change one, with PyTorch's messages, and a clone is a normal tensor. Grad mode is the opposite of the mode (also for
# inference_mode(False)); the decorator form works.
# expect: inside True False
# expect: made inside True False False
# expect: outside False True [2.0, 2.0, 2.0]
# expect: views and copies True True False False
# expect: save: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.
# expect: not saved 15.0 False [1.0, 1.0, 1.0]
# expect: inplace: Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.
# expect: setitem: Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.
# expect: requires_grad: Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.
# expect: clone False [5.0, 5.0, 5.0] [4.0, 4.0, 4.0]
# expect: in inference mode [5.0, 5.0, 5.0]
# expect: nested False True False
# expect: decorated True True
# expect: no_grad is not inference_mode False
import torch

x = torch.ones(3)
with torch.inference_mode():
    print("inside", torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    y = x * 4
    v = x[1:]
    x.add_(1)  # a normal tensor may change in inference mode
    print("made inside", y.is_inference(), v.is_inference(), x.is_inference())
print("outside", torch.is_inference_mode_enabled(), torch.is_grad_enabled(), x.tolist())
print("views and copies", y[:2].is_inference(), y.view(3, 1).is_inference(), y.clone().is_inference(), (y + 1).is_inference())

w = torch.ones(3, requires_grad=True)
try:
    (w * y).sum()  # MulBackward0 saves y
except RuntimeError as e:
    print("save:", e)
total = (w + y).sum()  # AddBackward0 saves nothing
total.backward()
print("not saved", total.item(), total.is_inference(), w.grad.tolist())

try:
    y.add_(1)
except RuntimeError as e:
    print("inplace:", e)
try:
    y[0] = 5.0
except RuntimeError as e:
    print("setitem:", e)
try:
    y.requires_grad_()
except RuntimeError as e:
    print("requires_grad:", e)
z = y.clone()
z.add_(1)
print("clone", z.is_inference(), z.tolist(), y.tolist())
with torch.inference_mode():
    y.add_(1)
print("in inference mode", y.tolist())

with torch.inference_mode():
    with torch.inference_mode(False):
        n = x * 2
        print("nested", torch.is_inference_mode_enabled(), torch.is_grad_enabled(), n.is_inference())


@torch.inference_mode()
def triple(t):
    return t * 3


print("decorated", triple(x).is_inference(), torch.is_grad_enabled())
with torch.no_grad():
    print("no_grad is not inference_mode", (x * 2).is_inference())
