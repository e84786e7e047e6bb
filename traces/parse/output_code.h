// Splits Inductor's generated code (inductor_output_code and AOTInductor graph_dump payloads) into its kernels.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {

struct SplitOutputCode {
    std::string language;         ///< "python" (Inductor wrapper module), "cpp" (AOTInductor C++), "" when empty
    std::vector<Kernel> kernels;  ///< in source order; index = position, name/language/source/launchConfig set
};

/// Kernels of a generated module:
///  * Python wrappers: every `name = async_compile.<kind>(..., '''source''', ...)` assignment; kind triton ->
///    language "triton", cpp / cpp_pybinding -> "cpp", any other kind (cuda, rocm, halide, ...) keeps its name.
///    source is the text between the triple quotes (r''' too). A call without a triple-quoted argument
///    (multi_kernel) keeps the call text as source. For triton kernels launchConfig holds, when found, the
///    kernel's `size_hints=...` and the wrapper's first `name.run(...)` launch arguments, joined by "; ".
///    Fusion, from the comment block right above the assignment: sourceNodes from "# Topologically Sorted Source
///    Nodes: [a, b]", postGradNodes from the "%name" lines after "# Graph fragment:" (placeholders, which are
///    the kernel's inputs, left out; duplicates dropped). Both stay empty when the wrapper has no such comments.
///  * C++ (AOTInductor): every `extern "C"` function definition, language "cpp", source = the whole function.
/// Never throws; unterminated kernels run to the end of the text.
SplitOutputCode splitOutputCode(std::string_view source);

/// One call in a Python wrapper's `call()` that Inductor annotated with the Dynamo-graph nodes it computes.
struct AnnotatedCall {
    std::string callee;                     ///< "triton_poi_fused_add_0" or "torch.ops.aten.mm.default"
    bool generatedKernel = false;           ///< a kernel of this module (`name.run(...)` or `name(...)`)
    std::vector<std::string> sourceNodes;  ///< from "# Topologically Sorted Source Nodes: [...]", in its order
};

/// The annotated calls of a Python wrapper, in launch order: kernels of `kernels` and extern calls (aten ops,
/// `extern_kernels.mm`). Empty for C++ or for wrappers without the comments.
std::vector<AnnotatedCall> annotatedCalls(std::string_view source, const std::vector<Kernel>& kernels);

/// "python", "cpp" or "" from the opening of a generated file (`# AOT ID`, `from `, `import ` are Python;
/// `#include`, `//`, `extern`, `namespace` are C++).
std::string outputCodeLanguage(std::string_view source);

}  // namespace traces
