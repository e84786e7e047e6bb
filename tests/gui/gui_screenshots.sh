#!/usr/bin/env bash
# The workbench as a user sees it: opens real traces with recompiles and graph breaks, takes a screenshot of
# each view (`cwb open --view V --screenshot`, and a graph tab picked with --graph-tab), checks the PNG has
# content and the expected colours, and checks the view's --dump-ui text for the panel and rows it must show.
# Run by ctest inside xvfb-run; exits 77 (skip) when there is no X display to draw on.
# Usage: gui_screenshots.sh CWB PNG_CHECK DATA_DIR WORK_DIR [REAL_LOGS_DIR]
set -euo pipefail

cwb=$1 png_check=$2 data=$3 work=$4 real_logs=${5:-}
if [ -z "${DISPLAY:-}" ]; then
  echo "SKIP: no X display (install xvfb: xvfb-run runs this test)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
recompiles="$data/torch_traces/recompiles_cpu"
breaks="$data/torch_traces/breaks_cpu"
training="$data/torch_traces/training_cuda"
failures=0

# Status colours (app/gui/theme.cpp), at least a chip's worth of pixels each.
ok_green=(--expect-colour 46 160 67 150)
break_lime=(--expect-colour 165 220 40 150)
failed_red=(--expect-colour 215 58 58 150)
recompiled_amber=(--expect-colour 240 150 30 150)

# shot NAME TRACE VIEW "cwb open options" "png_check args" EXPECTED_DUMP_LINE...
shot() {
  local name=$1 trace=$2 view=$3 options=$4 checks=$5
  shift 5
  local png="$work/$name.png" dump="$work/$name.txt"
  # shellcheck disable=SC2086
  if ! "$cwb" open "$trace" --view "$view" $options --screenshot "$png" --dump-ui >"$dump" 2>"$work/$name.err"; then
    echo "FAIL $name: cwb open exited $?"; cat "$work/$name.err"; failures=$((failures + 1)); return
  fi
  # shellcheck disable=SC2086
  if ! "$png_check" "$png" --min-size 1000 700 --min-lit 0.05 --min-colours 1000 $checks; then
    echo "FAIL $name: the screenshot lacks content"; failures=$((failures + 1))
  fi
  for expected in "view: $view" "$@"; do
    if ! grep -qF -- "$expected" "$dump"; then
      echo "FAIL $name: the window does not show: $expected"; failures=$((failures + 1))
    fi
  done
}

shot sites_recompiles "$recompiles" sites "--select 4/8" "${ok_green[*]} ${recompiled_amber[*]} ${failed_red[*]}" \
  "counts: ok 5, graph break 0, failed 1, recompiled 11, empty graph 0, unknown 0" \
  "row: programs/recompiles_cpu.py:33 in by_const" "compile: [0/1] recompiled" "compile: [4/8] failed" \
  "panel: Compile details"
shot sites_breaks "$breaks" sites "" "${ok_green[*]} ${break_lime[*]}" \
  "counts: ok 5, graph break 5, failed 0, recompiled 0, empty graph 0, unknown 0" \
  "row: programs/breaks_cpu.py:6 in with_print" "row: programs/breaks_cpu.py:46 in main" "compile: [0/0] graph break"
shot recompiles "$recompiles" recompiles "--select 4/3" "${recompiled_amber[*]}" \
  "function: by_const  programs/recompiles_cpu.py:33" "step: [4/3] 4 of 9" \
  "reason: Recompiling function by_const in programs/recompiles_cpu.py:33" \
  "guard: changed EQUALS_MATCH L['k'] == 5" "panel: Recompile stepper"
shot recompiles_shape "$recompiles" recompiles "--select 0/1" "" \
  "step: [0/1] 2 of 2" "guard-failure: 0/0: tensor 'x' size mismatch at index 1. expected 16, actual 32" \
  "guard: added LAMBDA_GUARD 2 <= L['x'].size()[1] <= 512"
shot code "$recompiles" code "--select 0/0" "" \
  "kernel: cpp_fused_add_mean_mul_sum_0" "(Python, " "panel: Generated code"
# An engine run's trace: a kernel opened by name shows its source with its launch configuration and compile time.
cat >"$work/engine_kernel.py" <<'EOF'
import torch


@torch.compile
def scaled_softmax(x):
    return torch.softmax(x * 2, dim=-1)


