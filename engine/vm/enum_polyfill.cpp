// The `enum` module written in the subset: EnumType is a real metaclass (class_builtins.cpp's applyMetaclass) whose
// __init__ turns the names a class body binds into members, and whose __call__/__getitem__/__iter__/__len__/
// __contains__ are what `Color(1)`, `Color['RED']`, `for c in Color`, `len(Color)` and `c in Color` run.
namespace eng::vm {

namespace {

const char* kEnum = R"PY(
class auto:
    def __init__(self):
        self.value = None


def _is_descriptor(value):
    return callable(value) or isinstance(value, (staticmethod, classmethod, property))


class EnumType(type):
    def __init__(cls, name, bases, namespace):
        cls._member_names_ = []
        cls._member_map_ = {}
        cls._value2member_map_ = {}
        last_values = []
        for key, value in namespace.items():
            if key[:1] == "_" or _is_descriptor(value):
                continue
            if isinstance(value, auto):
                value = cls._generate_next_value_(key, 1, len(cls._member_names_), last_values[:])
            last_values.append(value)
            if value in cls._value2member_map_:
                alias = cls._value2member_map_[value]
                cls._member_map_[key] = alias
                setattr(cls, key, alias)
                continue
            args = value if isinstance(value, tuple) else (value,)
            member = type.__call__(cls, *args)
            member._name_ = key
            member._value_ = value
            cls._member_names_.append(key)
            cls._member_map_[key] = member
            cls._value2member_map_[value] = member
            setattr(cls, key, member)

    def __call__(cls, value):
        if isinstance(value, cls):
            return value
        if value in cls._value2member_map_:
            return cls._value2member_map_[value]
        missing = cls._missing_(value)
        if missing is not None:
            return missing
        raise ValueError(f"{value!r} is not a valid {cls.__qualname__}")

    def __getitem__(cls, name):
        return cls._member_map_[name]

    def __iter__(cls):
        return (cls._member_map_[name] for name in cls._member_names_)

    def __len__(cls):
        return len(cls._member_names_)

    def __contains__(cls, value):
        if isinstance(value, cls):
            return value._name_ in cls._member_map_
        return value in cls._value2member_map_

    @property
    def __members__(cls):
        return dict(cls._member_map_)


class Enum(metaclass=EnumType):
    def __init__(self, *args):
        pass

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        for last in reversed(last_values):
            try:
                return last + 1
            except TypeError:
                pass
        return start

    @classmethod
    def _missing_(cls, value):
        return None

    @property
    def name(self):
        return self._name_

    @property
    def value(self):
        return self._value_

    def __repr__(self):
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"

    def __str__(self):
        return f"{type(self).__name__}.{self._name_}"

    def __hash__(self):
        return hash(self._name_)


class IntEnum(Enum):
    # Members compute, compare and hash as their int values (the subset has no int subclasses, so
    # isinstance(member, int) is False).
    def __int__(self):
        return self._value_

    def __index__(self):
        return self._value_

    def __float__(self):
        return float(self._value_)

    def __bool__(self):
        return self._value_ != 0

    def __hash__(self):
        return hash(self._value_)

    def __str__(self):
        return str(self._value_)

    def __format__(self, spec):
        return format(self._value_, spec)

    def __eq__(self, other):
        return self._value_ == other

    def __ne__(self, other):
        return self._value_ != other

    def __lt__(self, other):
        return self._value_ < other

    def __le__(self, other):
        return self._value_ <= other

    def __gt__(self, other):
        return self._value_ > other

    def __ge__(self, other):
        return self._value_ >= other

    def __add__(self, other):
        return self._value_ + other

    def __radd__(self, other):
        return other + self._value_

    def __sub__(self, other):
        return self._value_ - other

    def __rsub__(self, other):
        return other - self._value_

    def __mul__(self, other):
        return self._value_ * other

    def __rmul__(self, other):
        return other * self._value_

    def __floordiv__(self, other):
        return self._value_ // other

    def __rfloordiv__(self, other):
        return other // self._value_

    def __truediv__(self, other):
        return self._value_ / other

    def __rtruediv__(self, other):
        return other / self._value_

    def __mod__(self, other):
        return self._value_ % other

    def __rmod__(self, other):
        return other % self._value_

    def __pow__(self, other):
        return self._value_ ** other

    def __neg__(self):
        return -self._value_

    def __abs__(self):
        return abs(self._value_)


class Flag(Enum):
    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        bit = 1
        for last in last_values:
            while bit <= last:
                bit = bit * 2
        return bit

    @classmethod
    def _missing_(cls, value):
        # A combination of members is a pseudo-member named after them ('RED|BLUE'), made once per value.
        if not isinstance(value, int):
            return None
        names = []
        rest = value
        for name in cls._member_names_:
            bits = cls._member_map_[name]._value_
            if bits and value & bits == bits:
                names.append(name)
                rest = rest & ~bits
        if rest:
            return None
        member = type.__call__(cls)
        member._name_ = "|".join(names) if names else None
        member._value_ = value
        cls._value2member_map_[value] = member
        return member

    def __or__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        return type(self)(self._value_ | other._value_)

    def __and__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        return type(self)(self._value_ & other._value_)

    def __xor__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        return type(self)(self._value_ ^ other._value_)

    def __contains__(self, other):
        return other._value_ & self._value_ == other._value_

    def __bool__(self):
        return self._value_ != 0

    def __iter__(self):
        return (m for m in type(self) if m._value_ and m._value_ & self._value_ == m._value_)

    def __len__(self):
        return len([m for m in self])


class IntFlag(Flag):
    # A Flag whose members are ints as IntEnum's are.
    def __int__(self):
        return self._value_

    def __index__(self):
        return self._value_

    def __hash__(self):
        return hash(self._value_)

    def __eq__(self, other):
        return self._value_ == (other._value_ if isinstance(other, Flag) else other)

    def __or__(self, other):
        return type(self)(self._value_ | int(other))

    def __and__(self, other):
        return type(self)(self._value_ & int(other))


def unique(enumeration):
    duplicates = [(name, member._name_) for name, member in enumeration._member_map_.items() if name != member._name_]
    if duplicates:
        details = ", ".join([f"{alias} -> {name}" for alias, name in duplicates])
        raise ValueError(f"duplicate values found in <enum '{enumeration.__name__}'>: {details}")
    return enumeration
)PY";

}  // namespace

const char* enumPolyfillSource() { return kEnum; }

}  // namespace eng::vm
