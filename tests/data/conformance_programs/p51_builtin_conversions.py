# Builtin conversions and str/int/float methods in compiled code: int() and float() of strings, str() of numbers,
# bool() of containers, chr/ord, round with digits, abs() and pow() of tensors, int.bit_length, float.is_integer,
# zfill/partition/rsplit/count/find/upper/strip/isdigit, enumerate(start=), zip(strict=True), max with key and
# default, tuple.count/index, and sum of lists with a start.
import torch


def conversions(x):
    text = "  12,7,30  "
    parts = text.strip().rsplit(",", 1)
    head, sep, tail = "key=value=2".partition("=")
    nums = [int(p) for p in parts[0].split(",")] + [int(parts[1])]
    facts = [int("12") + float("2.5"), len(str(3.25)), bool([]), bool({"a": 0}), ord("a") - ord(chr(98)),
             round(2.675, 2) * 1000, round(7.5), (37).bit_length(), (4.0).is_integer(), "7".zfill(3) == "007",
             len(tail), head.upper() == "KEY", "banana".count("an"), "banana".find("na"), "x1".isdigit(),
             sum(nums), max(nums, key=lambda v: -v), max([], default=-5), (1, 2, 1, 3).count(1), (4, 5, 6).index(6),
             len(sum([[1], [2, 3]], [])), sep == "="]
    y = abs(x - 2) + pow(x, 2)
    for i, v in enumerate(nums, start=1):
        y = y + i * v
    for a, b in zip([1, 2], [3, 4], strict=True):
        y = y - a * b
    return y, torch.tensor([float(f) for f in facts], device=x.device)


opt_conversions = torch.compile(conversions, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    y, facts = opt_conversions(x)
    return [y, facts]
