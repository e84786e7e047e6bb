// Standard-library modules written in our Python subset (functools, itertools, operator, contextlib; torch.optim.optimizer's
// compiled-step entry), loaded on first
// import. Being Python, the capture engine inlines them like user code, as Dynamo inlines its polyfills, so
// their calls leave the same graphs.
#include <fmt/core.h>

#include <map>

#include "ops/operators.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kFunctools = R"PY(
class partial:
    def __init__(self, func, *args, **keywords):
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args, **keywords):
        merged = dict(self.keywords)
        merged.update(keywords)
        return self.func(*self.args, *args, **merged)


WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__")


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=()):
    for attr in assigned:
        if hasattr(wrapped, attr):
            setattr(wrapper, attr, getattr(wrapped, attr))
    wrapper.__wrapped__ = wrapped
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=()):
    return partial(update_wrapper, wrapped=wrapped, assigned=assigned, updated=updated)


def reduce(function, iterable, *initial):
    items = list(iterable)
    if len(initial) > 1:
        raise TypeError("reduce expected at most 3 arguments, got " + str(2 + len(initial)))
    if len(initial) == 1:
        value = initial[0]
        start = 0
    else:
        if len(items) == 0:
            raise TypeError("reduce() of empty iterable with no initial value")
        value = items[0]
        start = 1
    for element in items[start:]:
        value = function(value, element)
    return value


def _compiling():
    import torch

    return torch.compiler.is_compiling()


class _lru_cache_wrapper:
    # Eager calls are memoized (least recently used first out past maxsize); under capture the wrapped function is
    # traced on every call and the cache ignored, as Dynamo does for functools.lru_cache-wrapped functions.
    def __init__(self, func, maxsize, typed):
        update_wrapper(self, func)
        self._maxsize = maxsize
        self._typed = typed
        self._cache = {}
        self._hits = 0
        self._misses = 0

    def __call__(self, *args, **kwargs):
        if _compiling():
            return self.__wrapped__(*args, **kwargs)
        key = (args, tuple(sorted(kwargs.items())))
        if self._typed:
            key = key + tuple(type(a) for a in args)
        if key in self._cache:
            self._hits += 1
            value = self._cache.pop(key)
            self._cache[key] = value
            return value
        self._misses += 1
        value = self.__wrapped__(*args, **kwargs)
        if self._maxsize is None or self._maxsize > 0:
            self._cache[key] = value
            if self._maxsize is not None and len(self._cache) > self._maxsize:
                del self._cache[next(iter(self._cache))]
        return value

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return partial(self, obj)

    def cache_info(self):
        return (self._hits, self._misses, self._maxsize, len(self._cache))

    def cache_clear(self):
        self._cache = {}
        self._hits = 0
        self._misses = 0


def lru_cache(maxsize=128, typed=False):
    if callable(maxsize) and not isinstance(maxsize, bool):
        return _lru_cache_wrapper(maxsize, 128, typed)
    if maxsize is not None and maxsize < 0:
        maxsize = 0

    def decorating(func):
        return _lru_cache_wrapper(func, maxsize, typed)

    return decorating


def cache(func):
    return _lru_cache_wrapper(func, None, False)
)PY";


// The rest of `operator`; its operator functions are generated from ops/operators.def.
const char* kOperatorRest = R"PY(
def truth(a):
    return bool(a)


def is_(a, b):
    return a is b


def is_not(a, b):
    return a is not b


def contains(a, b):
    return b in a


def getitem(a, b):
    return a[b]


def setitem(a, b, c):
    a[b] = c


def delitem(a, b):
    del a[b]


def index(a):
    return int(a)


def itemgetter(*items):
    if len(items) == 1:
        item = items[0]
        return lambda obj: obj[item]
    return lambda obj: tuple(obj[i] for i in items)


def length_hint(obj, default=0):
    if not isinstance(default, int):
        raise TypeError("'" + type(default).__name__ + "' object cannot be interpreted as an integer")
    try:
        return len(obj)
    except TypeError:
        return default


def _dotted_getattr(obj, name):
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def attrgetter(*names):
    if len(names) == 1:
        name = names[0]
        return lambda obj: _dotted_getattr(obj, name)
    return lambda obj: tuple(_dotted_getattr(obj, n) for n in names)


def methodcaller(name, *args, **kwargs):
    return lambda obj: getattr(obj, name)(*args, **kwargs)
)PY";

