# Where eager CPU pointwise time goes: each op on [4096, 4096] float32 with a fresh result (what the bench's eager
# rows time), into `out=`, and in place on a scratch tensor (no allocation), with page faults and CPU time per call.
# `cwb run tests/bench/cpu_eager_ops.py` against `python3 tests/bench/cpu_eager_ops.py`; one line per op and form.
import resource
import time

import torch
import torch.nn.functional as F

N = 4096

# (name, fresh result, into out=, in place on s, reading x): None where torch has no such form.
OPS = [
    ("gelu", lambda x: F.gelu(x), None, None),
    ("tanh", lambda x: torch.tanh(x), lambda x, o: torch.tanh(x, out=o), lambda s, x: s.tanh_()),
    ("sigmoid", lambda x: torch.sigmoid(x), lambda x, o: torch.sigmoid(x, out=o), lambda s, x: s.sigmoid_()),
    ("sin", lambda x: torch.sin(x), lambda x, o: torch.sin(x, out=o), lambda s, x: s.sin_()),
    ("add", lambda x: torch.add(x, x), lambda x, o: torch.add(x, x, out=o), lambda s, x: s.add_(x)),
    # Memory alone: a fresh tensor written once (allocation and first touch) against the same writes into s.
    ("fill", lambda x: torch.empty(N, N).fill_(1.0), None, lambda s, x: s.fill_(1.0)),
    ("copy", lambda x: x.clone(), None, lambda s, x: s.copy_(x)),
]


def usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return [r.ru_minflt, r.ru_utime, r.ru_stime]


def measure(fn, iters):
    """Median ms a call; minor page faults, user and system CPU ms per call (all threads) over the timed calls."""
    fn()
    before = usage()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    after = usage()
    times.sort()
    per = [(after[i] - before[i]) / iters for i in range(3)]
    return "ms {:.3f} faults {:.0f} user_ms {:.1f} sys_ms {:.1f}".format(
        1000.0 * times[len(times) // 2], per[0], 1000.0 * per[1], 1000.0 * per[2])


def run_all():
    # randn, as the bench's rows. Repeated in place, sin_ soon sees arguments in [-1, 1] only, where libmvec's sin
    # takes fewer instructions than on randn's: its in-place row is not the fresh row's work.
    x = torch.randn(N, N)
    out = torch.empty(N, N)
    scratch = torch.empty(N, N)
    scratch.copy_(x)
    threads_all = torch.get_num_threads()
    print("THREADS default", threads_all)
    counts = [threads_all]
    for t in [8, 1]:
        if t < threads_all and t not in counts:
            counts.append(t)
    for threads in counts:
        torch.set_num_threads(threads)
        iters = 11 if threads > 1 else 3
        for name, fresh, into, inplace in OPS:
            print("OP", name, "threads", threads, "fresh", measure(lambda: fresh(x), iters))
            if into is not None:
                print("OP", name, "threads", threads, "out", measure(lambda: into(x, out), iters))
            if inplace is not None:
                # tanh, sigmoid and sin stay finite when repeated; add doubles s, far from overflow in 12 calls.
                scratch.copy_(x)
                print("OP", name, "threads", threads, "inplace", measure(lambda: inplace(scratch, x), iters))
    torch.set_num_threads(threads_all)


run_all()
