# Enum members in compiled code are Dynamo's EnumVariable: constants pinned by ID_MATCH, so `is`, `==`, .name/.value,
# IntEnum arithmetic, Color(1), Color['RED'] and members as dict keys fold into one graph, and another member
# recompiles. Iterating the enum class fails as in Dynamo (gb7312, at GET_ITER where it cannot resume): the graph
# ends at the last checkpoint and the rest of the frame runs eagerly, which is no graph break in the counters.
# expect: [11.0, 12.0, 13.0]
# expect: [0.0, 3.0, 6.0]
# expect: [11.0, 12.0, 13.0]
# expect: [102.0, 103.0, 104.0]
# expect unique_graphs: 3
# expect graph_breaks: 0
# expect recompiles: 1
# expect log: - 0/0: ___check_obj_id(mode, 
# expect log: Graph Break Reason: Encountered graph break that we cannot resume from
# expect log: failed to bind arguments when attempting to inline
import enum

import torch


class Mode(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


SCALE = {Mode.TRAIN: 1.0, Mode.EVAL: 3.0}


@torch.compile(backend="eager")
def step(x, mode):
    y = x * SCALE[mode]
    if mode is Mode.TRAIN and mode.value == "train" and Mode("train") is mode and Mode["TRAIN"] is mode:
        y = y + Level.HIGH * 4 - Level.LOW
    return y


@torch.compile(backend="eager")
def count(x, level):
    y = x + (level + Level.HIGH) * 25
    n = len([m for m in Level if m >= level])
    return y + n


x = torch.arange(3, dtype=torch.float32)
print(step(x, Mode.TRAIN).tolist())
print(step(x, Mode.EVAL).tolist())
print(step(x, Mode.TRAIN).tolist())
print(count(x, Level.LOW).tolist())
