#!/usr/bin/env bash
# cwb against PyTorch on the inductor benchmark (tests/bench/inductor_bench.py): `package BUILD_DIR` (here) bundles
# the cwb binary into .bench/ (git-ignored); `run [BUNDLE] [WORKLOAD...]` (on the GPU machine, from the repository
# root) runs every workload under python3 and cwb, one process each, and prints one Markdown table.
#
#   tests/bench/inductor_bench.sh package build-bench        # here: writes .bench/cwb_bench.tar.xz
#   tests/bench/inductor_bench.sh run .bench                 # there: all workloads; or e.g. `run .bench B1 B4`
#   tests/bench/inductor_bench.sh table RESULTS_DIR          # the table again, from the raw RESULT lines
#   tests/bench/inductor_bench.sh compiled-cold .bench B1 B7 # there: cwb's compiled-only cold and warm first calls
# BUNDLE is a folder holding cwb_bench.tar.xz or an unpacked bundle (cwb and its libraries), or a cwb binary.
# Results (raw RESULT lines, stderr of each run) go to $BENCH_RESULTS (default $OUT/bench when $OUT is set,
# else .bench/results); `run` appends, so several calls (e.g. workloads split across calls) build one table.
# BENCH_SPEC adds SPEC tokens to every run (e.g. "iters=100,warmup=20"); BENCH_DEVICE=cpu (with BENCH_SPEC=small)
# tries the runner on a machine without a GPU; BENCH_ONE_PROCESS=1 runs all workloads in one process per engine.
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../.." && pwd)
script=tests/bench/inductor_bench.py
workloads_all=(copy B1 B2 B3 B4 B4bf16 B5 B6 B7)
# The table's order: every workload, with the single CPU ops (not run by default: named, e.g. `run BUNDLE gelu`).
workloads_table=("${workloads_all[@]}" gelu tanh sigmoid sin add mm)

package() {
    local build_dir=${1:?usage: inductor_bench.sh package BUILD_DIR}
    build_dir=$(cd "$build_dir" && pwd)
    # (a worktree's .git is a file: ask git where its exclude file is)
    local exclude
    exclude=$(cd "$repo_root" && realpath -m "$(git rev-parse --git-path info/exclude)")
    mkdir -p "$(dirname "$exclude")"
    grep -qx '/.bench/' "$exclude" 2>/dev/null || echo '/.bench/' >>"$exclude"
    local staging
    staging=$(mktemp -d)
    # cwb and its non-system libraries (not libcuda, NVRTC or cuBLAS, which the GPU machine has); the script
    # also writes the folder's .tar.xz, which is what travels.
    "$repo_root/scripts/bundle_binary.sh" "$staging/cwb_bench" "$build_dir/app/cwb" >/dev/null
    mkdir -p "$repo_root/.bench"
    mv -f "$staging/cwb_bench.tar.xz" "$repo_root/.bench/cwb_bench.tar.xz"
    rm -rf "$staging"
    du -h "$repo_root/.bench/cwb_bench.tar.xz"
}

cuda_library_dirs() {
    # The toolkit's lib dir and the pip wheels' (PyTorch's image has both); whichever holds libcublas.so.13.
    local dirs=()
    for candidate in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [[ -d $candidate ]] && dirs+=("$candidate"); done
    while IFS= read -r found; do dirs+=("$(dirname "$found")"); done < <(find / -xdev \( -name 'libcublas.so.13' -o -name 'libnvrtc.so.13' \) 2>/dev/null | head -4)
    local IFS=:
    echo "${dirs[*]}"
}

# Prints the path of a runnable cwb for BUNDLE (unpacking a tarball into a temporary folder first).
locate_cwb() {
    local bundle=$1
    if [[ -f $bundle && -x $bundle ]]; then echo "$bundle"; return; fi
    if [[ -f $bundle/cwb_bench.tar.xz ]]; then
        local work
        work=$(mktemp -d)
        tar -C "$work" -xJf "$bundle/cwb_bench.tar.xz"
        echo "$work/cwb_bench/cwb"
        return
    fi
    for candidate in "$bundle/cwb" "$bundle/cwb_bench/cwb" "$bundle/app/cwb"; do
        [[ -x $candidate ]] && { echo "$candidate"; return; }
    done
    echo "inductor_bench.sh: no cwb in $bundle" >&2
    exit 2
}

