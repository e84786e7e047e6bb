// The dataclasses module written in our Python subset (dataclass, field, fields, asdict, astuple, replace):
// `@dataclass` reads the class body's __annotations__ and installs generic __init__/__repr__/__eq__ functions,
// which the capture engine inlines like user code; __hash__ follows CPython's table (unsafe_hash, frozen).
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

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
    for base in cls.__mro__[1:]:
        if getattr(base, "__annotations__", None) is annotations:
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
    # A frozen class's own __setattr__ refuses every field, so its __init__ stores through object's, as CPython's.
    store = object.__setattr__ if cls.__dataclass_params__.frozen else setattr
    for f in cls.__dataclass_fields__.values():
        if f.init:
            store(self, f.name, values[f.name])
        elif f.default is not MISSING:
            store(self, f.name, f.default)
        elif f.default_factory is not MISSING:
            store(self, f.name, f.default_factory())
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


def _dataclass_hash(self):
    return hash(tuple(getattr(self, f.name) for f in type(self).__dataclass_fields__.values()
                      if (f.compare if f.hash is None else f.hash)))


def _set_hash(cls, unsafe_hash, eq, frozen):
    # CPython's _hash_action table: unsafe_hash adds one (refusing a class body's own), eq with frozen adds one
    # unless the body wrote it, eq alone makes the instances unhashable unless the body wrote __hash__.
    explicit = _defines(cls, "__hash__")
    if unsafe_hash:
        if explicit:
            raise TypeError("Cannot overwrite attribute __hash__ in class " + cls.__name__)
        cls.__hash__ = _dataclass_hash
    elif eq and not explicit:
        cls.__hash__ = _dataclass_hash if frozen else None


class _DataclassParams:
    def __init__(self, init, repr, eq, order, unsafe_hash, frozen):
        self.init = init
        self.repr = repr
        self.eq = eq
        self.order = order
        self.unsafe_hash = unsafe_hash
        self.frozen = frozen


def _defines(cls, name):
    # `name in cls.__dict__`: found on the class but not the same object as a class after it in the MRO gives
    # (classes carry no __dict__).
    own = getattr(cls, name, None)
    if own is None:
        return False
    for base in cls.__mro__[1:]:
        if own is getattr(base, name, None):
            return False
    return True


def _frozen_methods(cls, field_names):
    # CPython's generated pair: a field of the class (or any name on the class itself) cannot change; a subclass
    # that is no dataclass may still set its own attributes.
    def __setattr__(self, name, value):
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError("cannot assign to field " + repr(name))
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError("cannot delete field " + repr(name))
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _process_class(cls, init, make_repr, eq, order, unsafe_hash, frozen, kw_only):
    # The fields of every dataclass along the MRO, most basic first, as CPython collects them.
    fields = {}
    any_frozen_base = False
    all_frozen_bases = None
    for b in cls.__mro__[-1:0:-1]:
        base_fields = getattr(b, "__dataclass_fields__", None)
        if base_fields is None:
            continue
        for name, f in base_fields.items():
            fields[name] = f
        base_frozen = b.__dataclass_params__.frozen
        all_frozen_bases = base_frozen if all_frozen_bases is None else all_frozen_bases and base_frozen
        any_frozen_base = any_frozen_base or base_frozen
    if all_frozen_bases is not None:
        if any_frozen_base and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if not all_frozen_bases and frozen:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
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
    cls.__dataclass_params__ = _DataclassParams(init, make_repr, eq, order, unsafe_hash, frozen)
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if _defines(cls, name):
                raise TypeError("Cannot overwrite attribute " + name + " in class " + cls.__name__)
        cls.__setattr__, cls.__delattr__ = _frozen_methods(cls, tuple(fields))
    # Methods the class body wrote itself stay, as CPython's _set_new_attribute leaves them.
    if init and not _defines(cls, "__init__"):
        cls.__init__ = _dataclass_init
    if make_repr and not _defines(cls, "__repr__"):
        cls.__repr__ = _dataclass_repr
    if eq and not _defines(cls, "__eq__"):
        cls.__eq__ = _dataclass_eq
    _set_hash(cls, unsafe_hash, eq, frozen)
    cls.__match_args__ = tuple(f.name for f in fields.values() if f.init)
    return cls


def dataclass(cls=None, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False, frozen=False,
              match_args=True, kw_only=False, slots=False, weakref_slot=False):
    def wrap(cls):
        return _process_class(cls, init, repr, eq, order, unsafe_hash, frozen, kw_only)

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

const char* dataclassesPolyfillSource() { return kDataclasses; }

}  // namespace eng::vm
