// The `types` polyfill (Python run by the VM; its native half is `_types` in stdlib_modules.cpp).
#include "vm/interpreter.h"

namespace eng::vm {

// types: the classes of functions, bound methods, modules, builtins and generators are the VM's own (MethodType
// and ModuleType construct through them); SimpleNamespace and MappingProxyType are plain classes, so the capture
// engine traces them like user code, as Dynamo traces their objects.
const char* typesPolyfillSource() {
    return R"PY(
import math as _a_module
from _types import _instance_items


def _function():
    pass


class _Class:
    def _method(self):
        pass


def _generator():
    yield None


FunctionType = type(_function)
LambdaType = FunctionType
MethodType = type(_Class()._method)
ModuleType = type(_a_module)
BuiltinFunctionType = type(len)
BuiltinMethodType = BuiltinFunctionType
GeneratorType = type(_generator())
NoneType = type(None)


class SimpleNamespace:
    def __init__(self, *args, **kwargs):
        if len(args) > 1:
            raise TypeError("SimpleNamespace expected at most 1 positional argument, got " + str(len(args)))
        if len(args) == 1:
            for key, value in dict(args[0]).items():
                setattr(self, key, value)
        for key, value in kwargs.items():
            setattr(self, key, value)

    def __eq__(self, other):
        if isinstance(other, SimpleNamespace):
            return _instance_items(self) == _instance_items(other)
        return NotImplemented

    def __repr__(self):
        return "namespace(" + ", ".join([key + "=" + repr(value) for key, value in _instance_items(self)]) + ")"


class MappingProxyType:
    def __init__(self, mapping):
        self._mapping = mapping

    def __getitem__(self, key):
        return self._mapping[key]

    def __setitem__(self, key, value):
        raise TypeError("'mappingproxy' object does not support item assignment")

    def __contains__(self, key):
        return key in self._mapping

    def __iter__(self):
        return iter(self._mapping)

    def __len__(self):
        return len(self._mapping)

    def __eq__(self, other):
        return self._mapping == other

    def get(self, key, default=None):
        if key in self._mapping:
            return self._mapping[key]
        return default

    def keys(self):
        return self._mapping.keys()

    def values(self):
        return self._mapping.values()

    def items(self):
        return self._mapping.items()

    def copy(self):
        return dict(self._mapping)

    def __repr__(self):
        return "mappingproxy(" + repr(self._mapping) + ")"
)PY";
}

}  // namespace eng::vm
