# Item assignment after an automatic-dynamic recompile: a whole dim and a constant int stay a where in the kernel,
# slices and negative ints of the dynamic dim (whose bounds the kernel cannot know) become an extern index_put on a
# copy, a mask computed from the written tensor a where; every size gives eager's values.
# expect: 3 True [[5.0, 3.0], [5.0, -1.0], [0.5, 0.5]]
# expect: 4 True [[5.0, 3.0], [5.0, -1.0], [5.0, -1.0], [0.5, 0.5]]
# expect: 5 True [[5.0, 3.0], [5.0, -1.0], [5.0, -1.0], [5.0, -1.0], [0.5, 0.5]]
# expect graph_breaks: 0
# expect recompiles: 1
# expect code_files: cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels
# expect code[1]: extern_kernels.index_put
import torch


def f(x):
    y = x * 2
    y[:, 0] = 4.0
    y[1:, 1] = -2.0
    y[-1] = 9.0
    y[y > 8] = -0.5
    return y + 1


compiled = torch.compile(f)
for n in (3, 4, 5):
    x = torch.arange(n * 2, dtype=torch.float32).reshape(n, 2)
    y = compiled(x)
    print(n, torch.equal(y, f(x)), y.tolist())
