# A failing tensor op raises PyTorch's exception class and message, with the user's file and line.
# expect error:   File "vm/torch/tensor_errors_carry_pytorchs_class_and_line.py", line 7, in <module>
# expect error: RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1
import torch
a = torch.ones(2, 3)
b = torch.ones(4)
c = a + b
