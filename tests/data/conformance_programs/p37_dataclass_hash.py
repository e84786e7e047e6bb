# dataclass hashing as CPython's table sets it: unsafe_hash=True and frozen=True generate __hash__ from the fields
# (dict keys equal by value), eq=True alone makes instances unhashable, eq=False keeps identity, an explicit
# __hash__ with unsafe_hash=True is refused. Compiled: such keys break the graph inside a helper (Dynamo's reason for
# an overridden __hash__), and hash() of ints, floats, bools and tuples folds consistently with ==.
import dataclasses

import torch


@dataclasses.dataclass(unsafe_hash=True)
class Key:
    name: str
    size: int


@dataclasses.dataclass(frozen=True)
class FrozenKey:
    a: int
    b: int = 2


@dataclasses.dataclass
class Mutable:
    v: int


@dataclasses.dataclass(eq=False)
class ByIdentity:
    v: int


TABLE = {Key("w", 4): 2, FrozenKey(1): 5}


def eager_facts():
    facts = [Key("w", 4) in {Key("w", 4)}, TABLE[Key("w", 4)], TABLE[FrozenKey(1, 2)], hash(FrozenKey(1)) == hash((1, 2)),
             hash(Key("a", 1)) == hash(("a", 1)), Mutable.__hash__ is None, len({ByIdentity(1), ByIdentity(1)}),
             FrozenKey(3) == FrozenKey(3, 2), len({FrozenKey(1): 0, FrozenKey(1, 2): 1, FrozenKey(2): 2})]
    try:
        hash(Mutable(1))
        facts.append(0)
    except TypeError as e:
        facts.append(1 if str(e) == "unhashable type: 'Mutable'" else 2)
    try:
        @dataclasses.dataclass(unsafe_hash=True)
        class Explicit:
            v: int

            def __hash__(self):
                return 1
        facts.append(0)
    except TypeError as e:
        facts.append(1 if str(e) == "Cannot overwrite attribute __hash__ in class Explicit" else 2)
    return torch.tensor([float(f) for f in facts])


def lookup(k):
    return TABLE[k]


def keyed(x, k):
    y = x + 1
    return y * lookup(k)


def hashes(x):
    same = hash(1) == hash(1.0) and hash(True) == hash(1) and hash((1, 2.0)) == hash((1.0, 2))
    spread = hash((3, 4)) - hash((3, 4)) + hash(7) % 5 + hash(-3)
    return x * (2 if same else 3) + spread


opt_keyed = torch.compile(keyed, backend="eager")
opt_hashes = torch.compile(hashes, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    return [eager_facts(), opt_keyed(x, Key("w", 4)), opt_keyed(x, Key("w", 4)), opt_keyed(x, FrozenKey(1)), opt_hashes(x)]
