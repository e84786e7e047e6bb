# math and operator on Python numbers in compiled code: sqrt/log2/floor/ceil/prod/gcd/isclose/inf, divmod and
# floor division/modulo of negative ints, pow with a modulus, bit operations, round half to even,
# operator.itemgetter/attrgetter/mul, min/max with a default.
import math
import operator

import torch


def numbers(x):
    n = x.shape[0]
    a = math.sqrt(n * 4) + math.log2(n * 2) + math.floor(2.7) + math.ceil(2.1)
    b = math.prod([2, 3, n]) + math.gcd(12, 18) + (1 if math.isclose(0.1 + 0.2, 0.3) else 0)
    q, r = divmod(-7, n)
    c = (-7 // 2) * 100 + (-7 % 3) * 10 + pow(3, 4, 5) + (0b1010 ^ 0b0110) + (5 << 2) + (n & 1)
    d = round(2.5) + round(3.5) + round(-0.5) + abs(-3) + int(-2.9) + int(float("inf") > 1e308)
    first = operator.itemgetter(1)([10, 20, 30])
    shape = operator.attrgetter("shape")(x)
    e = operator.mul(first, len(shape)) + min([], default=4) + max(3, n, key=lambda v: -v)
    return x * a + b + q + r + c + d + e + math.pi


opt_numbers = torch.compile(numbers, backend="eager")


def main(device):
    return [opt_numbers(torch.ones(4, device=device)), opt_numbers(torch.ones(3, device=device))]
