# Training with torch.amp.GradScaler("cpu") compiled against eager: the model compiled with the scaler outside, and
# the whole step (forward, scaled backward, scaler.step, scaler.update) compiled. One step's input is inf, so its
# gradients are too: that step is skipped and the scale backs off, in both. Losses, scales and parameters agree.
# expect: True
# expect: True
import torch
from _lib.eager_comparison import same_as_eager
from _lib.models import MLP


def train(compile_model, compile_step):
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    run = torch.compile(model) if compile_model else model

    def step(x, y):
        opt.zero_grad()
        loss = ((run(x) - y) ** 2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

    step_fn = torch.compile(step) if compile_step else step
    torch.manual_seed(1)
    x = torch.randn(8, 16)
    y = torch.randn(8, 8)
    values = []
    for i in range(5):
        loss = step_fn(x * float("inf") if i == 2 else x, y)
        values.append(torch.zeros(()) if i == 2 else loss.detach())
        values.append(torch.tensor(scaler.get_scale()))
        for p in model.parameters():
            values.append(p.detach().clone())
    return values


eager = train(False, False)
print(same_as_eager([eager, train(True, False)]))
print(same_as_eager([eager, train(False, True)]))
