// torch.func written in the subset: vmap maps a function over a batch dimension by calling it on each slice and
// stacking the results (torch.vmap is the same function). The capture engine inlines it like user code.
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kTorchFunc = R"PY(
import torch


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or 'same'. Got " + str(randomness))

    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, args, kwargs)

    return wrapped


def _mapped_dims(in_dims, args):
    if in_dims is None or isinstance(in_dims, int):
        return [in_dims] * len(args)
    if not isinstance(in_dims, (tuple, list)) or len(in_dims) != len(args):
        raise ValueError("vmap(func, in_dims=" + str(in_dims) + ", ...)(<inputs>): in_dims is not compatible with the structure of "
                         "`inputs`. in_dims has structure " + str(in_dims) + " but inputs has " + str(len(args)) + " arguments.")
    return list(in_dims)


def _vmap_call(func, in_dims, out_dims, args, kwargs):
    dims = []
    size = None
    for arg, dim in zip(args, _mapped_dims(in_dims, args)):
        if dim is None:
            dims.append(None)
            continue
        if not isinstance(arg, torch.Tensor):
            raise ValueError("vmap(func, in_dims=" + str(in_dims) + ", ...)(<inputs>): Got in_dim=" + str(dim) +
                             " for an input but the input is of type " + type(arg).__name__ +
                             ". We cannot vmap over non-Tensor arguments, please use None as the respective in_dim")
        dims.append(dim % arg.dim())
        n = arg.shape[dims[-1]]
        if size is None:
            size = n
        elif n != size:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes " +
                             str(size) + " and " + str(n) + " for the mapped dimension")
    if size is None:
        raise ValueError("vmap(func, in_dims=" + str(in_dims) + ", ...)(<inputs>): at least one input must be a Tensor "
                         "mapped over a dimension (in_dim that is not None)")
    slices = []
    results = []
    for i in range(size):
        sliced = []
        for j in range(len(args)):
            sliced.append(args[j] if dims[j] is None else args[j].select(dims[j], i))
        slices.append(sliced)
        results.append(func(*sliced, **kwargs))
    single = isinstance(results[0], torch.Tensor)
    count = 1 if single else len(results[0])
    outputs = []
    for k in range(count):
        column = []
        for r in results:
            item = r if single else r[k]
            if not isinstance(item, torch.Tensor):
                raise ValueError("vmap(func, ...): `func` must only return Tensors, got type " + type(item).__name__ +
                                 ". Did you mean to set out_dims= to None for output?")
            column.append(item)
        out_dim = out_dims[k] if isinstance(out_dims, (tuple, list)) else out_dims
        outputs.append(_batched_output(column, slices, args, dims, out_dim % (column[0].dim() + 1)))
    if single:
        return outputs[0]
    return list(outputs) if isinstance(results[0], list) else tuple(outputs)


def _batched_output(column, slices, args, dims, out_dim):
    # An in-place op on a batched input (torch.Tensor.acos_) gives back the input itself, as functorch unwraps it.
    for j in range(len(args)):
        if dims[j] is None:
            continue
        same = True
        for i in range(len(column)):
            same = same and column[i] is slices[i][j]
        if same:
            return args[j] if dims[j] == out_dim else args[j].movedim(dims[j], out_dim)
    return torch.stack(column, out_dim)
)PY";

}  // namespace

const char* funcPolyfillSource() { return kTorchFunc; }

}  // namespace eng::vm
