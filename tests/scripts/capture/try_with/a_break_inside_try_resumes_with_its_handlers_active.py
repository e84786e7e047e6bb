# A graph break inside a try block resumes inside it with the handlers still active: the KeyError is caught.
# expect: in try
# expect: [13.0, 13.0]
# expect: in try
# expect: [13.0, 13.0]
import torch


@torch.compile
def f(x):
    y = x + 1
    try:
        print("in try")
        y = y * 2
        d = {}
        v = d['missing']
        y = y + 100
    except KeyError:
        y = y - 1
    finally:
        y = y + 10
    return y


print(f(torch.ones(2)).tolist())
print(f(torch.ones(2)).tolist())
