// Helpers of the AOT Autograd tests: run a script with AOT Autograd in front of the inductor and aot_eager, and
// compare what main() returned for eager and for the compiled run.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../capture/capture_support.h"
#include "aot/aot_backend.h"
#include "inductor/inductor_backend.h"

namespace aottest {

inline capturetest::CapturedRun runWithAot(const std::string& source, const std::string& filename = "train.py", eng::vm::ValueList args = {}) {
    eng::inductor::installInductorBackend();
    eng::aot::installAotAutograd();
    return capturetest::runCaptured(source, filename, "main", std::move(args));
}

/// main() returned [eager values, compiled values]: every tensor must agree within float tolerance.
inline void expectSameAsEager(const capturetest::CapturedRun& run, double tolerance = 1e-4) {
    ASSERT_TRUE(run.ok) << run.error << run.out;
    const auto& pair = run.returned.as<eng::vm::ListObject>().items;
    const auto& eager = pair.at(0).as<eng::vm::ListObject>().items;
    const auto& compiled = pair.at(1).as<eng::vm::ListObject>().items;
    ASSERT_EQ(eager.size(), compiled.size());
    for (size_t i = 0; i < eager.size(); ++i) {
        const auto a = capturetest::tensorValues(eager[i]);
        const auto b = capturetest::tensorValues(compiled[i]);
        ASSERT_EQ(a.size(), b.size()) << "value " << i;
        for (size_t k = 0; k < a.size(); ++k)
            ASSERT_NEAR(a[k], b[k], tolerance * (1.0 + std::abs(a[k]))) << "value " << i << " element " << k;
    }
}

/// A two-layer MLP `MLP()(x [N, 16]) -> [N, 8]` (needs torch and nn imported).
inline const char* const kSmallMlp = R"(
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)) * 2.0 - torch.tanh(self.fc1(x)))
)";

/// A LayerNorm / GELU (both forms) / softmax / cross-entropy block `Block()(x [N, 24], y [N] classes < 10)` (needs
/// torch, nn and F imported).
inline const char* const kLayerNormBlock = R"(
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(24)
        self.up = nn.Linear(24, 48)
        self.down = nn.Linear(48, 10)

    def forward(self, x, y):
        h = F.gelu(self.up(self.norm(x)))
        h = h + F.gelu(h, approximate="tanh") * 0.5
        logits = self.down(h)
        p = torch.softmax(logits, dim=-1)
        return F.cross_entropy(logits, y) + (p * p).sum() * 0.01 - F.log_softmax(logits, dim=1).mean() * 0.1
)";

/// A script defining `f` and `run(fn)` (which returns a list of tensors), with a main() that runs f eagerly and
/// compiled with `backend`.
inline std::string eagerAndCompiled(const std::string& definitions, const std::string& backend = "inductor") {
    return definitions + "\ndef main():\n    return [run(f), run(torch.compile(f, backend=\"" + backend + "\"))]\n";
}

}  // namespace aottest
