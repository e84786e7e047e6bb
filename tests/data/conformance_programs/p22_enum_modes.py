# enum in compiled code: Enum members compared with `is` and `==`, .value and .name, IntEnum arithmetic, members
# as dict keys, an Enum argument (another member recompiles), iteration over the enum class.
import enum

import torch


class Mode(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class Level(enum.IntEnum):
    LOW = 1
    MID = 2
    HIGH = 3


WEIGHTS = {Mode.TRAIN: 0.5, Mode.EVAL: 2.0}


def run(x, mode, level):
    y = x * WEIGHTS[mode]
    if mode is Mode.TRAIN:
        y = y + 1
    if mode == Mode.EVAL and mode.value == "eval" and mode.name == "EVAL":
        y = y - 1
    y = y * (level + Level.LOW) + int(level) * 10
    n = len([m for m in Level if m >= level])
    return y + n * 100


opt_run = torch.compile(run, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    return [opt_run(x, Mode.TRAIN, Level.LOW), opt_run(x, Mode.EVAL, Level.LOW), opt_run(x, Mode.EVAL, Level.HIGH),
            opt_run(x, Mode.TRAIN, Level.LOW)]
