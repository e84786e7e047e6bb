# An uncaught exception prints CPython's traceback: each frame's file, line and function, outermost first, its
# source line, then the exception.
# expect error: Traceback (most recent call last):
# expect error: line 19, in <module>
# expect error:     outer()
# expect error: line 16, in outer
# expect error:     return inner(1)
# expect error: line 12, in inner
# expect error:     return x + 'a'
# expect error: TypeError: unsupported operand type(s) for +: 'int' and 'str'
def inner(x):
    return x + 'a'


def outer():
    return inner(1)


outer()
