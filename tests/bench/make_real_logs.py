#!/usr/bin/env python3
"""Writes the real model TORCH_TRACE logs that the workbench's scale tests, screenshots and import benchmarks read
(CWB_REAL_LOGS_DIR, by default `../reallogs` beside the checkout: `<name>/log/*.log`). Needs torch with CUDA,
transformers and torchvision; models are built from their configs (no downloads), inputs are seeded.

Usage: make_real_logs.py OUT_DIR [--only gpt2_train_cuda,...] [--timeout S]
Each scenario runs in a fresh python3 process with TORCH_TRACE=OUT_DIR/<name>/log and empty Inductor and Triton
caches; all run at once. Its stdout and stderr go to OUT_DIR/<name>/run.txt.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def gpt2_train_cuda():
    """12-layer HuggingFace GPT-2 (124M), two AdamW training steps at 4 x 256 tokens under bfloat16 autocast;
    Inductor's provenance artifacts on."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config()).cuda().train()
    train(model, lambda: {"input_ids": tokens(50257, 4, 256), "labels": tokens(50257, 4, 256)}, torch,
          autocast=torch.bfloat16)


def bert_train_cuda():
    """12-layer HuggingFace BERT-base masked LM, two AdamW training steps."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    model = BertForMaskedLM(BertConfig()).cuda().train()
    train(model, lambda: {"input_ids": tokens(30522, 4, 128), "labels": tokens(30522, 4, 128)}, torch)


def llama_infer_cuda():
    """An 8-layer HuggingFace Llama (hidden 1024, grouped-query attention) in bfloat16, inference at two lengths."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                         num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=1024)
    model = LlamaForCausalLM(config).cuda().to(torch.bfloat16).eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for length in (128, 128, 256):
            logits = compiled(input_ids=tokens(32000, 2, length), use_cache=False).logits
            print("logits", tuple(logits.shape), float(logits.float().abs().mean()))


def resnet18_train_cuda():
    """torchvision ResNet-18 (random weights), two SGD training steps on 224x224 images."""
    import torch
    import torchvision

    model = torchvision.models.resnet18(weights=None).cuda().train()
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(2):
        images = torch.randn(16, 3, 224, 224, device="cuda")
        labels = torch.randint(0, 1000, (16,), device="cuda")
        loss = torch.nn.functional.cross_entropy(compiled(images), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print("step", step, "loss", float(loss))


def gpt2_dynamic_cuda():
    """GPT-2 inference at three sequence lengths: the second length recompiles with a dynamic dimension."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config(n_layer=4)).cuda().eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for length in (64, 96, 128):
            print("logits", tuple(compiled(input_ids=tokens(50257, 2, length), use_cache=False).logits.shape))


def tokens(vocab, batch, length):
    import torch

    return torch.randint(0, vocab, (batch, length), device="cuda")


def train(model, batch, torch, autocast=None):
    import contextlib

    compiled = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(2):
        with torch.autocast("cuda", dtype=autocast) if autocast else contextlib.nullcontext():
            loss = compiled(**batch()).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print("step", step, "loss", float(loss))


SCENARIOS = {f.__name__: f for f in (gpt2_train_cuda, bert_train_cuda, llama_infer_cuda, resnet18_train_cuda,
                                     gpt2_dynamic_cuda)}
PROVENANCE = {"gpt2_train_cuda"}


def child(name):
    import torch

    torch.manual_seed(0)
    if name in PROVENANCE:
        import torch._inductor.config as inductor_config

        if hasattr(inductor_config.trace, "provenance_tracking_level"):
            inductor_config.trace.provenance_tracking_level = 1
    SCENARIOS[name]()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--timeout", type=float, default=420)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    running = []
    for name in args.only.split(","):
        folder = os.path.join(os.path.abspath(args.out), name)
        os.makedirs(os.path.join(folder, "log"), exist_ok=True)
        caches = tempfile.mkdtemp(prefix=f"cwb_{name}_")
        env = dict(os.environ, TORCH_TRACE=os.path.join(folder, "log"), PYTHONHASHSEED="0",
                   TORCH_LOGS="recompiles,graph_breaks", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(caches, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(caches, "triton"))
        if name in PROVENANCE:
            env["INDUCTOR_PROVENANCE"] = "1"
        output = open(os.path.join(folder, "run.txt"), "w")
        process = subprocess.Popen([sys.executable, os.path.abspath(__file__), args.out, "--child", name], env=env,
                                   stdout=output, stderr=subprocess.STDOUT)
        running.append((name, process, time.time()))
    failed = 0
    for name, process, started in running:
        try:
            code = process.wait(timeout=max(1, args.timeout - (time.time() - started)))
        except subprocess.TimeoutExpired:
            process.kill()
            code = "timed out"
        failed += code != 0
        print(f"{name}: exit {code} after {time.time() - started:.0f} s", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
