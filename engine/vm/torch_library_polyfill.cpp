// torch.library written in the subset: custom_op makes a CustomOpDef, a callable whose body runs as one opaque
// operator (no autograd through its inside, as a real operator's), with register_fake for its meta function and
// register_autograd, which routes calls through a torch.autograd.Function made of the given backward and
// setup_context, so gradients flow as PyTorch's autograd kernel for the op gives them.
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kTorchLibrary = R"PY(
import torch

_ops = {}


class CustomOpDef:
    def __init__(self, qualname, fn, mutates_args):
        if "::" not in qualname:
            raise ValueError("Expected name to be of the form \"namespace::opname\", but got " + qualname)
        if mutates_args != "unknown" and not isinstance(mutates_args, (tuple, list, set, str)):
            raise TypeError("mutates_args must be a tuple of argument names or \"unknown\"")
        self._qualname = qualname
        self._init_fn = fn
        self._mutates_args = mutates_args
        self._abstract_fn = None
        self._autograd = None
        self.__name__ = qualname.split("::")[1]
        _ops[qualname] = self

    def register_fake(self, fn):
        self._abstract_fn = fn
        return fn

    def register_kernel(self, device_types, fn=None):
        def registering(kernel):
            return kernel

        return registering if fn is None else registering(fn)

    def register_autograd(self, backward, *, setup_context=None):
        body = self._init_fn

        class _CustomOpFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                output = body(*args)
                if setup_context is not None:
                    setup_context(ctx, args, output)
                return output

            @staticmethod
            def backward(ctx, *grads):
                result = backward(ctx, *grads)
                return result if isinstance(result, tuple) else (result,)

        self._autograd = _CustomOpFunction

    def __call__(self, *args, **kwargs):
        if self._autograd is not None and not kwargs:
            return self._autograd.apply(*args)
        with torch.no_grad():
            return self._init_fn(*args, **kwargs)

    def __repr__(self):
        return "<CustomOpDef(" + self._qualname + ")>"


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    def inner(f):
        return CustomOpDef(name, f, mutates_args)

    return inner if fn is None else inner(fn)


def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1):
    target = _ops[op] if isinstance(op, str) else op

    def registering(f):
        return target.register_fake(f)

    return registering if fn is None else registering(fn)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    target = _ops[op] if isinstance(op, str) else op
    target.register_autograd(backward, setup_context=setup_context)
)PY";

}  // namespace

const char* torchLibraryPolyfillSource() { return kTorchLibrary; }

}  // namespace eng::vm
