# .item() on a tensor with several elements, re-raised from an except clause.
import torch


def total(x):
    try:
        return x.item()
    except RuntimeError:
        raise


total(torch.ones(2))
