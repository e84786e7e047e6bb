# torch.amp.GradScaler("cpu") eagerly, values worked out from PyTorch's rules: scale multiplies the loss by the scale,
# step unscales the gradients (times 1/scale) and runs the optimizer unless one of them is inf or NaN, update halves
# the scale after a skipped step and doubles it after growth_interval clean ones; unscale_ then step, and the errors
# of calling them twice.
# expect: True 8.0
# expect: [0.8, 1.6] 8.0 1
# expect: [0.64, 1.28] 16.0 0
# expect: [0.64, 1.28] 8.0 0
# expect: [0.512, 1.024] 8.0 1
# expect: [1.024, 2.048]
# expect: unscale_() has already been called on this optimizer since the last update().
# expect: step() has already been called since the last update().
# expect: [0.4096, 0.8192] 16.0
# expect: 4.0 {'scale': 4.0, 'growth_factor': 2.0, 'backoff_factor': 0.5, 'growth_interval': 2, '_growth_tracker': 0}
# expect: AssertionError Attempted unscale_ but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.
# expect: True 1.0 {} False
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
print(scaler.is_enabled(), scaler.get_scale())
# The third step's loss is inf: its gradients are too, so the step is skipped and the scale backs off.
for boost in [1.0, 1.0, float("inf"), 1.0]:
    opt.zero_grad()
    scaler.scale((w * w).sum() * boost).backward()
    scaler.step(opt)
    scaler.update()
    print([round(v, 4) for v in w.tolist()], scaler.get_scale(), scaler._get_growth_tracker())

opt.zero_grad()
scaler.scale((w * w).sum()).backward()
scaler.unscale_(opt)
print([round(v, 4) for v in w.grad.tolist()])
try:
    scaler.unscale_(opt)
except RuntimeError as e:
    print(e)
scaler.step(opt)
try:
    scaler.step(opt)
except RuntimeError as e:
    print(e)
scaler.update()
print([round(v, 4) for v in w.tolist()], scaler.get_scale())
scaler.update(4.0)
print(scaler.get_scale(), scaler.state_dict())

try:
    torch.amp.GradScaler("cpu").unscale_(opt)
except AssertionError as e:
    print(type(e).__name__, e)

off = torch.amp.GradScaler("cpu", enabled=False)
t = torch.ones(2)
print(off.scale(t) is t, off.get_scale(), off.state_dict(), off.is_enabled())
