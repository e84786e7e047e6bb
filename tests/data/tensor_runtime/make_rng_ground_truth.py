"""PyTorch's CPU random numbers for cwb's generator test (tests/unit/engine/tensor/random_torch_test.cpp).

Run with real torch (the GPU machine has 2.11): OUT=. python3 make_rng_ground_truth.py  -> torch_rng.json
Values are exact: float32 as int32 bit patterns, float64 as int64 ones, integers as they are.
"""
import json, math, os, sys, platform
import torch
import torch.nn.functional as F
out = {}
# The default generator before any seed: first thing in the process.
out["unseeded"] = {"initial_seed": torch.initial_seed(), "rand": torch.rand(5).view(torch.int32).tolist()}

def bits(t):
    t = t.contiguous()
    if t.dtype == torch.float32: return t.view(torch.int32).tolist()
    if t.dtype == torch.float64: return t.view(torch.int64).tolist()
    return t.tolist()

SEEDS = [0, 1, 42, 12345, 2**32 + 7]
SIZES = [1, 7, 15, 16, 17, 100]
DT = {"float32": torch.float32, "float64": torch.float64}
cases = []
def case(name, seed, fn):
    torch.manual_seed(seed)
    v = fn()
    cases.append({"name": name, "seed": seed, "values": v})

for s in SEEDS:
    for n in SIZES:
        for dn, dt in DT.items():
            case(f"rand {n} {dn}", s, lambda: bits(torch.rand(n, dtype=dt)))
            case(f"randn {n} {dn}", s, lambda: bits(torch.randn(n, dtype=dt)))
        case(f"randint 0 10 {n}", s, lambda: torch.randint(0, 10, (n,)).tolist())
        case(f"randperm {n}", s, lambda: torch.randperm(n).tolist())
    for dn, dt in DT.items():
        case(f"uniform_ -0.3 0.7 100 {dn}", s, lambda: bits(torch.empty(100, dtype=dt).uniform_(-0.3, 0.7)))
        case(f"normal_ 0.5 0.02 7 {dn}", s, lambda: bits(torch.empty(7, dtype=dt).normal_(0.5, 0.02)))
        case(f"normal_ 0.5 0.02 100 {dn}", s, lambda: bits(torch.empty(100, dtype=dt).normal_(0.5, 0.02)))
        case(f"randn 3 3 {dn}", s, lambda: bits(torch.cat([torch.randn(3, dtype=dt), torch.randn(3, dtype=dt)])))
        case(f"randn 2x2 transposed {dn}", s, lambda: bits(torch.empty(3, 5, dtype=dt).t().normal_()))
        case(f"exponential_ 20 {dn}", s, lambda: bits(torch.empty(20, dtype=dt).exponential_()))
        case(f"bernoulli_ 0.3 100 {dn}", s, lambda: bits(torch.empty(100, dtype=dt).bernoulli_(0.3)))
        case(f"dropout 0.1 100 {dn}", s, lambda: bits(F.dropout(torch.ones(100, dtype=dt), 0.1, training=True)))
        case(f"dropout 0.5 1000 {dn}", s, lambda: bits(F.dropout(torch.ones(1000, dtype=dt), 0.5, training=True)))
    case("randn mixed", s, lambda: [bits(torch.randn(1, dtype=torch.float64)), bits(torch.randn(1)), bits(torch.randn(1, dtype=torch.float64)), bits(torch.randn(1))])
    case("randint -5 1000 17", s, lambda: torch.randint(-5, 1000, (17,)).tolist())
    case("randint 0 2**40 7", s, lambda: torch.randint(0, 2**40, (7,)).tolist())
    case("randint 3 int32 9", s, lambda: torch.randint(3, (9,), dtype=torch.int32).tolist())
    case("randint 0 10 float32 5", s, lambda: bits(torch.randint(0, 10, (5,), dtype=torch.float32)))
    case("random_ 10 int64 9", s, lambda: torch.empty(9, dtype=torch.int64).random_(10).tolist())
    case("random_ int64 5", s, lambda: torch.empty(5, dtype=torch.int64).random_().tolist())
    case("random_ float32 5", s, lambda: bits(torch.empty(5).random_()))
    case("bernoulli tensor 20", s, lambda: bits(torch.bernoulli(torch.linspace(0, 1, 20))))
    case("multinomial 4 of 10", s, lambda: torch.multinomial(torch.arange(1.0, 11.0), 4).tolist())
    case("multinomial 1 of 10", s, lambda: torch.multinomial(torch.arange(1.0, 11.0), 1).tolist())
    case("multinomial replace 8 of 5", s, lambda: torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.0, 0.4]), 8, replacement=True).tolist())
    # nn.init and modules
    def init(f, *shape, **kw):
        t = torch.empty(*shape)
        f(t, **kw)
        return bits(t)
    case("kaiming_uniform_ a=sqrt5 8x5", s, lambda: init(torch.nn.init.kaiming_uniform_, 8, 5, a=math.sqrt(5)))
    case("kaiming_normal_ 8x5", s, lambda: init(torch.nn.init.kaiming_normal_, 8, 5))
    case("kaiming_normal_ fan_out relu 4x3x3x3", s, lambda: init(torch.nn.init.kaiming_normal_, 4, 3, 3, 3, mode="fan_out", nonlinearity="relu"))
    case("xavier_uniform_ 8x5", s, lambda: init(torch.nn.init.xavier_uniform_, 8, 5))
    case("xavier_normal_ 8x5", s, lambda: init(torch.nn.init.xavier_normal_, 8, 5))
    case("xavier_uniform_ gain2 6x4", s, lambda: init(torch.nn.init.xavier_uniform_, 6, 4, gain=2.0))
    case("trunc_normal_ std0.02 8x5", s, lambda: init(torch.nn.init.trunc_normal_, 8, 5, std=0.02))
    case("trunc_normal_ default 100", s, lambda: init(torch.nn.init.trunc_normal_, 100))
    case("normal_ std0.02 8x5", s, lambda: init(torch.nn.init.normal_, 8, 5, std=0.02))
    case("uniform_ -0.1 0.1 8x5", s, lambda: init(torch.nn.init.uniform_, 8, 5, a=-0.1, b=0.1))
    def linear():
        m = torch.nn.Linear(5, 8)
        return [bits(m.weight.detach()), bits(m.bias.detach())]
    case("Linear 5 8", s, linear)
    case("Embedding 10 4", s, lambda: bits(torch.nn.Embedding(10, 4).weight.detach()))
    def conv():
        m = torch.nn.Conv2d(3, 4, 3)
        return [bits(m.weight.detach()), bits(m.bias.detach())]
    case("Conv2d 3 4 3", s, conv)
    # torch.Generator objects leave the global generator alone
    def gen():
        torch.manual_seed(7)
        g = torch.Generator().manual_seed(s)
        a = bits(torch.rand(5, generator=g))
        b = bits(torch.randn(17, generator=g))
        c = bits(torch.randn(3, generator=g))
        d = torch.randint(0, 100, (6,), generator=g).tolist()
        e = torch.randperm(8, generator=g).tolist()
        f = bits(torch.empty(4).normal_(generator=g))
        h = bits(torch.empty(4).uniform_(generator=g))
        glob = bits(torch.rand(3))
        return [a, b, c, d, e, f, h, glob, g.initial_seed()]
    case("generator", s, gen)

