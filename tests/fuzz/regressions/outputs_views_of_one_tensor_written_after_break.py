# Found next to setitem_on_clone_writes_source: outputs that are one tensor eagerly (v0 and its views v1, v2) came out of the inductor as separate buffers, so a write to v1 after the graph break did not show in v0 and v2. They are now views of one buffer.
import torch


def f(b):
    v0 = b * 2
    v1 = v0[0]
    v2 = v0.t()
    torch._dynamo.graph_break()
    v1.fill_(7.0)
    return [v0, v1, v2]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [3]:
        b = (torch.sin(torch.arange(2*n, dtype=torch.float32, device=device) * 0.37 + 1)).reshape(2, n, )
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
