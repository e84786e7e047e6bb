// Parser for the readable FX GraphModule text that Dynamo, AOTAutograd and Inductor log
// (dynamo_output_graph, aot_*_graph, inductor_post_grad_graph, before/after_*_graph payloads).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {

/// The parts of an FX type annotation such as "f32[8, s27][s27, 1]cuda:0".
struct FxValueType {
    std::string dtype;   ///< "f32", "bf16", "i64", "b8"; "Sym" for symbolic scalars
    std::string shape;   ///< "[8, s27]"; the expression for "Sym(...)"; the raw text for anything else
    std::string stride;  ///< "[s27, 1]"
    std::string device;  ///< "cpu", "cuda:0"
};

/// The most nodes of a graph that are parsed into rows (real training graphs of large models have tens of
/// thousands); a larger graph keeps its text only.
inline constexpr size_t kMaxGraphNodes = 250000;

/// Splits one annotation (without its quotes). Tuples, lists and unknown forms come back whole in `shape`.
FxValueType parseFxValueType(std::string_view annotation);

/// One GraphNode per node of the top-level forward() of `text`, in graph order (index = position):
///  * placeholders from the signature (`L_x_: "f32[8][1]cpu"`, `s27: "Sym(s27)"`, `arg0_1`, `primals_1`)
///    and from annotation-only body lines (`primals_1: "f32[..]"  # PlainAOTInput(idx=0)`);
///  * Dynamo's rename line `l_x_ = L_x_` is not a node: FX prints it because the placeholder node is named
///    `l_x_` while its target (the argument) is `L_x_`, so it renames that placeholder (target stays `L_x_`);
///  * one node per assignment `name: "type" = expr` / `name = expr`, classified as call_function (target
///    `torch.sin`, `torch.ops.aten.mul.Tensor`, `operator.mul` for `a * b`, `operator.getitem` for `a[0]`),
///    call_method (`x.sum(...)` -> target `sum`), call_module (`self.fc1(x)` -> target `self.fc1`) or
///    get_attr (`self.weight`); any other plain `a = b` becomes call_function with target `alias`;
///  * one `output` node for `return ...`.
/// Nested submodule classes (higher-order-op bodies) and the pytree flatten line of joint graphs are skipped.
/// Source fields come from the nearest preceding `# File: path:line in fn, code: src` comment, which holds until
/// the next such comment, a `# No stacktrace found` comment or a blank line. Never throws.
/// A graph of more than `maxNodes` nodes gives no nodes (and *tooLarge = true): as rows, a million nodes take
/// gigabytes of memory.
std::vector<GraphNode> parseFxGraphText(std::string_view text, size_t maxNodes = kMaxGraphNodes, bool* tooLarge = nullptr);

}  // namespace traces
