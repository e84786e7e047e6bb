# Dataclasses in compiled code: a global config with defaults and field(default_factory=...), __post_init__
# deriving a field, an instance made in the frame, generated __eq__, a frozen instance argument (a new one
# with other values recompiles), dataclasses.fields().
import dataclasses
from dataclasses import dataclass, field

import torch


@dataclass
class Config:
    width: int = 4
    dropout: float = 0.0
    names: list = field(default_factory=list)
    area: int = field(init=False, default=0)

    def __post_init__(self):
        self.area = self.width * self.width


@dataclass(frozen=True)
class Scale:
    factor: float
    shift: float = 1.0


CFG = Config(width=3, names=["a", "b"])


def configured(x, s):
    local = Config(width=2)
    same = local == Config(width=2)
    n_fields = len(dataclasses.fields(Config))
    y = x * s.factor + s.shift
    return y * CFG.area + local.area + len(CFG.names) * 10 + same * 100 + n_fields * 1000


opt_conf = torch.compile(configured, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_conf(x, Scale(2.0)), opt_conf(x, Scale(2.0)), opt_conf(x, Scale(0.5, 3.0))]
    CFG.names.append("c")
    out.append(opt_conf(x, Scale(2.0)))
    return out
