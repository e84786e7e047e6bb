#!/usr/bin/env bash
# GPU tests on a machine with a CUDA driver but no build tools: `package BUILD_DIR` (here) bundles the test
# binaries and the non-system shared libraries they need (scripts/bundle_binary.sh) into .devbin/
# (git-ignored); `run` (on the GPU machine, from the repository root) unpacks them and runs the CUDA tests.
# libcuda comes from the machine's driver; NVRTC and cuBLAS from its CUDA toolkit. CWB_GPU_BUNDLE names another
# bundle folder under the repository root (.devbin-NAME), so that several builds can be tested side by side.
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
bundle_dir="$repo_root/.devbin${CWB_GPU_BUNDLE:+-$CWB_GPU_BUNDLE}"
binaries=(tests/engine_cuda_tests tests/engine_vm_tests tests/engine_inductor_cuda_tests tests/engine_inductor_tests)

package() {
    local build_dir=${1:?usage: run_gpu_tests.sh package BUILD_DIR}
    build_dir=$(cd "$build_dir" && pwd)
    grep -qx '/.devbin*/' "$repo_root/.git/info/exclude" 2>/dev/null || echo '/.devbin*/' >>"$repo_root/.git/info/exclude"
    local staging
    staging=$(mktemp -d)
    # Binaries and their non-system libraries (not libcuda, NVRTC or cuBLAS, which the GPU machine has).
    "$repo_root/scripts/bundle_binary.sh" "$staging/gpu_tests" "${binaries[@]/#/$build_dir/}" >/dev/null
    # The tests read tests/data through the absolute path compiled into them; `run` recreates it.
    strings "$build_dir/tests/engine_vm_tests" | grep -m1 '/tests/data$' >"$staging/gpu_tests/data_dir" || true
    rm -rf "$bundle_dir"
    mkdir -p "$bundle_dir"
    tar -C "$staging" -cJf "$bundle_dir/gpu_tests.tar.xz" gpu_tests
    rm -rf "$staging"
    du -h "$bundle_dir/gpu_tests.tar.xz"
}

cuda_library_dirs() {
    # The toolkit's lib dir and the pip wheels' (PyTorch's image has both); whichever holds libcublas.so.13.
    local dirs=()
    for candidate in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [[ -d $candidate ]] && dirs+=("$candidate"); done
    while IFS= read -r found; do dirs+=("$(dirname "$found")"); done < <(find / -xdev \( -name 'libcublas.so.13' -o -name 'libnvrtc.so.13' \) 2>/dev/null | head -4)
    local IFS=:
    echo "${dirs[*]}"
}

run() {
    local work
    work=$(mktemp -d)
    tar -C "$work" -xJf "$bundle_dir/gpu_tests.tar.xz"
    local bundle="$work/gpu_tests" data_dir
    data_dir=$(cat "$bundle/data_dir" 2>/dev/null || true)
    if [[ -n $data_dir && ! -e $data_dir ]]; then
        mkdir -p "$(dirname "$data_dir")"
        ln -s "$repo_root/tests/data" "$data_dir"
    fi
    export LD_LIBRARY_PATH="$bundle:$(cuda_library_dirs)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export CWB_KERNEL_CACHE_DIR="$work/kernels"
    local status=0
    "$bundle/engine_cuda_tests" "$@" || status=1
    "$bundle/engine_vm_tests" --gtest_filter='VmSharedExamples.*:VmCuda.*' || status=1
    # Generated kernels against the reference interpreter, then whole programs compiled for the GPU.
    "$bundle/engine_inductor_cuda_tests" || status=1
    "$bundle/engine_inductor_tests" --gtest_filter='*Cuda*' || status=1
    # A second process: kernels now come from the disk cache.
    "$bundle/engine_cuda_tests" --gtest_filter='CudaOps.Reductions' || status=1
    ls "$CWB_KERNEL_CACHE_DIR" | wc -l | xargs echo "kernels in the disk cache:"
    return $status
}

case "${1:-}" in
    package) shift; package "$@" ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 package BUILD_DIR | run [gtest args]" >&2; exit 2 ;;
esac