results_dir() {
    if [[ -n ${BENCH_RESULTS:-} ]]; then echo "$BENCH_RESULTS"
    elif [[ -n ${OUT:-} ]]; then echo "$OUT/bench"
    else echo "$repo_root/.bench/results"; fi
}

# Runs WORKLOADS (comma-separated) under PyTorch and cwb, one process each, into RESULTS/{torch,cwb}_NAME.out.
run_workloads() {
    local cwb=$1 results=$2 device=$3 spec=$4 name=$5 workloads=$6
    # Caches off on both sides, so that cold means cold: an empty kernel cache for cwb, and for both an empty CUDA
    # compute cache (NVRTC's CUBINs come from it when the same PTX was seen before, which made a second run's
    # "cold" compile 10x faster).
    local cache
    echo "== $name: PyTorch" >&2
    cache=$(mktemp -d)
    CUDA_CACHE_PATH=$cache/nv TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 python3 -u "$script" "$device,$workloads${spec:+,$spec}" \
        >"$results/torch_$name.out" 2>"$results/torch_$name.err" ||
        echo "RESULT torch $name all error=exit status $? (see torch_$name.err)" >>"$results/torch_$name.out"
    rm -rf "$cache"
    echo "== $name: cwb" >&2
    cache=$(mktemp -d)
    CUDA_CACHE_PATH=$cache/nv CWB_KERNEL_CACHE_DIR=$cache/kernels "$cwb" run "$script" --device "$device,$workloads${spec:+,$spec}" \
        >"$results/cwb_$name.out" 2>"$results/cwb_$name.err" ||
        echo "RESULT cwb $name all error=exit status $? (see cwb_$name.err)" >>"$results/cwb_$name.out"
    rm -rf "$cache"
    grep -h '^RESULT' "$results/torch_$name.out" "$results/cwb_$name.out" | grep 'error=' >&2 || true
}

