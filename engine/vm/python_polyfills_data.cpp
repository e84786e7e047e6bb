// Standard-library modules about data types, written in our Python subset and loaded on first import:
// collections (over the native _collections), collections.abc, typing and inspect (over the native _inspect;
// dataclasses has its own file). Like the
// other polyfills, the capture engine inlines them as user code, as Dynamo inlines its polyfills.
#include <map>
#include <string>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kCollections = R"PY(
from _collections import OrderedDict, defaultdict, Counter, namedtuple
from operator import itemgetter


def _counter_most_common(self, n=None):
    # As CPython: a sort for all of them, heapq.nlargest for the n first (which Dynamo breaks on, at _heapq).
    if n is None:
        return sorted(self.items(), key=itemgetter(1), reverse=True)
    import heapq
    return heapq.nlargest(n, self.items(), key=itemgetter(1))


def _counter_elements(self):
    out = []
    for key, count in self.items():
        for _ in range(count):
            out.append(key)
    return iter(out)


def _counter_add_counts(self, iterable, kwds, sign):
    if iterable is not None:
        if isinstance(iterable, dict):
            for key, count in iterable.items():
                self[key] = self[key] + sign * count
        else:
            for key in iterable:
                self[key] = self[key] + sign
    for key, count in kwds.items():
        self[key] = self[key] + sign * count


def _counter_update(self, iterable=None, **kwds):
    _counter_add_counts(self, iterable, kwds, 1)


def _counter_subtract(self, iterable=None, **kwds):
    _counter_add_counts(self, iterable, kwds, -1)


def _counter_total(self):
    return sum(self.values())


def _counter_add(self, other):
    # Counts summed, keeping the positive ones (CPython's Counter.__add__); __sub__ likewise with differences.
    if not isinstance(other, Counter):
        return NotImplemented
    result = Counter()
    for elem, count in self.items():
        total = count + other[elem]
        if total > 0:
            result[elem] = total
    for elem, count in other.items():
        if elem not in self and count > 0:
            result[elem] = count
    return result


def _counter_sub(self, other):
    if not isinstance(other, Counter):
        return NotImplemented
    result = Counter()
    for elem, count in self.items():
        difference = count - other[elem]
        if difference > 0:
            result[elem] = difference
    for elem, count in other.items():
        if elem not in self and count < 0:
            result[elem] = 0 - count
    return result


Counter.__add__ = _counter_add
Counter.__sub__ = _counter_sub
Counter.most_common = _counter_most_common
Counter.elements = _counter_elements
Counter.update = _counter_update
Counter.subtract = _counter_subtract
Counter.total = _counter_total


class deque:
    def __init__(self, iterable=(), maxlen=None):
        if maxlen is not None and maxlen < 0:
            raise ValueError("maxlen must be non-negative")
        self._items = []
        self.maxlen = maxlen
        for item in iterable:
            self.append(item)

    def append(self, item):
        self._items.append(item)
        if self.maxlen is not None and len(self._items) > self.maxlen:
            self._items.pop(0)

    def appendleft(self, item):
        self._items.insert(0, item)
        if self.maxlen is not None and len(self._items) > self.maxlen:
            self._items.pop()

    def pop(self):
        if len(self._items) == 0:
            raise IndexError("pop from an empty deque")
        return self._items.pop()

    def popleft(self):
        if len(self._items) == 0:
            raise IndexError("pop from an empty deque")
        return self._items.pop(0)

    def insert(self, index, item):
        if self.maxlen is not None and len(self._items) >= self.maxlen:
            raise IndexError("deque already at its maximum size")
        self._items.insert(index, item)

    def extend(self, iterable):
        for item in iterable:
            self.append(item)

    def extendleft(self, iterable):
        for item in iterable:
            self.appendleft(item)

    def clear(self):
        self._items = []

    def rotate(self, n=1):
        if len(self._items) > 0:
            n = n % len(self._items)
            self._items = self._items[len(self._items) - n:] + self._items[:len(self._items) - n]

    def count(self, value):
        return self._items.count(value)

    def index(self, value):
        return self._items.index(value)

    def remove(self, value):
        self._items.remove(value)

    def reverse(self):
        self._items = self._items[::-1]

    def copy(self):
        return deque(self._items, self.maxlen)

    def __len__(self):
        return len(self._items)

    def __bool__(self):
        return len(self._items) > 0

    def __iter__(self):
        return iter(self._items)

    def __contains__(self, value):
        return value in self._items

    def __getitem__(self, index):
        return self._items[index]

    def __setitem__(self, index, value):
        self._items[index] = value

    def __eq__(self, other):
        return isinstance(other, deque) and self._items == other._items

    def __repr__(self):
        if self.maxlen is None:
            return "deque(" + repr(self._items) + ")"
        return "deque(" + repr(self._items) + ", maxlen=" + str(self.maxlen) + ")"
)PY";

