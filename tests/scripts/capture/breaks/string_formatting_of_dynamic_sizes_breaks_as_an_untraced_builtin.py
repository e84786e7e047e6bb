# "%dx%d" % tuple(x.shape) once the sizes are dynamic: Dynamo's BuiltinVariable(operator.mod) has no rule for a str
# and a tuple of SymInts, so the frame breaks with "Failed to trace builtin operator" (gb0059) naming `mod` and the
# operands' Python types, and str() of a dynamic torch.Size names its SizeVariable; the results stay eager's.
# expect: 2x3 6.0
# expect: 3x4 12.0
# expect: 4x2 8.0
# expect log: Dynamo does not know how to trace builtin operator `mod` with argument types ['str', 'tuple'] (has_kwargs False)
# expect log: Developer debug context: builtin mod [<class 'torch._dynamo.variables.constant.ConstantVariable'>, <class 'torch._dynamo.variables.lists.TupleVariable'>] False
# expect log: Developer debug context: builtin str [<class 'torch._dynamo.variables.lists.SizeVariable'>] False
import torch


def describe(x):
    shape_text = str(x.shape)
    key = "%dx%d" % tuple(x.shape)
    return key, x.sum() * (len(shape_text) > 0)


opt = torch.compile(describe, backend="eager")
for rows, cols in ((2, 3), (3, 4), (4, 2)):
    key, total = opt(torch.ones(rows, cols))
    print(key, total.item())
