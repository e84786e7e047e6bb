#!/usr/bin/env bash
# Runs the flash forward kernel (engine/tensor/cuda_attention.cpp) on host threads for its block shapes, head dims,
# dtypes, causal flags, lengths off the tile sizes and scales of either sign and zero, against a double-precision
# reference: a check of the kernel's logic on a machine without a GPU (minutes; small sizes only). Needs g++ >= 12.
# Usage: run_flash_emulation.sh [L S] (extra lengths for every shape, e.g. 1031 1031: slow)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/make_kernel.py" "$repo/engine/tensor/cuda_attention.cpp" > "$work/kernel.inc"
failed=0
# warps slices keys stages headdim causal dtype
for shape in "4 2 64 2 64 0 bf16" "4 1 64 2 64 1 bf16" "4 1 128 2 64 1 bf16" "4 2 128 2 64 0 bf16" "4 1 128 2 64 0 bf16" \
             "4 2 128 2 64 1 f16" "4 2 64 2 16 0 f16" "4 1 64 2 32 1 bf16" "4 1 32 3 128 0 bf16" "4 1 32 3 128 1 f16"; do
    read -r w s n p d c t <<<"$shape"
    f16=""; [ "$t" = f16 ] && f16="-DCWB_F16"
    g++ -std=c++20 -O1 -w $f16 -DCWB_ENTRY=flash -DCWB_D="$d" -DCWB_CAUSAL="$c" -DFWARPS="$w" -DSLICES="$s" -DBN="$n" -DSTAGES="$p" \
        -I"$here" -I"$work" "$here/emulate_main.cpp" -o "$work/emulate" -pthread
    echo "== warps=$w,slices=$s,keys=$n,stages=$p head dim $d $t$([ "$c" = 1 ] && echo ' causal')"
    for case in "1 1 0.125" "129 129 0.125" "127 129 0.125" "129 1 0.125" "1 300 0.125" "300 257 0.125" "129 127 -0.3" "129 127 0" \
                "127 33 0.7" ${1:+"$1 $2 0.125"}; do
        # shellcheck disable=SC2086
        "$work/emulate" $case || failed=1
    done
done
[ "$failed" = 0 ] && echo "all cases within tolerance" || { echo "FAILED"; exit 1; }
