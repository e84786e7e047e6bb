// Helpers of the AOT Autograd tests: run a script with AOT Autograd in front of the inductor and aot_eager, and
// compare what main() returned for eager and for the compiled run.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "../capture/capture_support.h"
#include "aot/aot_backend.h"
#include "inductor/inductor_backend.h"

namespace aottest {

/// tests/scripts/: programs run here import the test programs' shared models (`from _lib.models import MLP`).
inline const std::filesystem::path kScriptsDir = std::filesystem::path(CWB_TEST_DATA_DIR).parent_path() / "scripts";

inline capturetest::CapturedRun runWithAot(const std::string& source, const std::string& filename = "train.py", eng::vm::ValueList args = {}) {
    eng::inductor::installInductorBackend();
    eng::aot::installAotAutograd();
    return capturetest::runCaptured(source, filename, "main", std::move(args), nullptr, std::nullopt, {kScriptsDir});
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

/// The two-layer MLP `MLP()(x [N, 16]) -> [N, 8]` and the LayerNorm / GELU / softmax / cross-entropy
/// `Block()(x [N, 24], y [N] classes < 10)` of tests/scripts/_lib/models.py, imported.
inline const char* const kSmallMlp = "from _lib.models import MLP\n";
inline const char* const kLayerNormBlock = "from _lib.models import Block\n";

/// A script defining `f` and `run(fn)` (which returns a list of tensors), with a main() that runs f eagerly and
/// compiled with `backend`.
inline std::string eagerAndCompiled(const std::string& definitions, const std::string& backend = "inductor") {
    return definitions + "\ndef main():\n    return [run(f), run(torch.compile(f, backend=\"" + backend + "\"))]\n";
}

}  // namespace aottest
