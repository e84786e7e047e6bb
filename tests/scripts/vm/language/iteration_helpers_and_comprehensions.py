# dict iteration, zip, enumerate, reversed, sum/min/max/sorted/any/all, dict/list/set comprehensions, starred
# unpacking, map and filter.
# expect: a 1
# expect: b 2
# expect: [(1, 'a'), (2, 'b')] [(1, 5), (2, 6)] [2, 1, 0]
# expect: 10 1 9 [3, 2, 1] True True
# expect: {'a': 2, 'b': 4} [1, 3, 5] {0, 1, 2}
# expect: 1 [2, 3] [1, 4] [1, 2]
d = {'a': 1, 'b': 2}
for k, v in d.items():
    print(k, v)
print(list(zip([1, 2, 3], 'ab')), list(enumerate([5, 6], start=1)), list(reversed(range(3))))
print(sum(range(5)), min(3, 1, 2), max([4, 9, 2]), sorted([3, 1, 2], reverse=True), any([0, 1]), all([]))
print({k: v * 2 for k, v in d.items()}, [x for x in range(6) if x % 2], {x % 3 for x in range(7)})
a, *rest = [1, 2, 3]
print(a, rest, list(map(lambda x: x * x, [1, 2])), list(filter(None, [0, 1, 2])))
