# Sequences in compiled code: star-unpacking in the middle, nested unpacking in a for loop, zip(*rows) as a
# transpose, list repetition, tuple concatenation, negative-step slices, reversed(range()), range indexing and
# len, list comparison, torch.Size arithmetic (shape + (1,), shape[::-1], numel()).
import torch


def sequences(x):
    first, *mid, last = [1, 2, 3, 4, 5]
    acc = x * (first + last) + sum(mid)
    pairs = [(1, (2, 3)), (4, (5, 6))]
    for i, (a, (b, c)) in enumerate(pairs):
        acc = acc + (a * b - c) * (i + 1)
    cols = list(zip(*[[1, 2, 3], [4, 5, 6]]))
    rep = [0] * 3 + [1] * 2
    tup = (1, 2) + (3,)
    back = [10, 20, 30, 40][::-2]
    rr = list(reversed(range(1, 7, 2)))
    r = range(2, 20, 3)
    less = [1, 2, 3] < [1, 3] and (1, 2) <= (1, 2)
    new_shape = x.shape + (1,)
    flipped = x.shape[::-1]
    score = cols[2][1] + len(rep) + sum(tup) + back[0] + rr[0] + r[2] + len(r) + r.index(11) + less * 100
    return acc.reshape(new_shape).squeeze(-1) * score + flipped[0] + torch.Size([2, 3]).numel()


opt_sequences = torch.compile(sequences, backend="eager")


def main(device):
    return [opt_sequences(torch.ones(2, 3, device=device))]
