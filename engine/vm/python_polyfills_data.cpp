// Standard-library modules about data types, written in our Python subset and loaded on first import:
// collections (over the native _collections), collections.abc, typing and dataclasses. Like the other
// polyfills, the capture engine inlines them as user code, as Dynamo inlines its polyfills.
#include <map>
#include <string>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kCollections = R"PY(
from _collections import OrderedDict, defaultdict, Counter, namedtuple


def _counter_most_common(self, n=None):
    items = sorted(self.items(), key=lambda item: -item[1])
    if n is None:
        return items
    return items[:n]


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

const char* kDataclasses = R"PY(
class _MISSING_TYPE:
    def __repr__(self):
        return "MISSING"


MISSING = _MISSING_TYPE()


class FrozenInstanceError(AttributeError):
    pass


class Field:
    def __init__(self, default, default_factory, init, repr, hash, compare, metadata, kw_only):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = metadata
        self.kw_only = kw_only

    def __repr__(self):
        return ("Field(name=" + repr(self.name) + ",type=" + repr(self.type) + ",default=" + repr(self.default) +
                ",default_factory=" + repr(self.default_factory) + ",init=" + repr(self.init) + ",repr=" +
                repr(self.repr) + ",hash=" + repr(self.hash) + ",compare=" + repr(self.compare) + ",metadata=" +
                repr(self.metadata) + ",kw_only=" + repr(self.kw_only) + ")")


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None, compare=True, metadata=None,
          kw_only=MISSING):
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


def _own_annotations(cls):
    annotations = getattr(cls, "__annotations__", {})
    base = cls.__base__
    if base is not None and getattr(base, "__annotations__", None) is annotations:
        return {}
    return annotations


def _is_classvar(annotation):
    if isinstance(annotation, str):
        return annotation.startswith("ClassVar") or annotation.startswith("typing.ClassVar")
    return annotation.__name__ == "ClassVar" if isinstance(annotation, type) else False


def _init_fields(cls):
    return [f for f in cls.__dataclass_fields__.values() if f.init]


def _dataclass_init(self, *args, **kwargs):
    cls = type(self)
    fields = _init_fields(cls)
    qualname = cls.__qualname__ + ".__init__()"
    positional = [f for f in fields if f.kw_only is not True]
    if len(args) > len(positional):
        raise TypeError(qualname + " takes " + str(len(positional) + 1) + " positional arguments but " +
                        str(len(args) + 1) + " were given")
    values = {}
    for i in range(len(args)):
        values[positional[i].name] = args[i]
    names = [f.name for f in fields]
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(qualname + " got an unexpected keyword argument '" + name + "'")
        if name in values:
            raise TypeError(qualname + " got multiple values for argument '" + name + "'")
        values[name] = value
    missing = []
    for f in fields:
        if f.name in values:
            continue
        if f.default is not MISSING:
            values[f.name] = f.default
        elif f.default_factory is not MISSING:
            values[f.name] = f.default_factory()
        else:
            missing.append("'" + f.name + "'")
    if len(missing) > 0:
        if len(missing) == 1:
            listed = missing[0]
        elif len(missing) == 2:
            listed = missing[0] + " and " + missing[1]
        else:
            listed = ", ".join(missing[:-1]) + ", and " + missing[-1]
        raise TypeError(qualname + " missing " + str(len(missing)) + " required positional argument" +
                        ("" if len(missing) == 1 else "s") + ": " + listed)
    for f in cls.__dataclass_fields__.values():
        if f.init:
            setattr(self, f.name, values[f.name])
        elif f.default is not MISSING:
            setattr(self, f.name, f.default)
        elif f.default_factory is not MISSING:
            setattr(self, f.name, f.default_factory())
    if hasattr(self, "__post_init__"):
        self.__post_init__()


def _dataclass_repr(self):
    cls = type(self)
    parts = [f.name + "=" + repr(getattr(self, f.name)) for f in cls.__dataclass_fields__.values() if f.repr]
    return cls.__qualname__ + "(" + ", ".join(parts) + ")"


