# Recurses without end: ends with RecursionError, as Python says it.
def deeper(n):
    return deeper(n + 1)


deeper(0)
