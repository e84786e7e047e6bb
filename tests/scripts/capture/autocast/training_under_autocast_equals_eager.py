# A training step under torch.autocast("cpu", bfloat16), compiled with the inductor, against the same step run
# eagerly: the graph records _enter_autocast/_exit_autocast as Dynamo does, AOT Autograd writes the casts into
# the forward, and the backward runs in the dtypes the forward used.
import torch
import torch.nn.functional as F

def make_params():
    torch.manual_seed(0)
    return [torch.randn(16, 32, requires_grad=True), torch.randn(32, requires_grad=True),
            torch.randn(32, 5, requires_grad=True)]

def step(x, target, w1, b1, w2):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        h = F.gelu(F.linear(x, w1.t(), b1))
        logits = h @ w2
        loss = F.cross_entropy(logits, target)
    return loss, logits.dtype

torch.manual_seed(1)
x = torch.randn(8, 16)
target = torch.randint(0, 5, (8,))
eager_params = make_params()
compiled_params = make_params()
compiled = torch.compile(step)
agree = True
for i in range(3):
    loss, dtype = step(x, target, *eager_params)
    loss.backward()
    closs, cdtype = compiled(x, target, *compiled_params)
    closs.backward()
    agree = agree and dtype == cdtype and closs.dtype == loss.dtype
    agree = agree and torch.allclose(closs, loss, rtol=0.02, atol=0.02)
    with torch.no_grad():
        for p, q in zip(eager_params, compiled_params):
            agree = agree and p.grad.dtype == q.grad.dtype and torch.allclose(p.grad, q.grad, rtol=0.05, atol=0.05)
            p -= 0.1 * p.grad
            q -= 0.1 * q.grad
            p.grad = None
            q.grad = None
# expect: True torch.bfloat16 torch.float32
print(agree, cdtype, closs.dtype)
# expect unique_graphs: 1
# expect graph_code: _enter_autocast = torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, None)
# expect graph_code: _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = _exit_autocast = None
# expect graph: to_3: "bf16[32, 5][5, 1]cpu" = primals_4.to(torch.bfloat16)
# expect graph: to_4: "f32[8, 5][5, 1]cpu" = logits.to(torch.float32)
# expect no code: runs on the eager runtime
