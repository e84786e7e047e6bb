# torch.compile refuses inductor options when it is called, in PyTorch's wording: an unknown name (with the known
# ones listed) and a value of the wrong type; every option torch accepts is accepted (shape_padding, freezing and
# force_shape_pad are honoured, see the shape_padding and freezing programs).
# expect: Unexpected optimization option max_autotunes ['TYPE_CHECKING'
# expect: Unexpected type of attr max_autotune, got int should be bool
# expect: accepted {'shape_padding': True}
# expect: accepted {'freezing': True, 'force_shape_pad': True}
# expect: [0.0, 2.0]
import torch


def f(x):
    return torch.sin(x) * 2


for options in [{'max_autotunes': True}, {'max_autotune': 1}, {'shape_padding': True}, {'freezing': True, 'force_shape_pad': True}]:
    try:
        torch.compile(f, options=options)
        print("accepted", options)
    except RuntimeError as e:
        parts = str(e).split(", known options are ")
        print(parts[0], parts[1].split(",")[0]) if len(parts) == 2 else print(parts[0])
print(torch.compile(f, options={'shape_padding': False})(torch.tensor([0.0, 1.5707963])).round().tolist())