// contextlib: contextmanager wraps a generator function in CPython's _GeneratorContextManager protocol. The
// normal path raises nothing (next() with a default instead of catching StopIteration), so a `with` on one made
// in a compiled frame is traced through: the generator runs to its yield at __enter__ and on to its end at __exit__.
const char* kContextlib = R"PY(
_exhausted = object()


class _GeneratorContextManager:
    def __init__(self, func, args, kwds):
        self.gen = func(*args, **kwds)
        self.func = func
        self.args = args
        self.kwds = kwds

    def __enter__(self):
        value = next(self.gen, _exhausted)
        if value is _exhausted:
            raise RuntimeError("generator didn't yield")
        return value

    def __exit__(self, typ, value, traceback):
        if typ is None:
            if next(self.gen, _exhausted) is _exhausted:
                return False
            raise RuntimeError("generator didn't stop")
        if value is None:
            value = typ()
        try:
            self.gen.throw(value)
        except StopIteration as exc:
            return exc is not value
        except RuntimeError as exc:
            if exc is value:
                return False
            if isinstance(value, StopIteration) and exc.__cause__ is value:
                return False
            raise
        except BaseException as exc:
            if exc is not value:
                raise
            return False
        raise RuntimeError("generator didn't stop after throw()")


def contextmanager(func):
    def helper(*args, **kwds):
        return _GeneratorContextManager(func, args, kwds)

    return helper


class nullcontext:
    def __init__(self, enter_result=None):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *excinfo):
        return False


class suppress:
    def __init__(self, *exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        return None

    def __exit__(self, exctype, excinst, exctb):
        return exctype is not None and issubclass(exctype, self._exceptions)


class ExitStack:
    # Exit callbacks run last-in first-out; one that returns true swallows the exception for the ones before it.
    def __init__(self):
        self._exit_callbacks = []

    def __enter__(self):
        return self

    def enter_context(self, cm):
        result = type(cm).__enter__(cm)
        self._exit_callbacks.append(lambda typ, value, tb: type(cm).__exit__(cm, typ, value, tb))
        return result

    def push(self, exit):
        self._exit_callbacks.append(exit)
        return exit

    def callback(self, callback, *args, **kwds):
        def _exit_wrapper(typ, value, tb):
            callback(*args, **kwds)

        self._exit_callbacks.append(_exit_wrapper)
        return callback

    def pop_all(self):
        new_stack = ExitStack()
        new_stack._exit_callbacks = self._exit_callbacks
        self._exit_callbacks = []
        return new_stack

    def close(self):
        self.__exit__(None, None, None)

    def __exit__(self, typ, value, tb):
        suppressed = False
        pending = value
        while self._exit_callbacks:
            cb = self._exit_callbacks.pop()
            if pending is None:
                cb(None, None, None)
            elif cb(type(pending), pending, None):
                suppressed = True
                pending = None
        return suppressed and typ is not None
)PY";

// torch.onnx: this runtime exports nothing, so no call ever runs inside an ONNX export (Dynamo folds it too).
const char* kTorchOnnx = R"PY(
def is_in_onnx_export():
    return False
)PY";

// torch.fx: no call of this runtime runs under symbolic tracing (Dynamo folds is_fx_tracing() to False too).
const char* kTorchFx = R"PY(
# torch.fx._symbolic_trace loads on first use, as an attribute of this module.
)PY";

const char* kTorchFxSymbolicTrace = R"PY(
def is_fx_tracing():
    return False
)PY";

// torch.backends.cuda.matmul: cuBLAS's switches at PyTorch's defaults (no TF32 for float32 matrix products, which
// is what engine/cuda's cuBLAS calls do too).
const char* kTorchBackends = R"PY(
# torch.backends.cuda loads on first use, as an attribute of this module.
)PY";

const char* kTorchBackendsCuda = R"PY(
class _CublasModule:
    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _CublasModule()
)PY";

// torch.jit: nothing is scripted or traced by TorchScript in this runtime, so its decorators give the function back
// and its annotations are the value itself (Dynamo inlines them the same way).
const char* kTorchJit = R"PY(
def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def _unwrap_optional(x):
    assert x is not None, "Unwrapping null optional"
    return x


def script_if_tracing(fn):
    return fn


def unused(fn):
    return fn


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    return lambda fn: fn
)PY";

