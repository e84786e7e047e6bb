# Generators run eagerly as Python runs them: lazily, one yield at a time; send() passes the value of the paused
# yield, a return value travels as StopIteration.value (and as the value of `yield from`), throw() raises at the
# paused yield, close() runs the finally blocks, and a StopIteration leaking from the body becomes a RuntimeError.
# expect: start
# expect: got 0
# expect: got 1
# expect: [0, 1, 4]
# expect: echo 10 -> 11
# expect: stop value 42
# expect: delegate returned 7
# expect: [1, 2, 7]
# expect: caught ValueError boom
# expect: after throw 99
# expect: cleanup ran
# expect: RuntimeError generator raised StopIteration
# expect: lazy [0, 1]
# expect: generator True
log = []


def counter(n):
    print("start")
    for i in range(n):
        yield i


g = counter(3)
print("got", next(g))
print("got", next(g))


def squares(n):
    i = 0
    while i < n:
        yield i * i
        i += 1


print(list(squares(3)))


def echo():
    received = yield "ready"
    while True:
        received = yield received + 1


e = echo()
next(e)
print("echo 10 ->", e.send(10))


def returns():
    yield 1
    return 42


r = returns()
next(r)
try:
    next(r)
except StopIteration as stop:
    print("stop value", stop.value)


def inner():
    yield 1
    yield 2
    return 7


def outer(out):
    value = yield from inner()
    print("delegate returned", value)
    yield value


print(list(outer([])))


def guarded():
    while True:
        try:
            yield 1
        except ValueError as error:
            print("caught ValueError", error)
            yield 99


t = guarded()
next(t)
print("after throw", t.throw(ValueError("boom")))


def with_cleanup():
    try:
        yield 1
        yield 2
    finally:
        print("cleanup ran")


c = with_cleanup()
next(c)
c.close()


def leaks():
    yield 1
    raise StopIteration


try:
    list(leaks())
except RuntimeError as error:
    print("RuntimeError", error)


def noisy(i):
    log.append(i)
    return i


lazy = (noisy(i) for i in range(5))
first = next(lazy)
second = next(lazy)
print("lazy", log)
print("generator", type(lazy).__name__ == "generator")
