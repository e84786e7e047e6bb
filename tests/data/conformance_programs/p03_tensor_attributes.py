# Tensor attributes read in compiled code: ndim/dim(), T and mT, is_contiguous(), dtype.is_floating_point,
# element_size()/itemsize, layout, is_leaf/requires_grad, size(-1)/stride(); a new dtype or a transposed
# (non-contiguous) input recompiles.
import torch


def attrs(x):
    acc = x.float()
    if x.ndim == 2 and x.dim() == 2:
        acc = acc + x.T.float() * 0.5 + x.mT.float() * 0.25
    if x.is_contiguous():
        acc = acc + 1
    if x.dtype.is_floating_point:
        acc = acc * 2
    acc = acc + x.element_size() + x.itemsize * 0.5
    if x.layout == torch.strided:
        acc = acc + 3
    if x.is_leaf and not x.requires_grad:
        acc = acc + 0.5
    return acc * x.size(-1) + x.stride(0)


opt_attrs = torch.compile(attrs, backend="eager")


def main(device):
    x = torch.arange(9, dtype=torch.float32, device=device).reshape(3, 3)
    xi = torch.arange(9, dtype=torch.int64, device=device).reshape(3, 3)
    return [opt_attrs(x), opt_attrs(xi), opt_attrs(x.t()), opt_attrs(x.half())]
