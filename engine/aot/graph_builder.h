// Builds AOT graphs node by node: copies of captured nodes and new call nodes (tensor methods, torch functions,
// operators) that run on example values as they are added, so every node carries the exact metadata the lowering
// reads, as make_fx's real-tensor tracing does.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fx/graph_ir.h"
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
    GraphBuilder(vm::Interpreter& vm, fx::Graph& graph) : vm_(vm), graph_(graph) {}
    fx::Graph& graph() { return graph_; }

    /// A placeholder with the example value and symbols of `like` (a SymInt placeholder keeps its symbol).
    fx::Node* placeholder(const std::string& name, const fx::Node& like, vm::Value example);
    /// A copy of `node` whose node arguments are mapped through `remap` (every argument must be mapped), named
    /// `namePrefix` + its name (compiled autograd prefixes the nodes of each backward it inlines).
    fx::Node* copy(const fx::Node& node, const std::map<const fx::Node*, fx::Node*>& remap,
                        const std::string& namePrefix = "");
    /// self.method(*args, **kwargs), run on the examples now.
    fx::Node* method(const std::string& name, fx::Node* self, std::vector<fx::Arg> args = {},
                          std::vector<fx::KwArg> kwargs = {});
    /// torch.<name>(*args, **kwargs), run on the examples now; `name` may be dotted ("nn.functional.gelu").
    fx::Node* torchFunction(const std::string& name, std::vector<fx::Arg> args, std::vector<fx::KwArg> kwargs = {});
    /// a <op> b: an operator.mul / operator.floordiv ... node (SymInts, numbers, or a number and a tensor, as
    /// Dynamo captures `1.0 - x`).
    fx::Node* binaryOperator(ops::BinaryOperator op, fx::Arg a, fx::Arg b);
    /// several[index]: an operator.getitem node on an op with several results (a tuple).
    fx::Node* item(fx::Node* several, int64_t index);
    void output(std::vector<fx::Arg> outputs) { graph_.setOutput(std::move(outputs)); }

    /// The sizes of `node`'s tensor as an argument list: symbolic dimensions are their SymInt placeholders.
    fx::Arg sizesOf(const fx::Node& node) const;
    static fx::Arg ref(fx::Node* node) { return fx::Arg::ofNode(node); }
    static fx::Arg constant(vm::Value v) { return fx::Arg::ofConstant(std::move(v)); }
    static fx::Arg ints(const std::vector<int64_t>& values);
    /// The value an argument stands for while tracing: its node's example, the constant, or a list of them.
    vm::Value exampleOf(const fx::Arg& arg) const;

private:
    fx::Node* finish(fx::Node* node);
    vm::Interpreter& vm_;
    fx::Graph& graph_;
};

/// The tensor a node produced while tracing (its example), or null for other values.
const tensor::Tensor* exampleTensor(const fx::Node& node);

/// Replaces the data of every example tensor of at least `minBytes` in `graphs` by a stand-in with the same sizes,
/// strides, offset, dtype, device and requires_grad over a storage of no elements (examples that shared storage
/// share the stand-in's). Once both passes are compiled the examples are read for their metadata only (the trace's
/// graph printouts, compiled autograd's shape checks), and their data are every intermediate value of the joint
/// graph: about 70 GiB for a GPT-2-small training step at batch 8 x 1024, which left its first run out of memory.
void releaseExampleData(const std::vector<const fx::Graph*>& graphs, size_t minBytes);

}  // namespace eng::aot
