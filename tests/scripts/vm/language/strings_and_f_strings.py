# f-string format specs and conversions, %-formatting, str.join / split / strip / format.
# expect: 3.14    42|  hi|'hi' 42 25.0% 3.141590e+00
# expect: 3 items, 0.500, x,  12.3% n=4
# expect: a, b ['a', 'b', 'c'] ['a', 'b'] t 1 2.0
x = 3.14159
n = 42
s = 'hi'
print(f'{x:.2f} {n:5d}|{s:>4}|{s!r} {n:,} {0.25:.1%} {x:e}')
print('%d items, %.3f, %s, %5.1f%%' % (3, 0.5, 'x', 12.345), 'n=%d' % 4)
print(', '.join(['a', 'b']), 'a b  c'.split(), 'a,b'.split(','), '  t '.strip(), '{} {:.1f}'.format(1, 2.0))
