// The itertools module written in our Python subset, loaded on first import. The capture engine inlines it like
// user code, as Dynamo inlines its itertools polyfills; the infinite iterators (count, cycle, repeat without a
// count) and the predicate-driven ones are generators, so they are lazy as CPython's are.
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kItertools = R"PY(
def product(*iterables, repeat=1):
    pools = [list(pool) for pool in iterables] * repeat
    result = [()]
    for pool in pools:
        result = [combination + (item,) for combination in result for item in pool]
    return iter(result)


def chain(*iterables):
    out = []
    for iterable in iterables:
        out.extend(iterable)
    return iter(out)


def from_iterable(iterables):
    out = []
    for iterable in iterables:
        out.extend(iterable)
    return iter(out)


chain.from_iterable = from_iterable


def islice(iterable, *bounds):
    if len(bounds) == 1:
        start, stop, step = 0, bounds[0], 1
    else:
        start = bounds[0] if bounds[0] is not None else 0
        stop = bounds[1]
        step = bounds[2] if len(bounds) > 2 and bounds[2] is not None else 1
    return _islice_items(iter(iterable), start, stop, step)


def _islice_items(iterator, start, stop, step):
    # Lazy, as CPython's: an item is pulled only when asked for, and none past `stop` (infinite inputs work).
    index = 0
    wanted = start
    if stop is not None and index >= stop:
        return
    for item in iterator:
        if index == wanted:
            yield item
            wanted += step
        index += 1
        if stop is not None and index >= stop:
            return


def zip_longest(*iterables, fillvalue=None):
    lists = [list(iterable) for iterable in iterables]
    longest = max([len(items) for items in lists]) if lists else 0
    return iter([tuple(items[i] if i < len(items) else fillvalue for items in lists) for i in range(longest)])


def accumulate(iterable, func=None, *, initial=None):
    items = list(iterable)
    out = []
    total = initial
    if initial is not None:
        out.append(initial)
    for i, item in enumerate(items):
        if i == 0 and initial is None:
            total = item
        elif func is None:
            total = total + item
        else:
            total = func(total, item)
        out.append(total)
    return iter(out)


def repeat(obj, times=None):
    if times is None:
        return _repeat_forever(obj)
    return iter([obj for _ in range(times)])


def _repeat_forever(obj):
    while True:
        yield obj


def count(start=0, step=1):
    n = start
    while True:
        yield n
        n += step


def cycle(iterable):
    saved = list(iterable)
    while saved:
        for element in saved:
            yield element


def starmap(function, iterable):
    return iter([function(*args) for args in iterable])


def takewhile(predicate, iterable):
    for x in iterable:
        if not predicate(x):
            return
        yield x


def dropwhile(predicate, iterable):
    dropping = True
    for x in iterable:
        if dropping and predicate(x):
            continue
        dropping = False
        yield x


def filterfalse(predicate, iterable):
    if predicate is None:
        predicate = bool
    return iter([x for x in iterable if not predicate(x)])


def compress(data, selectors):
    return iter([d for d, s in zip(data, selectors) if s])


def pairwise(iterable):
    items = list(iterable)
    return iter([(items[i], items[i + 1]) for i in range(len(items) - 1)])


def groupby(iterable, key=None):
    groups = []
    for element in iterable:
        k = element if key is None else key(element)
        if groups and groups[-1][0] == k:
            groups[-1][1].append(element)
        else:
            groups.append((k, [element]))
    return iter([(k, iter(members)) for k, members in groups])


def combinations(iterable, r):
    pool = tuple(iterable)
    n = len(pool)
    out = []
    if r > n:
        return iter(out)
    indices = list(range(r))
    out.append(tuple(pool[i] for i in indices))
    while True:
        found = -1
        for i in reversed(range(r)):
            if indices[i] != i + n - r:
                found = i
                break
        if found < 0:
            return iter(out)
        indices[found] += 1
        for j in range(found + 1, r):
            indices[j] = indices[j - 1] + 1
        out.append(tuple(pool[i] for i in indices))


def permutations(iterable, r=None):
    pool = tuple(iterable)
    n = len(pool)
    r = n if r is None else r
    out = []
    for indices in product(range(n), repeat=r):
        if len(set(indices)) == r:
            out.append(tuple(pool[i] for i in indices))
    return iter(out)
)PY";

}  // namespace

const char* itertoolsPolyfillSource() { return kItertools; }

}  // namespace eng::vm
