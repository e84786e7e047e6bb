// Builds AOT graphs node by node: copies of captured nodes and new call nodes (tensor methods, torch functions,
// operators) that run on example values as they are added, so every node carries the exact metadata the lowering
// reads, as make_fx's real-tensor tracing does.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "capture/graph_ir.h"
#include "ops/operators.h"
#include "vm/interpreter.h"

namespace eng::aot {

/// A construct AOT Autograd cannot prove it handles like eager: the graph then keeps the eager runtime's autograd,
/// and the message says why (it reaches the output code and explain).
class AotUnsupported : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class GraphBuilder {
public:
    GraphBuilder(vm::Interpreter& vm, capture::Graph& graph) : vm_(vm), graph_(graph) {}
    capture::Graph& graph() { return graph_; }

    /// A placeholder with the example value and symbols of `like` (a SymInt placeholder keeps its symbol).
    capture::Node* placeholder(const std::string& name, const capture::Node& like, vm::Value example);
    /// A copy of `node` whose node arguments are mapped through `remap` (every argument must be mapped), named
    /// `namePrefix` + its name (compiled autograd prefixes the nodes of each backward it inlines).
    capture::Node* copy(const capture::Node& node, const std::map<const capture::Node*, capture::Node*>& remap,
                        const std::string& namePrefix = "");
    /// self.method(*args, **kwargs), run on the examples now.
    capture::Node* method(const std::string& name, capture::Node* self, std::vector<capture::Arg> args = {},
                          std::vector<capture::KwArg> kwargs = {});
    /// torch.<name>(*args, **kwargs), run on the examples now; `name` may be dotted ("nn.functional.gelu").
    capture::Node* torchFunction(const std::string& name, std::vector<capture::Arg> args, std::vector<capture::KwArg> kwargs = {});
    /// a <op> b: an operator.mul / operator.floordiv ... node (SymInts, numbers, or a number and a tensor, as
    /// Dynamo captures `1.0 - x`).
    capture::Node* binaryOperator(ops::BinaryOperator op, capture::Arg a, capture::Arg b);
    void output(std::vector<capture::Arg> outputs) { graph_.setOutput(std::move(outputs)); }

    /// The sizes of `node`'s tensor as an argument list: symbolic dimensions are their SymInt placeholders.
    capture::Arg sizesOf(const capture::Node& node) const;
    static capture::Arg ref(capture::Node* node) { return capture::Arg::ofNode(node); }
    static capture::Arg constant(vm::Value v) { return capture::Arg::ofConstant(std::move(v)); }
    static capture::Arg ints(const std::vector<int64_t>& values);

private:
    capture::Node* finish(capture::Node* node);
    vm::Value exampleOf(const capture::Arg& arg) const;
    vm::Interpreter& vm_;
    capture::Graph& graph_;
};

/// The tensor a node produced while tracing (its example), or null for other values.
const tensor::Tensor* exampleTensor(const capture::Node& node);

}  // namespace eng::aot
