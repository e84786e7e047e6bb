# mode='reduce-overhead' on a GPU: the second call records a CUDA graph of the kernels and the cuBLASLt matmuls
# (bias fused into their epilogue) and later calls replay it. Compiled equals eager with changing inputs, an eager
# tensor allocated between replays is never overwritten, and from the second call on the output is the
# recording's buffer, overwritten by the next replay (as in PyTorch).
# requires: cuda
# expect: True 0 4
# expect unique_graphs: 1
# expect no code: runs on the eager runtime
# expect code: cudagraphs: the second call records a CUDA graph of the kernels and library calls
# expect code: bias fused into the cuBLASLt matmul epilogue
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(128, 32)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


torch.manual_seed(0)
model = MLP().to('cuda')
cmodel = torch.compile(model, mode='reduce-overhead')
worst = 0.0
bad = 0
aliased = 0
with torch.no_grad():
    for i in range(5):
        x = torch.sin(torch.arange(16 * 64, dtype=torch.float32, device='cuda').reshape(16, 64) * (0.1 + 0.07 * i))
        x2 = torch.cos(x * 3.0)
        got = cmodel(x)
        worst = max(worst, (got.clone() - model(x)).abs().max().item())
        y = torch.full((16, 32), float(i), device='cuda') + 1.0
        got2 = cmodel(x2)
        worst = max(worst, (got2 - model(x2)).abs().max().item())
        bad += int((y != float(i) + 1.0).sum().item())
        aliased += int(got.data_ptr() == got2.data_ptr())
print(worst < 1e-4, bad, aliased)
