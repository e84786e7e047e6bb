# Closures with nonlocal, a global assigned in a function, and lambdas binding a loop variable through a default.
# expect: 2
# expect: 5
# expect: [10, 11, 12]
def counter():
    n = 0

    def inc():
        nonlocal n
        n += 1
        return n
    return inc


c = counter()
c()
print(c())
G = 1


def setg():
    global G
    G = 5


setg()
print(G)
adders = [lambda x, k=k: x + k for k in range(3)]
print([a(10) for a in adders])
