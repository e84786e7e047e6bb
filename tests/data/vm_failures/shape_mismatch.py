# A broadcasting error inside a module's forward: the traceback names every frame down to the op.
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x) + torch.ones(5)


Head()(torch.ones(2, 4))
