# torch.multinomial is a random op: a compiled call draws what the eager call draws from the same seed (with and
# without replacement); without replacement each row's draws are distinct categories of non-zero weight. The SVD
# (torch.linalg.svd reduced and full, svdvals, torch.svd) gives singular values in descending order whose factors
# rebuild the matrix, compiled as eagerly; bad input raises PyTorch's errors.
# expect: True True
# expect: [[0, 2, 3], [0, 2, 3]]
# expect: [5.0, 3.0, 2.0] True True True
# expect: [5.0, 3.0, 2.0] (4, 4) (3, 3) True
# expect: cannot sample n_sample > prob_dist.size(-1) samples without replacement
# expect: probability tensor contains either `inf`, `nan` or element < 0
import torch


def draw(p):
    return torch.multinomial(p, 6, replacement=True), p.multinomial(3)


def decompose(a):
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    return s, u @ torch.diag(s) @ vh, torch.linalg.svdvals(a), torch.svd(a)


opt_draw = torch.compile(draw)
opt_decompose = torch.compile(decompose)
p = torch.tensor([[0.2, 0.0, 0.3, 0.5], [1.0, 0.0, 2.0, 3.0]])
torch.manual_seed(3)
eager = draw(p)
torch.manual_seed(3)
compiled = opt_draw(p)
print(torch.equal(eager[0], compiled[0]), torch.equal(eager[1], compiled[1]))
print(compiled[1].sort(dim=-1).values.tolist())
a = torch.tensor([[3.0, 0.0, 0.0], [0.0, -5.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
s, rebuilt, values, old = opt_decompose(a)
print([round(v, 4) for v in s.tolist()], torch.allclose(rebuilt, a, atol=1e-5), torch.allclose(values, s),
      torch.allclose(old.U @ torch.diag(old.S) @ old.V.mT, a, atol=1e-5))
u, s, vh = torch.linalg.svd(a)
print([round(v, 4) for v in s.tolist()], tuple(u.shape), tuple(vh.shape), torch.allclose(u.mT @ u, torch.eye(4), atol=1e-5))
for probs, n in [(p, 5), (torch.tensor([0.5, -0.1]), 1)]:
    try:
        torch.multinomial(probs, n)
    except RuntimeError as e:
        print(e)
