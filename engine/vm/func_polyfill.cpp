// torch.func written in the subset: vmap maps a function over a batch dimension by calling it on each slice and
// stacking the results (torch.vmap is the same function); the capture engine inlines it like user code. grad and
// grad_and_value differentiate through the autograd engine (torch.autograd.grad with create_graph, so an outer
// grad or backward sees through them); the capture engine records a call of one as a graph node.
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


class _GradTransform:
    """grad(func) / grad_and_value(func): called, the gradient of func's scalar output (and its value)."""

    def __init__(self, func, argnums, has_aux, with_value):
        self.func = func
        self.argnums = argnums
        self.has_aux = has_aux
        self.with_value = with_value

    # Not a frame Dynamo compiles (torch's own code; loops, not comprehensions, which would be frames of their own):
    # the function it differentiates is a user frame.
    @torch.compiler.disable
    def __call__(self, *args, **kwargs):
        api = "grad_and_value" if self.with_value else "grad"
        nums = (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)
        for n in nums:
            if not isinstance(n, int) or n >= len(args) or n < -len(args):
                raise RuntimeError("Got argnums=" + str(self.argnums) + ", but only " + str(len(args)) + " positional inputs")
            if not isinstance(args[n], torch.Tensor):
                raise RuntimeError(api + "(f)(*args): Expected argnums to index Tensors, got " + type(args[n]).__name__)
        outer = False
        for n in nums:
            outer = outer or (torch.is_grad_enabled() and args[n].requires_grad)
        args = list(args)
        with torch.enable_grad():
            for n in nums:
                a = args[n]
                args[n] = a.view_as(a) if a.requires_grad else a.detach().requires_grad_(True)
            output = self.func(*args, **kwargs)
            aux = None
            if self.has_aux:
                if not isinstance(output, tuple) or len(output) != 2:
                    raise RuntimeError(api + "(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, torch.Tensor):
                raise RuntimeError(api + "(f)(*args): Expected f(*args) to return a Tensor, got " + type(output).__name__)
            if output.dim() != 0:
                raise RuntimeError(api + "(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with " + str(output.dim()) +
                                   " dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            inputs = []
            for n in nums:
                inputs.append(args[n])
            found = torch.autograd.grad(output, inputs, create_graph=True, allow_unused=True)
        grads = []
        for g, n in zip(found, nums):
            g = torch.zeros_like(args[n]) if g is None else g
            grads.append(g if outer else g.detach())
        if not outer:
            output = output.detach()
        g = grads[0] if isinstance(self.argnums, int) else tuple(grads)
        value = (output, aux) if self.has_aux else output
        if self.with_value:
            return g, value
        return (g, aux) if self.has_aux else g


def grad(func, argnums=0, has_aux=False):
    return _GradTransform(func, argnums, has_aux, False)


def grad_and_value(func, argnums=0, has_aux=False):
    return _GradTransform(func, argnums, has_aux, True)


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
