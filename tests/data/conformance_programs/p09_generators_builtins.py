# Generators with builtins in compiled code: a generator defined in the frame closing over a tensor, zip of two
# generators, enumerate of a generator, sum/max/sorted/any/all over generator expressions, an early `return`.
import torch


def window(xs, size):
    for i in range(len(xs) - size + 1):
        yield xs[i:i + size]


def until_negative(values):
    for v in values:
        if v < 0:
            return
        yield v


def gen_ops(x):
    def shifted(k):
        for j in range(k):
            yield x + j

    total = sum(shifted(3))
    for i, (a, b) in enumerate(zip(shifted(2), window([1, 2, 3, 4], 2))):
        total = total + a * b[0] * (i + 1)
    nums = [3, 1, 4, -1, 5]
    kept = list(until_negative(nums))
    biggest = max(v * 2 for v in kept)
    order = sorted((v for v in kept), reverse=True)
    flag = any(v > 3 for v in kept) and all(v > 0 for v in kept)
    return total + biggest + order[0] * 10 + (100 if flag else 0)


opt_gen = torch.compile(gen_ops, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    return [opt_gen(x), opt_gen(x * 2)]
