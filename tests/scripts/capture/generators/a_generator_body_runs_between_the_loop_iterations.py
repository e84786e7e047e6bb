# A generator consumed in the compiled frame runs lazily, as in Python: its body (appending to a list the loop
# reads) runs between the loop's iterations, through enumerate and zip too, so the compiled values equal eager's.
# expect: [1.0, 2.0, 3.0]
# expect: [2.0, 4.0, 6.0]
# expect graph_breaks: 0
# expect unique_graphs: 2
import torch


def produce(x, log):
    for i in range(3):
        log.append(i)
        yield x + i


@torch.compile(backend="eager")
def interleaved(x):
    log = []
    out = []
    for i, v in enumerate(produce(x, log)):
        out.append(v * 0 + len(log))
    return torch.stack(out)


@torch.compile(backend="eager")
def zipped(x):
    log = []
    total = []
    for a, b in zip(produce(x, log), [10, 20, 30]):
        total.append(a * 0 + len(log) + len(log) - 1 + b * 0)
    return torch.stack(total) + 1


print(interleaved(torch.zeros(())).tolist())
print(zipped(torch.zeros(())).tolist())