// isinstance(x, Mapping) holds for dicts as in Python, where dict is registered with the ABC.
const char* kCollectionsAbc = R"PY(
def _abc_check(registered):
    def check(cls, value):
        return isinstance(value, registered) or issubclass(type(value), cls)
    return check


class Hashable:
    pass


class Iterable:
    pass


class Iterator(Iterable):
    pass


class Sized:
    pass


class Container:
    pass


class Callable:
    pass


class Collection:
    pass


class Sequence:
    def __contains__(self, value):
        for item in self:
            if item == value:
                return True
        return False

    def index(self, value):
        for i in range(len(self)):
            if self[i] == value:
                return i
        raise ValueError(repr(value) + " is not in list")

    def count(self, value):
        return sum(1 for item in self if item == value)


class MutableSequence(Sequence):
    def append(self, value):
        self.insert(len(self), value)

    def extend(self, values):
        for value in values:
            self.append(value)


class Set:
    pass


class MutableSet(Set):
    pass


class Mapping:
    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key):
        try:
            self[key]
        except KeyError:
            return False
        return True

    def keys(self):
        return [key for key in self]

    def items(self):
        return [(key, self[key]) for key in self]

    def values(self):
        return [self[key] for key in self]

    def __eq__(self, other):
        return dict(self.items()) == dict(other.items())


class MutableMapping(Mapping):
    def pop(self, key, *default):
        if key in self:
            value = self[key]
            del self[key]
            return value
        if len(default) > 0:
            return default[0]
        raise KeyError(key)

    def popitem(self):
        for key in self:
            value = self[key]
            del self[key]
            return (key, value)
        raise KeyError("popitem(): dictionary is empty")

    def clear(self):
        for key in list(self):
            del self[key]

    def update(self, other=(), **kwds):
        if isinstance(other, Mapping):
            for key in other.keys():
                self[key] = other[key]
        else:
            for key, value in other:
                self[key] = value
        for key, value in kwds.items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]


class MappingView(Sized):
    def __init__(self, mapping):
        self._mapping = mapping

    def __len__(self):
        return len(self._mapping)


class KeysView(MappingView, Set):
    def __contains__(self, key):
        return key in self._mapping

    def __iter__(self):
        yield from self._mapping


class ValuesView(MappingView, Collection):
    def __contains__(self, value):
        for key in self._mapping:
            if self._mapping[key] is value or self._mapping[key] == value:
                return True
        return False

    def __iter__(self):
        for key in self._mapping:
            yield self._mapping[key]


class ItemsView(MappingView, Set):
    def __contains__(self, item):
        key, value = item
        if key not in self._mapping:
            return False
        found = self._mapping[key]
        return found is value or found == value

    def __iter__(self):
        for key in self._mapping:
            yield (key, self._mapping[key])


Iterable.__instancecheck__ = _abc_check((list, tuple, dict, set, str))
Sized.__instancecheck__ = _abc_check((list, tuple, dict, set, str))
Container.__instancecheck__ = _abc_check((list, tuple, dict, set, str))
Collection.__instancecheck__ = _abc_check((list, tuple, dict, set, str))
Sequence.__instancecheck__ = _abc_check((list, tuple, str))
MutableSequence.__instancecheck__ = _abc_check((list,))
Set.__instancecheck__ = _abc_check((set,))
MutableSet.__instancecheck__ = _abc_check((set,))
Mapping.__instancecheck__ = _abc_check((dict,))
MutableMapping.__instancecheck__ = _abc_check((dict,))
)PY";

// Annotations only need these names to exist and to be subscriptable (subscripting a class gives the class);
// the ones that stand for builtin types are those types, so isinstance against them works.
const char* kTyping = R"PY(
from collections.abc import Hashable, Iterable, Iterator, Sized, Container, Collection, Sequence, MutableSequence, Mapping, MutableMapping
from collections import OrderedDict, defaultdict, Counter, deque

TYPE_CHECKING = False
List = list
Dict = dict
Tuple = tuple
Set = set
FrozenSet = set
Type = type
Text = str
DefaultDict = defaultdict
Deque = deque
AbstractSet = set


class Any:
    pass


class Optional:
    pass


class Union:
    pass


class ClassVar:
    pass


class Final:
    pass