def _compared(obj):
    return tuple(getattr(obj, f.name) for f in type(obj).__dataclass_fields__.values() if f.compare)


def _dataclass_eq(self, other):
    if type(other) is not type(self):
        return False
    return _compared(self) == _compared(other)


def _process_class(cls, init, make_repr, eq, frozen, kw_only):
    fields = {}
    base = cls.__base__
    if base is not None and hasattr(base, "__dataclass_fields__"):
        for name, f in base.__dataclass_fields__.items():
            fields[name] = f
    for name, annotation in _own_annotations(cls).items():
        if _is_classvar(annotation):
            continue
        default = getattr(cls, name, MISSING)
        if isinstance(default, Field):
            f = default
        else:
            if isinstance(default, (list, dict, set)):
                raise ValueError("mutable default " + repr(type(default)) + " for field " + name +
                                 " is not allowed: use default_factory")
            f = field(default=default)
        f.name = name
        f.type = annotation
        if f.kw_only is MISSING:
            f.kw_only = kw_only
        if isinstance(default, Field) and f.default is not MISSING:
            setattr(cls, name, f.default)
        fields[name] = f
    seen_default = None
    for f in fields.values():
        if not f.init or f.kw_only is True:
            continue
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = f.name
        elif seen_default is not None:
            raise TypeError("non-default argument '" + f.name + "' follows default argument '" + seen_default + "'")
    cls.__dataclass_fields__ = fields
    if init:
        cls.__init__ = _dataclass_init
    if make_repr:
        cls.__repr__ = _dataclass_repr
    if eq:
        cls.__eq__ = _dataclass_eq
    cls.__match_args__ = tuple(f.name for f in fields.values() if f.init)
    return cls


def dataclass(cls=None, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False, frozen=False,
              match_args=True, kw_only=False, slots=False, weakref_slot=False):
    if frozen:
        raise NotImplementedError("dataclass(frozen=True) is not supported by cwb yet")

    def wrap(cls):
        return _process_class(cls, init, repr, eq, frozen, kw_only)

    if cls is None:
        return wrap
    return wrap(cls)


def fields(class_or_instance):
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    if not hasattr(cls, "__dataclass_fields__"):
        raise TypeError("must be called with a dataclass type or instance")
    return tuple(cls.__dataclass_fields__.values())


def is_dataclass(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    return hasattr(cls, "__dataclass_fields__")


def _as_value(value, factory):
    if is_dataclass(value) and not isinstance(value, type):
        return factory([(f.name, _as_value(getattr(value, f.name), factory)) for f in fields(value)])
    if isinstance(value, list):
        return [_as_value(item, factory) for item in value]
    if isinstance(value, tuple):
        return tuple(_as_value(item, factory) for item in value)
    if isinstance(value, dict):
        return {_as_value(k, factory): _as_value(v, factory) for k, v in value.items()}
    return value


def asdict(obj, *, dict_factory=dict):
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("asdict() should be called on dataclass instances")
    return _as_value(obj, dict_factory)


def astuple(obj, *, tuple_factory=tuple):
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError("astuple() should be called on dataclass instances")
    return tuple_factory([_as_value(getattr(obj, f.name), dict) for f in fields(obj)])


def replace(obj, **changes):
    values = {}
    for f in fields(obj):
        if f.init:
            values[f.name] = changes[f.name] if f.name in changes else getattr(obj, f.name)
    for name in changes:
        if name not in values:
            raise TypeError("__init__() got an unexpected keyword argument '" + name + "'")
    return type(obj)(**values)
)PY";

}  // namespace

const char* dataTypesPolyfillSource(const std::string& module) {
    static const std::map<std::string, const char*> kSources = {
        {"collections", kCollections}, {"collections.abc", kCollectionsAbc}, {"typing", kTyping}, {"dataclasses", kDataclasses}};
    auto it = kSources.find(module);
    return it == kSources.end() ? nullptr : it->second;
}

}  // namespace eng::vm