out["cases"] = cases
# initial_seed and get_rng_state / set_rng_state
states = {}
torch.manual_seed(2**40 + 3)
states["initial_seed_big"] = torch.initial_seed()
torch.manual_seed(42)
st0 = torch.get_rng_state()
states["len"] = st0.numel()
states["dtype"] = str(st0.dtype)
states["after_seed42"] = st0.tolist()
torch.randn(3)
torch.randn(1)
torch.randn(1, dtype=torch.float64)
st1 = torch.get_rng_state()
states["after_draws"] = st1.tolist()
a = bits(torch.rand(4))
torch.set_rng_state(st1)
b = bits(torch.rand(4))
states["replay_equal"] = a == b
torch.set_rng_state(st0)
states["after_restore_rand"] = bits(torch.rand(3))
states["after_restore_initial_seed"] = torch.initial_seed()
g = torch.Generator().manual_seed(5)
states["gen_state_after_seed5"] = g.get_state().tolist()
out["states"] = states
out["meta"] = {"torch": torch.__version__, "cpu": torch.backends.cpu.get_cpu_capability(), "machine": platform.machine(),
               "vendor": [l for l in open("/proc/cpuinfo").read().splitlines() if l.startswith("vendor_id")][:1],
               "mkl": torch.backends.mkl.is_available()}
path = os.path.join(os.environ.get("OUT", "."), "torch_rng.json")
json.dump(out, open(path, "w"))
print(out["meta"], len(cases), os.path.getsize(path))
