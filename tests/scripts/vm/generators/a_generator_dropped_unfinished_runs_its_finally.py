# A generator dropped before its end is closed, as CPython's finalizer closes it: its finally runs when the last
# reference goes (a for loop left by break, a local when its function returns, del); one paused outside any try
# block has nothing to run, and an exception its finally raises is reported and ignored.
# expect: ['finally a']
# expect: ['finally a', 'finally b']
# expect: ['finally a', 'finally b', 'finally c']
# expect: plain dropped
# expect: after bad
log = []


def numbers(tag):
    try:
        yield 1
        yield 2
    finally:
        log.append("finally " + tag)


for v in numbers("a"):
    break
print(log)


def first():
    g = numbers("b")
    return next(g)


first()
print(log)
g = numbers("c")
next(g)
del g
print(log)


def plain():
    yield 1
    yield 2


p = plain()
next(p)
del p
print("plain dropped")


def bad():
    try:
        yield 1
    finally:
        raise ValueError("in finally")


b = bad()
next(b)
del b
print("after bad")
