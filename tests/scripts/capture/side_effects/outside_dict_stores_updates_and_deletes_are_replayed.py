# Stores, update() and del on a dict passed in are replayed; the dict has the same length on both calls,
# so the second call replays the cached entry's stores.
# expect: [4.0, 4.0] [6.0, 6.0] [4.0, 4.0] [3.0, 3.0] [5.0, 5.0] False 4
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch

@torch.compile
def f(x, d):
    d['k'] = x * 2
    d.update({'u': x + 1}, w=d['k'] + 1)
    del d['gone']
    return d['w'] + d['a']

def main():
    d = {'a': torch.ones(2), 'gone': 1, 'k': None, 'u': None, 'w': None}
    r1 = f(torch.ones(2), d)
    d['gone'] = 2
    r2 = f(torch.full((2,), 2.0), d)
    return [r1, r2, d['k'], d['u'], d['w'], 'gone' in d, len(d)]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