def main(device):
    return scaled_softmax(torch.randn(8, 32))
EOF
"$cwb" run "$work/engine_kernel.py" --trace "$work/engine_kernel.db" >/dev/null
shot code_engine_kernel "$work/engine_kernel.db" code "--kernel cwb_red_fused_mul_softmax_0" "" \
  "code: cwb_red_fused_mul_softmax_0 (LLVM IR, " "launch: 8 outer points over up to " "compiled in " \
  "kernel: cwb_red_fused_mul_softmax_0"
# The compile's warnings sit above its generated code: here Dynamo's advice on the .item() that broke the graph
# (on a GPU, max-autotune's choices arrive the same way after the first run).
cat >"$work/engine_item.py" <<'EOF'
import torch


@torch.compile
def scaled(x):
    y = (x * 2).sin()
    return y * y.sum().item()


def main(device):
    return scaled(torch.randn(8))
EOF
"$cwb" run "$work/engine_item.py" --trace "$work/engine_item.db" >/dev/null
shot code_engine_notes "$work/engine_item.db" code "--select 0/0" "" \
  "code: cwb_inductor_output_code (Python, " "run note: Graph break from \`Tensor.item()\`, consider setting:"
shot breaks "$breaks" breaks "" "" \
  "break: 2x Failed to trace builtin operator at programs/breaks_cpu.py:32: print(\"helper: break inside an inlined call\")" \
  "break: 1x Call to \`torch._dynamo.graph_break()\` at programs/breaks_cpu.py:26: torch._dynamo.graph_break()" \
  "panel: Break details"
shot metrics "$recompiles" metrics "" "${ok_green[*]}" \
  "session: dedicated_log_torch_trace_mc6v5kbu.log: compiles 16, recompiles 12, graph breaks 0" \
  "bar: [0/0] " "bar: [4/1] " "phase: entire_frame_compile"

# Compile-time events of two real DDP ranks in lanes, symbols of a real dynamic-shape GPT-2 compile, the two
# ranks' logs compared, and the cache outcome next to a compile id (tests/data/torch_traces/insights).
insights="$data/torch_traces/insights"
shot timeline "$insights/ddp_gloo_2ranks" timeline "" "${break_lime[*]}" \
  "timeline: 9 lanes" "lane: rank 0  [0/0] inner: 8 events" "lane: rank 1  [0/1] inner: 9 events"
shot shapes "$insights/gpt2_dynamic" shapes "" "" \
  "symbol: [0/1] s50 = L['args'][0].size()[1] (128) from " "selected symbol: s50: 0 specializations, 8 guards"
