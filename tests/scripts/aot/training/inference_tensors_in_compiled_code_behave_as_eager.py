# Inference tensors and compiled code, as in PyTorch: a compiled function called in inference mode returns inference
# tensors; a training graph that must save an inference tensor raises autograd's error as eagerly; t.is_inference()
# in a compiled frame breaks the graph with Dynamo's reason (it traces with inference mode off).
# expect: compiled in inference mode True True
# expect: compiled outside False
# expect: eager Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.
# expect: compiled Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.
# expect: a clone trains True
# expect: is_inference breaks True True
# expect log: Encountered tensor.is_inference() during tracing
import torch


def f(x):
    return torch.sin(x) * 2


torch.manual_seed(0)
compiled = torch.compile(f)
x = torch.randn(4)
with torch.inference_mode():
    out = compiled(x)
    print("compiled in inference mode", out.is_inference(), torch.allclose(out, f(x)))
print("compiled outside", compiled(x).is_inference())

with torch.inference_mode():
    y = torch.randn(4)
w = torch.randn(4, requires_grad=True)


def g(w, y):
    return (w * y).sum()


for name, fn in [("eager", g), ("compiled", torch.compile(g))]:
    try:
        fn(w, y)
        print(name, "no error")
    except RuntimeError as e:
        print(name, e)
loss = torch.compile(g)(w, y.clone())
loss.backward()
print("a clone trains", torch.allclose(w.grad, y))


def h(t):
    if t.is_inference():
        return t + 1
    return t - 1


ch = torch.compile(h)
print("is_inference breaks", ch(y).tolist() == h(y).tolist(), ch(x).tolist() == h(x).tolist())
