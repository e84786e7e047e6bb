#!/usr/bin/env bash
# GPU tests on a machine with a CUDA driver but no build tools: `package BUILD_DIR` (here) bundles the test
# binaries and the non-system shared libraries they need (scripts/bundle_binary.sh) into .devbin/
# (git-ignored); `run` (on the GPU machine, from the repository root) unpacks them and runs the CUDA tests, `exec
# COMMAND ARGS...` a command with them on PATH.
# libcuda comes from the machine's driver; NVRTC and cuBLAS from its CUDA toolkit. CWB_GPU_BUNDLE names another
# bundle folder under the repository root (.devbin-NAME), so that several builds can be tested side by side, and
# CWB_GPU_BINARIES packages only some of the test binaries (the working tree and one bundle must stay under the
# GPU machine's 64 MiB transfer limit; `run` runs the binaries its bundle holds). CWB_BUNDLE_LEAVE_OUT (see
# scripts/bundle_binary.sh) drops libraries the GPU machine's image has; with engine_aot_tests the bundle needs it:
# 'lib(crypto|stdc\+\+|xml2|sqlite3|zstd|gcc_s|z|lzma|tinfo|edit|bsd|md|ffi)\.so' ran there (2026-11-26).
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
bundle_dir="$repo_root/.devbin${CWB_GPU_BUNDLE:+-$CWB_GPU_BUNDLE}"
read -r -a binaries <<<"${CWB_GPU_BINARIES:-engine_cuda_tests engine_vm_tests engine_inductor_cuda_tests engine_inductor_tests}"

package() {
    local build_dir=${1:?usage: run_gpu_tests.sh package BUILD_DIR}
    build_dir=$(cd "$build_dir" && pwd)
    # (a worktree's .git is a file: ask git where its exclude file is)
    local exclude
    exclude=$(cd "$repo_root" && realpath -m "$(git rev-parse --git-path info/exclude)")
    mkdir -p "$(dirname "$exclude")"
    grep -qxF '/.devbin*/' "$exclude" 2>/dev/null || echo '/.devbin*/' >>"$exclude"
    local staging
    staging=$(mktemp -d)
    # The tests read tests/data through the absolute path compiled into them; `run` recreates it.
    mkdir -p "$staging/gpu_tests"
    # (grep -m1 stops reading at the first match, so strings may die of SIGPIPE: under pipefail that status would
    # hide the match, and the next binary's empty search would overwrite it)
    local binary data_dir=
    for binary in "${binaries[@]}"; do
        data_dir=$({ strings "$build_dir/tests/$binary" || true; } | grep -m1 '/tests/data$' || true)
        [[ -n $data_dir ]] && break
    done
    echo "$data_dir" >"$staging/gpu_tests/data_dir"
    # Binaries and their non-system libraries (not libcuda, NVRTC or cuBLAS, which the GPU machine has); the
    # script's own .tar.xz of the folder is what travels (compressing twice took minutes).
    "$repo_root/scripts/bundle_binary.sh" "$staging/gpu_tests" "${binaries[@]/#/$build_dir/tests/}" >/dev/null
    rm -rf "$bundle_dir"
    mkdir -p "$bundle_dir"
    mv "$staging/gpu_tests.tar.xz" "$bundle_dir/gpu_tests.tar.xz"
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

# Unpacks the bundle into a fresh folder and sets `bundle` (where its binaries are) and the environment they need.
unpack() {
    local work
    work=$(mktemp -d)
    tar -C "$work" -xJf "$bundle_dir/gpu_tests.tar.xz"
    bundle="$work/gpu_tests"
    local data_dir
    data_dir=$(cat "$bundle/data_dir" 2>/dev/null || true)
    if [[ -n $data_dir && ! -e $data_dir ]]; then
        mkdir -p "$(dirname "$data_dir")"
        ln -s "$repo_root/tests/data" "$data_dir"
    fi
    # The script tests find their programs beside the data folder (tests/scripts).
    local scripts_dir=${data_dir%/data}/scripts
    if [[ -n $data_dir && ! -e $scripts_dir ]]; then ln -s "$repo_root/tests/scripts" "$scripts_dir"; fi
    export LD_LIBRARY_PATH="$bundle:$(cuda_library_dirs)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export CWB_KERNEL_CACHE_DIR="$work/kernels"
}

run() {
    local bundle
    unpack
    local status=0 ran=0
    # Runs one bundled test binary with its arguments; a binary this bundle does not hold is skipped.
    run_if_bundled() {
        local binary=$1; shift
        [[ -x $bundle/$binary ]] || return 0
        ran=$((ran + 1))
        "$bundle/$binary" "$@" || status=1
    }
    # EagerKernelPrefetch counts first launches in a fresh process: the other tests' flash launches queue its kernels.
    run_if_bundled engine_cuda_tests --gtest_filter="-EagerKernelPrefetch.*" "$@"
    run_if_bundled engine_cuda_tests --gtest_filter="EagerKernelPrefetch.*"
    run_if_bundled engine_vm_tests --gtest_filter='VmSharedExamples.*:VmCuda.*'
    # Generated kernels against the reference interpreter, then whole programs compiled for the GPU.
    run_if_bundled engine_inductor_cuda_tests
    run_if_bundled engine_inductor_tests --gtest_filter='*Cuda*'
    # The programs of tests/scripts/**/cuda/: compiled training and optimizer steps (AOT Autograd, both passes' CUDA
    # code) against eager on the GPU, and the rest that need a device.
    run_if_bundled engine_script_tests --gtest_filter='*cuda_*'
    # A second process: kernels now come from the disk cache.
    run_if_bundled engine_cuda_tests --gtest_filter='CudaOps.Reductions'
    [[ -d $CWB_KERNEL_CACHE_DIR ]] && ls "$CWB_KERNEL_CACHE_DIR" | wc -l | xargs echo "kernels in the disk cache:"
    echo "test binaries run: $ran"
    [[ $ran -gt 0 ]] || status=1
    return $status
}

# Runs a command with the bundled binaries on PATH and CWB_GPU_UNPACKED set (tests/fuzz/gpu_difffuzz.sh reruns
# itself so, unpacking once).
exec_bundled() {
    local bundle
    [[ $# -gt 0 ]] || { echo "usage: run_gpu_tests.sh exec COMMAND [ARGS...]" >&2; return 2; }
    unpack
    PATH="$bundle:$PATH" CWB_GPU_UNPACKED=1 "$@"
}

case "${1:-}" in
    package) shift; package "$@" ;;
    run) shift; run "$@" ;;
    exec) shift; exec_bundled "$@" ;;
    *) echo "usage: $0 package BUILD_DIR | run [gtest args] | exec COMMAND [ARGS...]" >&2; exit 2 ;;
esac
