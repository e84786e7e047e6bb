# torch.fmax / torch.fmin take the number where exactly one operand is NaN (torch.maximum propagates it), on
# float tensors, with integers as maximum / minimum: compiled for the inductor's reference interpreter and eager
# both give torch's documented values.
# env: CWB_INDUCTOR_CODEGEN=interpreter
# expect: [1.0, 3.0, nan, 4.0, 0.5, 7.0]
# expect: [1.0, 3.0, nan, -2.0, 0.5, -0.0]
# expect: [1.0, 3.0, nan, 4.0, 0.5, 7.0]
# expect: [1.0, 3.0, nan, -2.0, 0.5, -0.0]
# expect: [nan, nan, nan, 4.0, 0.5, 7.0]
# expect: [2, 3, 0, 9]
# expect: [-7, -3, 0, 5]
# expect: True
# expect unique_graphs: 1
from _lib.nan_extrema import print_compiled_and_eager

print_compiled_and_eager()
