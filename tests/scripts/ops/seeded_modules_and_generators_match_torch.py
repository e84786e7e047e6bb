# After torch.manual_seed, nn.Linear / nn.Embedding / nn.Conv2d start from real torch 2.11's initial weights, and a
# torch.Generator passed as generator= draws torch's numbers from its own seed while the global generator goes on
# untouched (the expected values are real torch's; tests/data/tensor_runtime/torch_rng.json holds the op-level ones).
import torch

torch.manual_seed(42)
linear = torch.nn.Linear(5, 8)
print(linear.weight[0].double().tolist())
# expect: [0.34191203117370605, 0.3711908161640167, -0.10476983338594437, 0.41081544756889343, -0.09798609465360641]
print(linear.bias.double().tolist())
# expect: [0.12015899270772934, -0.12127512693405151, 0.18821321427822113, 0.39928218722343445, 0.2585161030292511, -0.19550949335098267, 0.2581605911254883, 0.08001824468374252]

torch.manual_seed(42)
print(torch.nn.Embedding(10, 4).weight[0].double().tolist())
# expect: [1.9269152879714966, 1.4872840642929077, 0.9007171988487244, -2.1055209636688232]

torch.manual_seed(42)
conv = torch.nn.Conv2d(3, 4, 3)
print(conv.weight[0, 0, 0].double().tolist())
# expect: [0.14713551104068756, 0.15973509848117828, -0.045085761696100235]
print(conv.bias.double().tolist())
# expect: [-0.16843464970588684, -0.12254029512405396, 0.1923748254776001, 0.03634900227189064]

torch.manual_seed(7)
g = torch.Generator().manual_seed(42)
print(torch.rand(5, generator=g).double().tolist())
# expect: [0.8822692632675171, 0.9150039553642273, 0.38286375999450684, 0.9593056440353394, 0.3904482126235962]
print(torch.randn(17, generator=g)[-2:].double().tolist())
# expect: [-0.5920005440711975, -0.06307438015937805]
print(torch.randn(3, generator=g).double().tolist())
# expect: [-0.3639322817325592, 0.15133808553218842, -0.3514404296875]
print(torch.randint(0, 100, (6,), generator=g).tolist(), torch.randperm(8, generator=g).tolist())
# expect: [43, 94, 93, 77, 70, 9] [2, 6, 1, 7, 3, 4, 0, 5]
print(g.initial_seed(), g.device)
# expect: 42 cpu
# The global generator still holds seed 7's stream.
print(torch.rand(3).double().tolist())
# expect: [0.5349225401878357, 0.19880318641662598, 0.6592116951942444]

# get_rng_state / set_rng_state replay the same draws.
state = torch.get_rng_state()
first = torch.randn(3)
torch.set_rng_state(state)
print(state.dtype, state.shape, torch.equal(first, torch.randn(3)))
# expect: torch.uint8 torch.Size([5056]) True
