# Bases whose orders contradict each other have no C3 linearisation: the class statement raises CPython's TypeError,
# naming the heads still to merge; a repeated base and two builtin layouts raise theirs. The first two are caught.
# expect: duplicate base class A
# expect: multiple bases have instance lay-out conflict
# expect error: TypeError: Cannot create a consistent method resolution order (MRO) for bases A, B
class A:
    pass


class B(A):
    pass


try:
    class Twice(A, A):
        pass
except TypeError as e:
    print(e)

try:
    class Both(list, dict):
        pass
except TypeError as e:
    print(e)


class Wrong(A, B):
    pass
