# contextlib.contextmanager: the generator runs to its yield on entry and past it on exit; an exception raised in
# the block is thrown in at the yield, so the generator's finally runs and an except there can suppress it.
# expect: enter 3
# expect: body 6
# expect: exit 3
# expect: enter 1
# expect: exit 1
# expect: caught KeyError 'k'
# expect: swallowed
# expect: after suppress
# expect: [3, -3, 1, -1]
import contextlib

events = []


@contextlib.contextmanager
def tracked(amount):
    print("enter", amount)
    events.append(amount)
    try:
        yield amount * 2
    finally:
        print("exit", amount)
        events.append(-amount)


with tracked(3) as doubled:
    print("body", doubled)

try:
    with tracked(1):
        raise KeyError("k")
except KeyError as error:
    print("caught KeyError", error)


@contextlib.contextmanager
def swallow():
    try:
        yield
    except ZeroDivisionError:
        print("swallowed")


with swallow():
    1 / 0

with contextlib.suppress(IndexError):
    [][1]
print("after suppress")
print(events)
