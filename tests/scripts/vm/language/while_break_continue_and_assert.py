# while with break and continue; a failing assert raises AssertionError with its message.
# expect: [1, 3, 5, 7]
# expect error: AssertionError: nope
i = 0
out = []
while True:
    i += 1
    if i % 2 == 0:
        continue
    if i > 7:
        break
    out.append(i)
print(out)
assert 1 == 2, 'nope'
