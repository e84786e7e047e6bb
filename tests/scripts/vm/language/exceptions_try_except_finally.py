# try / except / finally: the finally block runs before the return, exception tuples, repr of a KeyError.
# expect: finally 0
# expect: ok
# expect: finally 1
# expect: caught bad 1
# expect: IndexError list index out of range
# expect: KeyError('k')
def f(x):
    try:
        if x:
            raise ValueError('bad ' + str(x))
        return 'ok'
    except ValueError as e:
        return 'caught ' + str(e)
    finally:
        print('finally', x)


print(f(0))
print(f(1))
try:
    [1][5]
except (KeyError, IndexError) as e:
    print(type(e).__name__, e)
try:
    {}['k']
except Exception as e:
    print(repr(e))