class Literal:
    pass


class Callable:
    pass


class Generator:
    pass


class Generic:
    pass


class Protocol:
    pass


class NamedTuple(tuple):
    pass


class TypeVar:
    def __init__(self, name, *constraints, bound=None, covariant=False, contravariant=False):
        self.__name__ = name
        self.__constraints__ = constraints
        self.__bound__ = bound

    def __repr__(self):
        return "~" + self.__name__


def cast(typ, val):
    return val


def overload(func):
    return func


def no_type_check(func):
    return func


def final(func):
    return func


def runtime_checkable(cls):
    return cls


def NewType(name, tp):
    return lambda x: x
)PY";

const char* kInspect = R"PY(
from _inspect import _parameters, _kind


class _empty:
    pass


class _ParameterKind:
    def __init__(self, value, name, description):
        self.value = value
        self.name = name
        self.description = description

    def __repr__(self):
        return "<_ParameterKind." + self.name + ": " + str(self.value) + ">"

    def __str__(self):
        return self.name


_POSITIONAL_ONLY = _ParameterKind(0, "POSITIONAL_ONLY", "positional-only")
_POSITIONAL_OR_KEYWORD = _ParameterKind(1, "POSITIONAL_OR_KEYWORD", "positional or keyword")
_VAR_POSITIONAL = _ParameterKind(2, "VAR_POSITIONAL", "variadic positional")
_KEYWORD_ONLY = _ParameterKind(3, "KEYWORD_ONLY", "keyword-only")
_VAR_KEYWORD = _ParameterKind(4, "VAR_KEYWORD", "variadic keyword")
_KINDS = [_POSITIONAL_ONLY, _POSITIONAL_OR_KEYWORD, _VAR_POSITIONAL, _KEYWORD_ONLY, _VAR_KEYWORD]


class Parameter:
    empty = _empty
    POSITIONAL_ONLY = _POSITIONAL_ONLY
    POSITIONAL_OR_KEYWORD = _POSITIONAL_OR_KEYWORD
    VAR_POSITIONAL = _VAR_POSITIONAL
    KEYWORD_ONLY = _KEYWORD_ONLY
    VAR_KEYWORD = _VAR_KEYWORD

    def __init__(self, name, kind, *, default=_empty, annotation=_empty):
        self.name = name
        self.kind = kind
        self.default = default
        self.annotation = annotation

    def __str__(self):
        text = self.name
        if self.default is not _empty:
            text = text + "=" + repr(self.default)
        if self.kind is _VAR_POSITIONAL:
            text = "*" + text
        elif self.kind is _VAR_KEYWORD:
            text = "**" + text
        return text

    def __repr__(self):
        return '<Parameter "' + str(self) + '">'


class Signature:
    empty = _empty

    def __init__(self, parameters=None, *, return_annotation=_empty):
        self.parameters = {}
        if parameters is not None:
            for p in parameters:
                self.parameters[p.name] = p
        self.return_annotation = return_annotation

    def __str__(self):
        parts = []
        keyword_marker = False
        for p in self.parameters.values():
            if p.kind is _VAR_POSITIONAL:
                keyword_marker = True
            if p.kind is _KEYWORD_ONLY and not keyword_marker:
                parts.append("*")
                keyword_marker = True
            parts.append(str(p))
        positional_only = [p for p in self.parameters.values() if p.kind is _POSITIONAL_ONLY]
        if positional_only:
            parts.insert(len(positional_only), "/")
        return "(" + ", ".join(parts) + ")"

    def __repr__(self):
        return "<Signature " + str(self) + ">"


def signature(obj, *, follow_wrapped=True):
    return Signature([Parameter(name, _KINDS[kind], default=default) for name, kind, default in _parameters(obj, _empty)])


def isclass(obj):
    return _kind(obj) == "class"


def isfunction(obj):
    return _kind(obj) == "function"


def ismethod(obj):
    return _kind(obj) == "method"


def ismodule(obj):
    return _kind(obj) == "module"


def isbuiltin(obj):
    return _kind(obj) == "builtin"
)PY";

}  // namespace

const char* dataTypesPolyfillSource(const std::string& module) {
    static const std::map<std::string, const char*> kSources = {
        {"collections", kCollections}, {"collections.abc", kCollectionsAbc}, {"typing", kTyping}, {"dataclasses", dataclassesPolyfillSource()},
        {"inspect", kInspect}, {"types", typesPolyfillSource()}};
    auto it = kSources.find(module);
    return it == kSources.end() ? nnPolyfillSource(module) : it->second;
}

}  // namespace eng::vm