rank1=$(ls "$insights"/ddp_gloo_2ranks/*rank_1_*.log)
shot diff "$(ls "$insights"/ddp_gloo_2ranks/*rank_0_*.log)" diff "$rank1" "" \
  "added: 0/1" "removed: none" "break: count changed: Unsupported method call at "
shot sites_cache "$insights/mlp_cache_warm" sites "--select 0/0" "" "compile: [0/0] ok cache mixed"

# The graph and fusion views come from their own library; check them too when this build has them.
if grep -q "^views: .*graph" "$work/metrics.txt"; then
  shot graph "$recompiles" graph "--select 0/0" ""
  shot fusion "$recompiles" fusion "--select 0/0" ""
  # --graph-tab picks a graph other than Dynamo's: a training step's AOT backward graph.
  shot graph_aot_backward "$training" graph "--graph-tab aot_backward" "" \
    "graph: AOT backward: 19 nodes, 21 edges" "tab: AOT forward" "; labels"
  # Asking for a graph that is not there is an error that says so.
  expect_graph_tab_error() {
    local expected=$1
    shift
    if "$cwb" open "$recompiles" "$@" --frames 1 >/dev/null 2>"$work/graph_tab_error.err"; then
      echo "FAIL: cwb open $* succeeded"; failures=$((failures + 1))
    elif ! grep -qF -- "$expected" "$work/graph_tab_error.err"; then
      echo "FAIL: cwb open $* says: $(cat "$work/graph_tab_error.err")"; failures=$((failures + 1))
    fi
  }
  expect_graph_tab_error "no compile in the opened trace has a graph of kind compiled_autograd" --graph-tab compiled_autograd
  expect_graph_tab_error "compile [0/0] has no graph of kind aot_backward" --select 0/0 --graph-tab aot_backward
  # Stepping to a recompile shows what changed in its graph since the previous compile, and the guard that failed.
  shot recompiles_graph_diff "$recompiles" recompiles "--select 0/1" "" \
    "graph-diff: since [0/0]: 1 added, 0 removed, 2 changed (2 became symbolic)"
  shot graph_diff_shape "$recompiles" graph "--select 0/1" "" \
    "graph-diff: since [0/0]: 1 added, 0 removed, 2 changed (2 became symbolic)" "graph-change: added s27" \
    "graph-change: changed l_x_ f32[8, 16] -> f32[8, s27]" \
    "recompiled-because: tensor 'x' size mismatch at index 1. expected 16, actual 32"
  shot graph_diff_constant "$recompiles" graph "--select 4/3" "" \
    "graph-diff: since [4/2]: 0 added, 0 removed, 2 changed" "graph-change: changed mul args: l_x_, 4 -> l_x_, 5" \
    "recompiled-because: k == 4 # return x * k + k # programs/recompiles_cpu.py:35 in by_const"
  # Provenance: a kernel picked by name lights up the pre-grad and post-grad nodes it computes (here from the
  # kernel's fusion comments: the log has no provenance mappings).
  shot provenance_inferred "$training" provenance "--select 0/0 --kernel triton_poi_fused_gelu_0" "" \
    "provenance: forward: links inferred from the kernels' fusion comments" \
    "selected: code triton_poi_fused_gelu_0: pre h; post add, erf, mul, mul_1, mul_2; code triton_poi_fused_gelu_0" \
    "pane: pre-grad graph: 13 lines, 1 linked" "pane: post-grad graph (forward): 11 lines, 5 linked"
  # With nothing picked, it opens on the module's first kernel and what it links to, not on three bare panes.
  shot provenance_first_kernel "$training" provenance "--select 0/0" "" "selected: code triton_" "linked"
  # With nothing selected, the graph view shows the first compile that has graphs, not an empty view.
  shot graph_first_compile "$training" graph "" "" "tab: Dynamo" "graph: Dynamo: " "; labels"

  # A real model at scale (the 12-layer GPT-2 training log, kept outside the repository): each graph opens as
  # an overview of its modules, one folded box per transformer block, with legible labels and a minimap.
  gpt2="$real_logs/gpt2_train_cuda/log"
  if [ -n "$real_logs" ] && [ -d "$gpt2" ]; then
    expect_legible() {  # NAME MIN: the canvas drew at least MIN labels at 9 px or more
      local count
      count=$(grep -o "legible labels: [0-9]*" "$work/$1.txt" | grep -o "[0-9]*$" || echo 0)
      if [ "${count:-0}" -lt "$2" ]; then
        echo "FAIL $1: $count legible labels, expected at least $2"; failures=$((failures + 1))
      fi
    }
    shot gpt2_dynamo "$gpt2" graph "" "" "graph: Dynamo: 713 nodes, 819 edges (" "; minimap"
    expect_legible gpt2_dynamo 15
    shot gpt2_aot_forward "$gpt2" graph "--graph-tab aot_forward" "" "graph: AOT forward: 1293 nodes" "; minimap"
    expect_legible gpt2_aot_forward 10
    shot gpt2_aot_backward "$gpt2" graph "--graph-tab aot_backward" "" "graph: AOT backward: 1730 nodes" "; minimap"
    expect_legible gpt2_aot_backward 15
    # Inductor's provenance node mappings link the pre-grad graph, the post-grad graph and the code line to line.
    shot gpt2_provenance "$gpt2" provenance "--select 1/0 --kernel triton_poi_fused_add_arange_0" "" \
      "provenance: forward: links: Inductor's provenance node mappings" \
      "selected: code triton_poi_fused_add_arange_0: pre arange, position_ids; post add, iota" \
      "pane: pre-grad graph: 1378 lines, 2 linked"
    # The fusion diagram folds by module too, and each kernel is one box in its colour.
    shot gpt2_fusion "$gpt2" fusion "--select 1/0" "" "graph: post-grad forward: 1293 nodes" "tab: backward kernels (22)"
    expect_legible gpt2_fusion 10
  else
    echo "note: no real model logs (REAL_LOGS_DIR), GPT-2 screenshots skipped"
  fi
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed; screenshots and dumps are in $work"
  exit 1
fi
echo "all workbench screenshots look right (in $work)"
