# resource.getrusage(RUSAGE_SELF) and time.process_time, as under CPython: CPU times that grow with work and minor
# page faults that grow when fresh memory is touched (what tests/bench/cpu_eager_ops.py counts per call).
import resource
import time

import torch

before = resource.getrusage(resource.RUSAGE_SELF)
cpu_before = time.process_time()
x = torch.ones(1000, 1000)  # 4 MB, written once: fresh pages
for i in range(100):
    x = x + 1.0
after = resource.getrusage(resource.RUSAGE_SELF)
cpu_after = time.process_time()
print(type(before).__name__)
print(after.ru_minflt > before.ru_minflt, after.ru_utime + after.ru_stime > before.ru_utime + before.ru_stime)
print(cpu_after > cpu_before, after.ru_maxrss > 0, after.ru_majflt >= 0, float(x[999, 999]) == 101.0)
# expect: struct_rusage
# expect: True True
# expect: True True True True
