#!/usr/bin/env python3
"""Writes a synthetic TORCH_TRACE log with one compile whose Dynamo graph has about N nodes (default 2,000):
a stack of MLP blocks (linear, gelu, linear, residual add, layer_norm, a SiLU-style gate), parameters lifted as
placeholders the way Dynamo names them, and Inductor output code whose Triton kernels carry the fusion comments.
Used to measure the graph view at scale: `cwb open big.log --view graph --select 0/0 --frames N --dump-ui`.

Usage: make_big_graph_log.py OUT.log [--nodes 2000]
"""
import argparse
import hashlib
import json

HEADER = "V1122 07:01:46.{:06d} 4242 torch/_dynamo/output_graph.py:2423] "


def record(lines, counter, envelope, payload=None):
    counter[0] += 1
    if payload is not None:
        envelope["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    lines.append(HEADER.format(counter[0]) + json.dumps(envelope))
    if payload is not None:
        lines.extend("\t" + line for line in payload.split("\n"))


class Names:
    """FX numbering: linear, linear_1, linear_2, ..."""

    def __init__(self):
        self.counts = {}

    def __call__(self, base):
        n = self.counts.get(base, 0)
        self.counts[base] = n + 1
        return base if n == 0 else f"{base}_{n}"


def build(node_target):
    names = Names()
    per_block_nodes = 14  # 6 parameters + 8 ops
    blocks = max(1, (node_target - 2 + per_block_nodes - 1) // per_block_nodes)
    params, body, kernels = [], [], []
    t = '"f32[64, 256][256, 1]cuda:0"'
    x = "l_x_"
    for b in range(blocks):
        prefix = f"l_self_modules_layers_modules_{b}_modules_"
        p = {}
        for module, kinds in (("fc1", ("weight", "bias")), ("fc2", ("weight", "bias")), ("norm", ("weight", "bias"))):
            for kind in kinds:
                p[module, kind] = f"{prefix}{module}_parameters_{kind}_"
                params.append(p[module, kind])
        lin1, gelu, lin2, add = names("linear"), names("gelu"), names("linear"), names("add")
        norm, mul, sig, gate = names("layer_norm"), names("mul"), names("sigmoid"), names("mul")

        def line(no, code):
            body.append(f"        # File: model.py:{no} in forward, code: {code}")

        line(20, "h = self.fc1(x)")
        body.append(f"        {lin1}: {t} = torch._C._nn.linear({x}, {p['fc1', 'weight']}, {p['fc1', 'bias']})")
        line(21, "h = F.gelu(h)")
        body.append(f"        {gelu}: {t} = torch._C._nn.gelu({lin1})")
        line(22, "h = self.fc2(h)")
        body.append(f"        {lin2}: {t} = torch._C._nn.linear({gelu}, {p['fc2', 'weight']}, {p['fc2', 'bias']})")
        line(23, "x = x + h")
        body.append(f"        {add}: {t} = torch.add({x}, {lin2})")
        line(24, "x = self.norm(x)")
        body.append(f"        {norm}: {t} = torch.nn.functional.layer_norm({add}, (256,), "
                    f"{p['norm', 'weight']}, {p['norm', 'bias']}, 1e-05)")
        line(25, "x = x * 0.5 * torch.sigmoid(x)")
        body.append(f"        {mul}: {t} = torch.mul({norm}, 0.5)")
        body.append(f"        {sig}: {t} = torch.sigmoid({norm})")
        body.append(f"        {gate}: {t} = torch.mul({mul}, {sig})")
        kernels.append((f"triton_poi_fused_gelu_{2 * b}", [gelu]))
        kernels.append((f"triton_per_fused_add_layer_norm_mul_sigmoid_{2 * b + 1}", [add, norm, mul, sig, gate]))
        x = gate
    signature = ", ".join([f'L_x_: {t}'] + [f'{name[0].upper()}{name[1:]}: "f32[256, 256][256, 1]cuda:0"'
                                            for name in params])
    text = ["class GraphModule(torch.nn.Module):", f"    def forward(self, {signature}):",
            "        l_x_ = L_x_"]
    text += [f"        {name} = {name[0].upper()}{name[1:]}" for name in params]
    text.append("")
    text += body
    text.append(f"        return ({x},)")
    text.append("")
    return "\n".join(text), kernels


def output_code(kernels):
    out = ["# AOT ID: ['0_inference']", "from ctypes import c_void_p, c_long, c_int", "import torch",
           "from torch._inductor.async_compile import AsyncCompile", "async_compile = AsyncCompile()", ""]
    for name, nodes in kernels:
        out += ["", f"# kernel path: /tmp/synthetic/{name}.py",
                f"# Topologically Sorted Source Nodes: [{', '.join(nodes)}], Original ATen: [aten.mul]",
                f"{name} = async_compile.triton('{name}', '''",
                "@triton.jit", f"def {name}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):",
                "    xnumel = 16384", "    x0 = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]",
                "    tmp0 = tl.load(in_ptr0 + (x0), None)", "    tl.store(out_ptr0 + (x0), tmp0, None)",
                "''', device_str='cuda')"]
    out += ["", "async_compile.wait(globals())", "del async_compile", "", "def call(args):", "    pass", ""]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--nodes", type=int, default=2000)
    args = parser.parse_args()
    graph, kernels = build(args.nodes)
    lines, counter = [], [0]
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    record(lines, counter, {"str": ["model.py", 0]})
    record(lines, counter, {"dynamo_start": {"stack": [{"line": 10, "name": "forward", "filename": 0}]}, **ids})
    record(lines, counter, {"dynamo_output_graph": {"sizes": {}}, **ids}, graph)
    record(lines, counter, {"inductor_output_code": {"filename": "/tmp/synthetic/big.py"}, **ids},
           output_code(kernels))
    record(lines, counter, {"compilation_metrics": {"compile_id": "0/0", "co_name": "forward",
                                                    "co_filename": "model.py", "co_firstlineno": 10,
                                                    "fail_type": None, "graph_node_count": args.nodes}, **ids})
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
