// heapq for the VM: the native `_heapq` (heapify, heappush, heappop, heapreplace, heappushpop over a list, ordered
// by `<`, as CPython's C module) and the Python half (nlargest, nsmallest) written in the subset over it. The capture
// engine inlines the Python half and breaks the graph at the natives, as Dynamo skips `_heapq`'s builtins.
#include "ops/operators.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

/// Whether `a` sits above `b` in the heap: smaller first, or larger first in a max-heap (`_heapify_max`).
bool above(Interpreter& vm, const Value& a, const Value& b, bool maxHeap) {
    constexpr auto kLess = static_cast<uint32_t>(ops::CompareOperator::Less);
    return vm.truthy(maxHeap ? vm.compare(kLess, b, a) : vm.compare(kLess, a, b));
}

ValueList& heapOf(CallArgs& a, const char* function) {
    if (a.positional.empty() || !a.positional[0].is(Kind::List)) typeError(std::string(function) + "() argument 1 must be list");
    return a.positional[0].as<ListObject>().items;
}

/// Moves the item at `pos` up towards `start` while it belongs above its parent (CPython's _siftdown).
void siftDown(Interpreter& vm, ValueList& heap, size_t start, size_t pos, bool maxHeap) {
    Value item = heap[pos];
    while (pos > start) {
        size_t parent = (pos - 1) / 2;
        if (!above(vm, item, heap[parent], maxHeap)) break;
        heap[pos] = heap[parent];
        pos = parent;
    }
    heap[pos] = item;
}

/// Moves the item at `pos` down to a leaf along the children that belong higher, then back up (CPython's _siftup).
void siftUp(Interpreter& vm, ValueList& heap, size_t pos, bool maxHeap) {
    const size_t end = heap.size(), start = pos;
    Value item = heap[pos];
    for (size_t child = 2 * pos + 1; child < end; child = 2 * pos + 1) {
        if (child + 1 < end && !above(vm, heap[child], heap[child + 1], maxHeap)) ++child;
        heap[pos] = heap[child];
        pos = child;
    }
    heap[pos] = item;
    siftDown(vm, heap, start, pos, maxHeap);
}

void heapify(Interpreter& vm, ValueList& heap, bool maxHeap) {
    for (size_t i = heap.size() / 2; i-- > 0;) siftUp(vm, heap, i, maxHeap);
}

Value heapReplace(Interpreter& vm, ValueList& heap, const Value& item, bool maxHeap) {
    if (heap.empty()) raise("IndexError", "index out of range");
    Value top = heap[0];
    heap[0] = item;
    siftUp(vm, heap, 0, maxHeap);
    return top;
}

Value popLast(ValueList& heap) {
    if (heap.empty()) raise("IndexError", "index out of range");
    Value last = heap.back();
    heap.pop_back();
    return last;
}

const char* kHeapq = R"PY(
from _heapq import heapify, heappush, heappop, heapreplace, heappushpop, _heapify_max, _heapreplace_max


def _best(n, iterable, key, largest):
    # CPython's algorithm, equivalent to sorted(iterable, key=key, reverse=largest)[:n]: the n best (key, order,
    # item) so far in a heap whose top is the worst of them; `order` keeps ties in their first-seen order.
    if n == 1:
        items = list(iterable)
        if not items:
            return []
        pick = max if largest else min
        return [pick(items)] if key is None else [pick(items, key=key)]
    try:
        size = len(iterable)
    except (TypeError, AttributeError):
        pass
    else:
        if n >= size:
            return sorted(iterable, key=key, reverse=largest)[:n]
    if n <= 0:
        return []
    it = iter(iterable)
    step = -1 if largest else 1
    result = []
    for order, elem in zip(range(0, n * step, step), it):
        result.append((elem if key is None else key(elem), order, elem))
    if not result:
        return result
    if largest:
        heapify(result)
    else:
        _heapify_max(result)
    order = n * step
    for elem in it:
        k = elem if key is None else key(elem)
        if (result[0][0] < k) if largest else (k < result[0][0]):
            if largest:
                heapreplace(result, (k, order, elem))
            else:
                _heapreplace_max(result, (k, order, elem))
            order += step
    result.sort(reverse=largest)
    return [entry[2] for entry in result]


def nlargest(n, iterable, key=None):
    return _best(n, iterable, key, True)


def nsmallest(n, iterable, key=None):
    return _best(n, iterable, key, False)
)PY";

}  // namespace

const char* heapqPolyfillSource() { return kHeapq; }

void installHeapq(Interpreter& vm) {
    auto module = std::make_shared<ModuleObject>("_heapq");
    vm.modules()["_heapq"] = Value(module);
    auto def = [&module](const char* name, NativeFn fn) { module->attributes[name] = makeNative(name, std::move(fn)); };
    def("heapify", [](Interpreter& m, CallArgs& a) {
        heapify(m, heapOf(a, "heapify"), false);
        return Value();
    });
    def("_heapify_max", [](Interpreter& m, CallArgs& a) {
        heapify(m, heapOf(a, "_heapify_max"), true);
        return Value();
    });
    def("heappush", [](Interpreter& m, CallArgs& a) {
        ValueList& heap = heapOf(a, "heappush");
        heap.push_back(a.positional.at(1));
        siftDown(m, heap, 0, heap.size() - 1, false);
        return Value();
    });
    def("heappop", [](Interpreter& m, CallArgs& a) {
        ValueList& heap = heapOf(a, "heappop");
        Value last = popLast(heap);
        return heap.empty() ? last : heapReplace(m, heap, last, false);
    });
    def("heapreplace", [](Interpreter& m, CallArgs& a) { return heapReplace(m, heapOf(a, "heapreplace"), a.positional.at(1), false); });
    def("_heapreplace_max", [](Interpreter& m, CallArgs& a) {
        return heapReplace(m, heapOf(a, "_heapreplace_max"), a.positional.at(1), true);
    });
    def("heappushpop", [](Interpreter& m, CallArgs& a) {
        ValueList& heap = heapOf(a, "heappushpop");
        Value item = a.positional.at(1);
        if (heap.empty() || !above(m, heap[0], item, false)) return item;
        std::swap(item, heap[0]);
        siftUp(m, heap, 0, false);
        return item;
    });
}

}  // namespace eng::vm
