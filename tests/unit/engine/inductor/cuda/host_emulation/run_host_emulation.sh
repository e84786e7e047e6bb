#!/usr/bin/env bash
# Runs the GPU tests of cuda_codegen_run_test.cpp on the host emulator (no GPU needed; slow: sizes are shrunk
# so that one OS thread per CUDA thread stays affordable). Usage: run_host_emulation.sh BUILD_DIR [gtest filter]
# BUILD_DIR must have built engine_inductor_cuda_tests (its static libraries are linked here, with LLVM's for the
# NVPTX and CPU code generators they call).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../../../.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Shrink the largest sizes and point the tests at the emulator instead of a device.
sed -e 's/5000/50/g; s/8195/1203/g; s/3000/700/g; s/4096/409/g; s/100000/10000/g; s/{300, 1000}/{30, 1000}/' \
    -e 's/std::pair{513, 300}/std::pair{51, 300}/; s/std::pair{1000, 64}/std::pair{100, 64}/; s/std::pair{33, 2500}/std::pair{13, 2500}/' \
    -e 's/std::tuple{50, 30, 70}/std::tuple{5, 30, 70}/; s/std::pair{1000, 33}/std::pair{100, 33}/' \
    -e 's/eng::cuda::cudaAvailable()/true/' -e 's/runAndCompare(/emulateAndCompare(/g' \
    -e 's/#include "cuda_test_support.h"/#include "cuda_test_support.h"\n#include "host_emulation.h"/' \
    "$here/../cuda_codegen_run_test.cpp" > "$work/emulated_run_test.cpp"
cuda=${CUDA_HOME:-/usr/local/cuda}
g++ -std=c++20 -O1 -DCWB_EMU_ENGINE_DIR="\"$repo/engine\"" -I"$repo/engine" -I"$here/.." -I"$here" -I"$cuda/include" \
    "$work/emulated_run_test.cpp" -o "$work/emulated_run_test" \
    -lgtest_main -lgtest "$build/engine/libcwb_inductor_cuda.a" "$build/engine/libcwb_inductor_nvptx.a" \
    "$build/engine/libcwb_inductor_cpu.a" "$build/engine/libcwb_inductor_ir.a" \
    "$build/engine/libcwb_engine_tensor.a" "$build/engine/libcwb_engine_cuda.a" "$build/engine/libcwb_engine_kernel_cache.a" \
    "$build/engine/libcwb_engine_python.a" \
    -L"$cuda/lib" -L"$cuda/lib64" -L"$cuda/lib/stubs" -L"$cuda/lib64/stubs" -lnvrtc -lcuda -lcublas -lopenblas -lfmt -ldl -lpthread \
    $(llvm-config-19 --ldflags --libs all) \
    -Wl,-rpath,"$cuda/lib:$cuda/lib64"
CWB_EMU_DIR="$work" "$work/emulated_run_test" --gtest_filter="${2:-*}"
