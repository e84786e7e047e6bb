# opt.step() called by a compiled training function: loss.backward() breaks the graph (Dynamo does not trace it),
# the resumed frame captures the optimizer step into its own graph, and three training steps leave the same
# parameters and Adam state as eager ones.
# expect: True True
# expect graph_breaks: 2
# expect code: _inference']
# expect no code: runs on the eager runtime
import torch

torch.manual_seed(0)
model = torch.nn.Linear(6, 3)
eager = torch.nn.Linear(6, 3)
eager.load_state_dict(model.state_dict())
opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.05)
eager_opt = torch.optim.AdamW(eager.parameters(), lr=0.02, weight_decay=0.05)
x = torch.randn(4, 6)
y = torch.randn(4, 3)


def train_step(m, o, x, y):
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    o.step()
    o.zero_grad()
    return loss


compiled = torch.compile(train_step)
for _ in range(3):
    compiled(model, opt, x, y)
    train_step(eager, eager_opt, x, y)
same = all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(model.parameters(), eager.parameters()))
state = all(torch.allclose(opt.state[a]["exp_avg_sq"], eager_opt.state[b]["exp_avg_sq"], rtol=1e-5, atol=1e-7)
            for a, b in zip(model.parameters(), eager.parameters()))
print(same, state)
