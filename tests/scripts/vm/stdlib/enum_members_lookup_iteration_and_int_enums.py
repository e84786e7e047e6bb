# enum as Python has it: members made from the class body in order (auto() counts on, an equal value is an alias),
# looked up by value and by name, iterated in definition order, compared by identity, hashed as dict keys;
# IntEnum members compute and compare as their ints; Flag members combine; unique refuses aliases.
# expect: [<Color.RED: 1>, <Color.GREEN: 2>, <Color.BLUE: 3>]
# expect: 3 True True True
# expect: RED 2 Color.GREEN <Color.BLUE: 3>
# expect: True False True True
# expect: ValueError 7 is not a valid Color
# expect: KeyError
# expect: ['x', 'y']
# expect: 5 True 6 2 [<Level.MID: 2>, <Level.HIGH: 3>] 2
# expect: <Perm.R|X: 5> True False 5
# expect: duplicate values found in <enum 'Shade'>: CRIMSON -> RED
# expect: <class 'enum.EnumType'> ['RED', 'GREEN', 'BLUE', 'SCARLET'] Color.RED
import enum


class Color(enum.Enum):
    RED = 1
    GREEN = enum.auto()
    BLUE = enum.auto()
    SCARLET = 1

    def describe(self):
        return self.name.lower()


print(list(Color))
print(len(Color), Color(1) is Color.RED, Color['GREEN'] is Color.GREEN, Color.SCARLET is Color.RED)
print(Color.RED.name, Color.GREEN.value, str(Color.GREEN), repr(Color.BLUE))
print(Color.RED in Color, 4 in Color, Color.RED == Color.SCARLET, isinstance(Color.RED, Color))
try:
    Color(7)
except ValueError as e:
    print("ValueError", e)
try:
    Color["PURPLE"]
except KeyError:
    print("KeyError")
weights = {Color.RED: 'x', Color.BLUE: 'y'}
print([weights[c] for c in (Color.SCARLET, Color(3))])


class Level(enum.IntEnum):
    LOW = 1
    MID = 2
    HIGH = 3


print(Level.HIGH + 2, Level.MID > Level.LOW, Level.MID * Level.HIGH, int(Level.MID), [m for m in Level if m >= 2],
      {2: 'two'}.get(Level.MID) and len({Level.LOW: 1, 1: 2, Level.MID: 3}))


class Perm(enum.Flag):
    R = enum.auto()
    W = enum.auto()
    X = enum.auto()


rx = Perm.R | Perm.X
print(repr(rx), Perm.X in rx, Perm.W in rx, rx.value)
try:
    @enum.unique
    class Shade(enum.Enum):
        RED = 1
        CRIMSON = 1
except ValueError as e:
    print(e)
print(type(Color), list(Color.__members__), Color.SCARLET)
