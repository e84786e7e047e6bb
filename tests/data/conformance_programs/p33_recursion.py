# Recursion in compiled code: a recursive helper over an int depth, mutual recursion, a recursive closure
# defined in the frame walking a nested list of tensors, and a recursive sum; the depth argument is specialised.
import torch


def power_tower(x, depth):
    if depth == 0:
        return x
    return power_tower(x * 0.5 + 1, depth - 1)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def walk(x, depth):
    nested = [x, [x * 2, [x * 3, x * 4]], x * 5]

    def total(item):
        if isinstance(item, list):
            return sum(total(i) for i in item)
        return item

    y = power_tower(x, depth) + total(nested)
    return y + (10 if is_even(depth) else 20)


opt_walk = torch.compile(walk, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    return [opt_walk(x, 2), opt_walk(x, 3), opt_walk(x, 2)]
