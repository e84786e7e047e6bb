#!/usr/bin/env bash
# GPT-2's compiled training step with the backward's old synchronising paths (engine/aot/README.md: device bounds
# checks, scalar fills, the index_put's own zeros, the tied gradient summed in the graph, buffers allocated at first
# use) against the new ones, in one process each, and (given the CUPTI tracer) each side's synchronisations.
#   tests/bench/backward_sync_before_after.sh CWB [libcupti_kernel_trace.so]   (on the GPU machine, from the repo root)
# CWB is a runnable cwb (the bench bundle's, tests/bench/inductor_bench.sh); the tracer is cupti_kernel_trace.c built.
set -euo pipefail
cwb=$(realpath "${1:?usage: backward_sync_before_after.sh CWB [CUPTI_TRACER]}")
tracer=${2:+$(realpath "$2")}
old=(CWB_HOST_CHECKS=1 CWB_AOT_DEDUPE_INPUTS=0 CWB_INDEX_PUT_COPIES_ZEROS=1 CWB_ALLOCATE_UPFRONT=1)
traces=$(mktemp -d)
cd "$(dirname "$0")"
for side in before after; do
    switches=()
    [[ $side == before ]] && switches=("${old[@]}")
    echo "== $side"
    env "${switches[@]}" "$cwb" run aot_training_bench.py --device cuda,gpt2,iters=5,warmup=2,modes=inductor | grep -E "^(RESULT|LOSSES)"
    [[ -n $tracer ]] || continue
    env "${switches[@]}" CUDA_INJECTION64_PATH="$tracer" CUPTI_TRACE_FILE="$traces/$side.tsv" "$cwb" run aot_training_bench.py \
        --device cuda,gpt2,iters=2,warmup=1,modes=inductor >/dev/null
    # (the same steps on both sides: the difference of the S counts is the removed synchronisations)
    awk -F'\t' '{n[$1]++} END {printf "trace: %d kernels, %d copies, %d fills, %d synchronisations\n", n["K"], n["M"], n["F"], n["S"]}' "$traces/$side.tsv"
done
rm -rf "$traces"
