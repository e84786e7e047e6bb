# try/except/finally inside compiled code is traced through when nothing raises (the handlers are never reached),
# as Dynamo does.
# expect: [16.0, 16.0]
# expect: [8.0, 8.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile
def f(x):
    try:
        y = x + 1
    except ValueError:
        y = x - 1
    finally:
        y = y * 2
    try:
        z = y * 3
    except Exception:
        z = y
    try:
        return z + y
    finally:
        z = z * 0


print(f(torch.ones(2)).tolist())
print(f(torch.zeros(2)).tolist())
