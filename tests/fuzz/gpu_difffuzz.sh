#!/usr/bin/env bash
# Differential fuzzing on a GPU machine, from a bundle of cwb_difffuzz (tests/gpu/run_gpu_tests.sh package, with
# CWB_GPU_BINARIES=fuzz/cwb_difffuzz): the regression programs on cuda, a seed range on cuda within a budget
# (failures shrunk into OUT/cuda_failures), and, where PyTorch is installed, a sample of programs run by real
# PyTorch (eager and torch.compile, cpu and cuda) with cwb checked against its eager results (OUT/torch).
# Usage: gpu_difffuzz.sh OUT FUZZ_SECONDS SEEDS TORCH_SEEDS     e.g. gpu_difffuzz.sh out 90 1-4000 1-40
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ -n ${CWB_GPU_UNPACKED:-} ]] || exec "$here/../gpu/run_gpu_tests.sh" exec "$0" "$@"
out=${1:?usage: gpu_difffuzz.sh OUT FUZZ_SECONDS SEEDS TORCH_SEEDS}
seconds=${2:-90}
seeds=${3:-1-4000}
torch_seeds=${4:-1-40}
mkdir -p "$out"
status=0
# Runs cwb_difffuzz into OUT/NAME.txt and shows its end; exit 77 (no such device here) is a skip.
step() {
  local name=$1
  shift
  cwb_difffuzz "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.txt"
  [[ $rc -eq 0 || $rc -eq 77 ]] || { echo "$name: FAILED (exit $rc)"; status=1; }
}

# Real PyTorch on a sample, in the background while cwb runs (PyTorch compiles on the CPU cores).
torch_pid=
if python3 -c 'import torch' 2>/dev/null; then
  mkdir -p "$out/torch"
  cwb_difffuzz write --seeds "$torch_seeds" --out "$out/torch"
  python3 "$here/torch_reference.py" --devices cpu,cuda --jobs 8 --timeout 120 "$out"/torch/seed_*.py \
    >"$out/torch/reference.log" 2>&1 &
  torch_pid=$!
fi

# Every recorded program (found on the CPU or on CUDA) must agree on cuda too; then new programs.
shopt -s nullglob
step regressions_cuda --device cuda --timeout 60 check "$here"/regressions/*.py "$here"/regressions_cuda/*.py
step fuzz_cuda --device cuda --timeout 60 fuzz --seeds "$seeds" --budget "$seconds" --out "$out/cuda_failures"

if [[ -n $torch_pid ]]; then
  wait "$torch_pid" || { echo "torch_reference.py failed:"; tail -n 20 "$out/torch/reference.log"; status=1; }
  programs=()
  for p in "$out"/torch/seed_*.py; do [[ -f ${p%.py}.torch.json ]] && programs+=("$p"); done
  if [[ ${#programs[@]} -gt 0 ]]; then
    step torch_check_cuda --device cuda --timeout 60 torch-check "${programs[@]}"
    step torch_check_cpu --device cpu --timeout 60 torch-check "${programs[@]}"
  fi
fi
exit $status
