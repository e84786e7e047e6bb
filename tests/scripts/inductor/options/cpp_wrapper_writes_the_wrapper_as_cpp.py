# cpp_wrapper: the output code's wrapper is written as C++, as PyTorch's cpp_wrapper output code holds it in
# cpp_wrapper_src. cwb never runs a Python wrapper: its executor, compiled C++, runs the same schedule with and
# without the option, so both equal eager and only the option's output code changes language.
# expect: True
# expect code_count 1: cpp_wrapper_src = '''
# expect code_count 1: std::vector<at::Tensor> call(std::vector<at::Tensor> args) {
# expect code_count 1:     auto buf1 = empty_strided({8}, {1}, cached_torch_dtype_float32);
# expect code_count 1: def call(args):
# expect code_count 1:     buf1 = empty_strided((8,), (1,), dtype=torch.float32)
from _lib.eager_comparison import same_as_eager
import torch


def f(x, y):
    return torch.sin(x) * 2 + y, torch.mm(x.reshape(2, 4), y.reshape(4, 2))


x, y = torch.randn(8), torch.randn(8)
eager = list(f(x, y))
print(same_as_eager([eager * 2, list(torch.compile(f)(x, y)) + list(torch.compile(f, options={"cpp_wrapper": True})(x, y))]))