run() {
    local bundle=${1:-$repo_root/.bench}
    [[ $# -gt 0 ]] && shift
    local workloads=("$@")
    [[ ${#workloads[@]} -gt 0 ]] || workloads=("${workloads_all[@]}")
    local cwb results spec=${BENCH_SPEC:-} device=${BENCH_DEVICE:-cuda}
    cwb=$(locate_cwb "$bundle")
    results=$(results_dir)
    mkdir -p "$results"
    cd "$repo_root"
    export LD_LIBRARY_PATH="$(dirname "$cwb"):$(cuda_library_dirs)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # One process per workload and engine: a crash costs one row, and every cold compile starts from the same
    # state. BENCH_ONE_PROCESS=1 runs all the workloads in one process per engine instead, which saves PyTorch's
    # start per workload (70-81 s each on the bare lent machine for a CPU workload, against 1.1-1.6 s of cold compile).
    if [[ ${BENCH_ONE_PROCESS:-0} == 1 ]]; then
        local joined
        joined=$(IFS=,; echo "${workloads[*]}")
        run_workloads "$cwb" "$results" "$device" "$spec" all "$joined"
    else
        for w in "${workloads[@]}"; do run_workloads "$cwb" "$results" "$device" "$spec" "$w" "$w"; done
    fi
    table "$results"
}

# cwb alone, compiled mode only (no eager mode of the workload first, as a user's fresh process): per workload a
# process with empty caches (cold) and one keeping them (warm), with CWB_COMPILE_PROFILE and CWB_EAGER_KERNEL_LOG
# saying where the first call's time went; logs in RESULTS/compiled_cold_NAME.log, RESULT lines printed.
compiled_cold() {
    local bundle=${1:-$repo_root/.bench}
    [[ $# -gt 0 ]] && shift
    local workloads=("$@")
    [[ ${#workloads[@]} -gt 0 ]] || workloads=(B1 B2 B3 B4 B6 B7)
    local cwb results cache w pass
    cwb=$(locate_cwb "$bundle")
    results=$(results_dir)
    mkdir -p "$results"
    cd "$repo_root"
    export LD_LIBRARY_PATH="$(dirname "$cwb"):$(cuda_library_dirs)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    for w in "${workloads[@]}"; do
        cache=$(mktemp -d)
        for pass in cold warm; do
            echo "=== $w $pass" >>"$results/compiled_cold_$w.log"
            CUDA_CACHE_PATH=$cache/nv CWB_KERNEL_CACHE_DIR=$cache/kernels CWB_COMPILE_PROFILE=1 CWB_EAGER_KERNEL_LOG=1 \
                "$cwb" run "$script" --device "cuda,$w,modes=default,iters=5,warmup=1" >>"$results/compiled_cold_$w.log" 2>&1 ||
                echo "RESULT cwb $w default error=exit status $? ($pass)" >>"$results/compiled_cold_$w.log"
        done
        rm -rf "$cache"
        grep -h '^RESULT' "$results/compiled_cold_$w.log" | sed "s/^/$w cold, warm: /"
    done
}

# One Markdown table from the RESULT lines of every *.out file in the results folder.
table() {
    local results=${1:?usage: inductor_bench.sh table RESULTS_DIR}
    grep -h '^DEVICE' "$results"/*.out 2>/dev/null | sort -u | sed 's/^/    /' || true
    grep -h '^RESULT' "$results"/*.out | awk -v order="${workloads_table[*]}" '
        function field(name,   i) { for (i = 5; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2); return "" }
        {
            key = $2 SUBSEP $3 SUBSEP $4
            seen[$3] = 1
            if (index($0, "error=") > 0) { err[key] = substr($0, index($0, "error=") + 6); next }
            ms[key] = field("median_ms"); cold[key] = field("cold_s"); gbps[key] = field("gbps"); tf[key] = field("tflops")
        }
        function cell(impl, w, mode,   k) {
            k = impl SUBSEP w SUBSEP mode
            if (k in ms) return sprintf("%.3f", ms[k])
            if ((impl SUBSEP w SUBSEP "all") in err) return "crash"
            if (k in err) return "error"
            return "-"
        }
        function pair(a, b) { return (a == "" ? "-" : a) " / " (b == "" ? "-" : b) }
        function percent(x, ref) { return (x == "" || ref == "" || ref + 0 <= 0) ? "" : sprintf("%.0f%%", 100 * x / ref) }
        function val(arr, impl, w, mode,   k) { k = impl SUBSEP w SUBSEP mode; return (k in arr) ? arr[k] : "" }
        END {
            # The device copy bandwidth: y.copy_(x) under PyTorch (under cwb when PyTorch has none).
            copybw = val(gbps, "torch", "copy", "eager"); if (copybw == "") copybw = val(gbps, "cwb", "copy", "eager")
            print "| workload | PyTorch eager ms | torch.compile ms | reduce-overhead ms | cwb eager ms | cwb compiled ms | cwb reduce-overhead ms | cwb/torch.compile | GB/s ours vs theirs (compiled) | % of copy BW ours vs theirs | TFLOP/s ours vs theirs | cold compile s ours vs theirs |"
            print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
            n = split(order, names, " ")
            for (i = 1; i <= n; i++) {
                w = names[i]
                if (!(w in seen)) continue
                mode = (w == "copy") ? "eager" : "default"
                ours = val(ms, "cwb", w, mode); theirs = val(ms, "torch", w, mode)
                ratio = (ours != "" && theirs != "" && theirs + 0 > 0) ? sprintf("%.2fx", ours / theirs) : "-"
                printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w,
                    cell("torch", w, "eager"), cell("torch", w, "default"), cell("torch", w, "reduce-overhead"),
                    cell("cwb", w, "eager"), cell("cwb", w, "default"), cell("cwb", w, "reduce-overhead"), ratio,
                    pair(val(gbps, "cwb", w, mode), val(gbps, "torch", w, mode)),
                    pair(percent(val(gbps, "cwb", w, mode), copybw), percent(val(gbps, "torch", w, mode), copybw)),
                    pair(val(tf, "cwb", w, mode), val(tf, "torch", w, mode)),
                    pair(val(cold, "cwb", w, mode), val(cold, "torch", w, mode))
            }
            print ""
            print "copy row: y.copy_(x) on 2**26 float32, eager: the device'"'"'s copy bandwidth (PyTorch'"'"'s), the 100% of the % column. GB/s: bytes an ideal fused kernel reads and writes / median time. cwb/torch.compile < 1: cwb is faster."
            for (k in err) { split(k, parts, SUBSEP); printf "- error: %s %s %s: %s\n", parts[1], parts[2], parts[3], err[k] }
        }'
}

case "${1:-}" in
    package) shift; package "$@" ;;
    run) shift; run "$@" ;;
    table) shift; table "$@" ;;
    compiled-cold) shift; compiled_cold "$@" ;;
    *) echo "usage: $0 package BUILD_DIR | run [BUNDLE] [WORKLOAD...] | compiled-cold [BUNDLE] [WORKLOAD...] | table RESULTS_DIR" >&2; exit 2 ;;
esac
