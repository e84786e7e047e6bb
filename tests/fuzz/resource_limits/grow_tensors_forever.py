# Allocates tensors without end: PyTorch's allocator error under the memory cap, not an out-of-memory kill.
import torch

chunks = []
while True:
    chunks.append(torch.ones(10000000))