// torch.distributed: the package is there (Dynamo folds is_available() to True as well); no process group is
// ever initialised in this runtime, so the default group's queries fail as PyTorch's do before init_process_group.
const char* kTorchDistributed = R"PY(
def is_available():
    return True


def is_initialized():
    return False


def _default_group_error():
    raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")


def get_rank(group=None):
    _default_group_error()


def get_world_size(group=None):
    _default_group_error()
)PY";

// torch.compile(opt.step) of a torch.optim optimizer compiles this frame: the capture engine captures the
// builtin step it calls (capture/symbolic_eval_optimizer.cpp), as Dynamo compiles Optimizer.step's wrapper frame.
const char* kOptimizer = R"PY(
def step(self, *args, **kwargs):
    return self.step(*args, **kwargs)
)PY";

/// `operator`: a function per binary operator (add, iadd, ...), comparison (lt, ...) and unary operator (neg,
/// invert, not_), then the rest.
std::string operatorModuleSource() {
    std::string source;
    for (size_t i = 0; i < ops::kBinaryOperators.size(); ++i) {
        const auto op = static_cast<ops::BinaryOperator>(i);
        const ops::BinaryOperatorInfo& info = ops::info(op);
        source += fmt::format("def {}(a, b):\n    return a {} b\n\n\n", info.function, info.symbol);
        source += fmt::format("def {}(a, b):\n    a {} b\n    return a\n\n\n", ops::operatorFunction(op, true),
                              info.inplaceSymbol);
    }
    for (const ops::CompareOperatorInfo& info : ops::kCompareOperators)
        source += fmt::format("def {}(a, b):\n    return a {} b\n\n\n", info.function, info.symbol);
    for (const ops::UnaryOperatorInfo& info : ops::kUnaryOperators)
        source += fmt::format("def {}(a):\n    return {} a\n\n\n", info.function, info.symbol);
    return source + kOperatorRest;
}

}  // namespace

/// itertools written in the subset (python_polyfills_itertools.cpp).
const char* itertoolsPolyfillSource();
/// torch.library (custom_op) written in the subset (torch_library_polyfill.cpp).
const char* torchLibraryPolyfillSource();
/// torch.amp.grad_scaler (GradScaler) written in the subset (grad_scaler_polyfill.cpp).
const char* gradScalerPolyfillSource();
/// torch.func (vmap) written in the subset (func_polyfill.cpp).
const char* funcPolyfillSource();
/// enum written in the subset (enum_polyfill.cpp).
const char* enumPolyfillSource();
/// torch.utils and torch.utils.checkpoint (autograd_function.cpp), or null.
const char* torchUtilsPolyfillSource(const std::string& module);
/// torch.storage and torch.distributed.fsdp._flat_param (tensor_storage.cpp), or null.
const char* tensorStoragePolyfillSource(const std::string& module);

const char* polyfillSource(const std::string& module) {
    static const std::string kOperator = operatorModuleSource();
    static const std::map<std::string, const char*> kSources = {
        {"functools", kFunctools}, {"itertools", itertoolsPolyfillSource()}, {"contextlib", kContextlib}, {"operator", kOperator.c_str()}, {"torch.optim.optimizer", kOptimizer},
                                                                  {"torch.onnx", kTorchOnnx}, {"torch.distributed", kTorchDistributed},
                                                                  {"torch.fx", kTorchFx}, {"torch.fx._symbolic_trace", kTorchFxSymbolicTrace},
                                                                  {"torch.backends", kTorchBackends}, {"torch.jit", kTorchJit}, {"torch.backends.cuda", kTorchBackendsCuda},
                                                                  {"torch.distributions", distributionsPolyfillSource()},
                                                                  {"torch.amp.grad_scaler", gradScalerPolyfillSource()},
                                                                  {"torch.func", funcPolyfillSource()}, {"heapq", heapqPolyfillSource()},
                                                                  {"torch.autograd.function", autogradFunctionPolyfillSource()},
                                                                  {"abc", abcPolyfillSource()}, {"torch.library", torchLibraryPolyfillSource()},
                                                                  {"enum", enumPolyfillSource()}};
    auto it = kSources.find(module);
    if (const char* storage = tensorStoragePolyfillSource(module); it == kSources.end() && storage) return storage;
    if (const char* utils = torchUtilsPolyfillSource(module); it == kSources.end() && utils) return utils;
    return it == kSources.end() ? dataTypesPolyfillSource(module) : it->second;
}

}  // namespace eng::vm
