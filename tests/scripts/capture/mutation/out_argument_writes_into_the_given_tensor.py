# A torch function called with out= in compiled code writes its result into the given tensor, as eager does: the
# caller sees it on every call (cached ones too), later reads in the frame see the new values, and the call returns
# that tensor. The graph holds the op and then `out.copy_(result)`, a traced in-place write every backend sees.
# expect: [3.0, 6.0, 9.0] [4.0, 7.0, 10.0] True
# expect: [6.0, 12.0, 18.0] [7.0, 13.0, 19.0] True
# expect graph_breaks: 0
# expect unique_graphs: 1
# expect graph_code: copy_ = l_out_.copy_(mul)
import torch


@torch.compile
def scale_into(x, out):
    r = torch.mul(x, 3, out=out)
    return out + 1, r is out


x = torch.arange(1.0, 4.0)
for k in (1.0, 2.0):
    out = torch.zeros(3)
    plus_one, same = scale_into(x * k, out)
    print(out.tolist(), plus_one.tolist(), same)
