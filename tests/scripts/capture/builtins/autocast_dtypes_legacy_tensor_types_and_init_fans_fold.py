# Queries of torch's own state fold at trace time as Dynamo folds them: autocast's default dtypes, the legacy
# tensor type classes (as an argument of t.type(...), and in isinstance), torch.distributed.is_available() and
# torch.nn.init's fan of a weight: one graph, no break.
# expect: torch.float16 torch.float16 torch.bfloat16
# expect: torch.float64 [24.0, 48.0] True False True
# expect: [36.0, 37.0] True
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile(backend="eager")
def f(x, w):
    low = x.type(torch.get_autocast_gpu_dtype())
    wide = x.type(torch.DoubleTensor) * w.shape[0]
    kinds = (isinstance(x, torch.FloatTensor), isinstance(x, torch.cuda.FloatTensor), isinstance(wide, torch.DoubleTensor))
    fan_out = torch.nn.init._calculate_correct_fan(w, "FAN_OUT")
    fan_in = torch.nn.init._calculate_correct_fan(w, "fan_in")
    shifted = x + fan_out + fan_in if torch.distributed.is_available() else x
    return low, torch.get_autocast_dtype("cuda"), torch.get_autocast_cpu_dtype(), wide, kinds, shifted


low, cuda_dtype, cpu_dtype, wide, kinds, shifted = f(torch.tensor([1.0, 2.0]), torch.ones(4, 3, 5))
print(low.dtype, cuda_dtype, cpu_dtype)
print(wide.dtype, (wide * 6).tolist(), *kinds)
print(shifted.tolist(), torch.distributed.is_initialized() is False)
