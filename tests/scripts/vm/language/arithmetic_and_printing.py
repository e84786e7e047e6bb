# Arithmetic, comparisons and printing as CPython prints them; an int result beyond 64 bits raises (the VM's ints are
# 64-bit, where CPython's grow).
# expect: 3 3 -4 -2 1024 3.5 1.0 1e-05 ababab
# expect: 2 True True True True (1,) None
# expect: 21 -21 2.5 2 3.14
# expect: OverflowError integer result does not fit in 64 bits (cwb ints are 64-bit)
print(1 + 2, 7 // 2, -7 // 2, 7 % -3, 2 ** 10, 7 / 2, 1.0, 1e-05, 3 * 'ab')
print(True + 1, 1 == 1.0, 3 < 4 < 5, 'a' < 'b', [1, 2] == [1, 2], (1,), None)
x = 5
x += 2
x *= 3
print(x, -x, abs(-2.5), round(2.5), round(3.14159, 2))
try:
    print(2 ** 70)
except OverflowError as e:
    print(type(e).__name__, e)
