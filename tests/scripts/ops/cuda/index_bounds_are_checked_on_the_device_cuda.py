# requires: cuda
# CUDA index bounds are checked by the kernel that makes the positions (no value read back): an out-of-range index
# in index_put_, x[idx], gather and embedding raises the CPU's error at the next synchronisation (here .cpu()), once,
# and its entries write nothing; in-range negatives wrap, and the embedding backward's accumulating index_put equals the CPU's.
# expect: IndexError index 9 is out of bounds for dimension 0 with size 6
# expect: IndexError index -6 is out of bounds for dimension 1 with size 5
# expect: RuntimeError index 5 is out of bounds for dimension 1 with size 5
# expect: IndexError index out of range in self
# expect: untouched True
# expect: True True
import torch


def raised(f):
    try:
        f()
        torch.cuda.synchronize()
    except (IndexError, RuntimeError) as e:
        return f"{type(e).__name__} {e}"
    return "no error"


x = torch.randn(6, 5, device="cuda")
before = x.clone().cpu()
print(raised(lambda: x.index_put_((torch.tensor([9, -7], device="cuda"),), torch.ones(2, 5, device="cuda"), accumulate=True).cpu()))
print(raised(lambda: x[:, torch.tensor([1, -6], device="cuda")].cpu()))
print(raised(lambda: torch.gather(x, 1, torch.tensor([[0], [5]], device="cuda")).cpu()))
weight = torch.randn(10, 3, device="cuda")
print(raised(lambda: torch.nn.functional.embedding(torch.tensor([3, 10], device="cuda"), weight).cpu()))
print("untouched", torch.equal(x.cpu(), before))

tokens = torch.randint(-10, 10, (300,))
grads = torch.randn(300, 3)
want = torch.zeros(10, 3).index_put_((tokens,), grads, accumulate=True)
got = torch.zeros(10, 3, device="cuda").index_put_((tokens.cuda(),), grads.cuda(), accumulate=True)
rows = torch.tensor([-1, 0, 9, -10])
print(torch.allclose(got.cpu(), want, atol=1e-5), torch.equal(weight[rows.cuda()].cpu(), weight.cpu()[rows]))
