# torch.gather does not wrap negative indices (unlike x[idx]): PyTorch raises "index -1 is out of bounds for dimension
# 0 with size 3" for them, eagerly and compiled; in-range indices gather as before.
# expect: RuntimeError index -1 is out of bounds for dimension 0 with size 3
# expect: RuntimeError index -2 is out of bounds for dimension 1 with size 2
# expect: RuntimeError index -1 is out of bounds for dimension 0 with size 3
# expect: tensor([2., 0.]) tensor([3., 2.])
import torch


def gathered(x, index):
    return torch.gather(x, 0, index)


def raised(f):
    try:
        f()
    except RuntimeError as e:
        return f"RuntimeError {e}"
    return "no error"


x = torch.arange(3.)
print(raised(lambda: torch.gather(x, 0, torch.tensor([-1]))))
print(raised(lambda: torch.gather(torch.ones(2, 2), 1, torch.tensor([[0, -2]]))))
print(raised(lambda: torch.compile(gathered)(x, torch.tensor([-1]))))
print(torch.gather(x, 0, torch.tensor([2, 0])), torch.compile(gathered)(x + 1, torch.tensor([2, 1])))
