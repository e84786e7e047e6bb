// torch.ops.higher_order.cond in the lowering: one extern kernel that reads the predicate when the compiled graph
// runs and calls the branch it picks (the branch's subgraph, run by the graph runner) on the operands, as Inductor's
// Conditional IR node chooses between its subgraphs at run time; the ops around it are lowered into kernels as
// usual. A cond with several outputs runs its graph eagerly (an extern kernel makes one buffer, and running the
// branch once per output could differ between runs, as a random op in it would).
#include <fmt/format.h>

#include "fx/graph_runner.h"
#include "inductor/lowering_context.h"

namespace eng::inductor::lowering {

namespace {

void collectTensorNodes(const fx::Arg& arg, std::vector<const fx::Node*>& out) {
    if (arg.kind == fx::Arg::Kind::NodeRef && !arg.node->subgraph) out.push_back(arg.node);
    for (const fx::Arg& item : arg.items) collectTensorNodes(item, out);
}

}  // namespace

LValue lowerCond(Lowering& lowering, const fx::Node& node) {
    const vm::Value& example = node.example;
    if (!example.is(vm::Kind::Tuple) || example.as<vm::TupleObject>().items.size() != 1 ||
        !example.as<vm::TupleObject>().items[0].is(vm::Kind::Tensor))
        throw LoweringError(fmt::format("{}: a torch.cond of several outputs (an extern kernel makes one buffer)", node.name));
    std::vector<const fx::Node*> reads;
    for (const fx::Arg& arg : node.args) collectTensorNodes(arg, reads);
    GraphBuffer b;
    std::map<const fx::Node*, size_t> slot;
    for (const fx::Node* read : reads) {
        if (slot.count(read)) continue;
        LValue value = lowering.valueOf(fx::Arg::ofNode(const_cast<fx::Node*>(read)));
        if (!value.isTensor()) throw LoweringError(fmt::format("{}: operand {} is not a tensor", node.name, read->name));
        slot[read] = b.extern_.inputBuffers.size();
        lowering.addExternInput(b.extern_, value, read->name, true);
    }
    const tensor::Tensor& out = example.as<vm::TupleObject>().items[0].as<vm::TensorObject>().value;
    b.name = lowering.newBufferName();
    b.kind = BufferKind::Extern;
    b.dtype = out.dtype();
    // The traced sizes: CompiledGraph checks each extern result against them and runs the graph eagerly when a
    // call disagrees (a branch whose size follows a dynamic dimension).
    for (int64_t size : out.sizes()) b.sizes.push_back(indexConstant(size));
    b.strides = contiguousStrides(b.sizes);
    b.originNodes = {node.name};
    b.extern_.op = node.target;
    b.extern_.node = &node;
    b.extern_.call = [&node, slot](vm::Interpreter& vm, const vm::ValueList& tensors, const SymbolValues&) {
        const vm::Value result = fx::callNodeOn(vm, node, [&](const fx::Node& read) {
            return read.subgraph ? read.callee : tensors.at(slot.at(&read));  // a branch: its subgraph's callable
        });
        return result.as<vm::TupleObject>().items.at(0);
    };
    LValue outputs;
    outputs.kind = LValue::Kind::List;
    outputs.items.push_back(lowering.bufferValue(lowering.graph().add(std::move(b)).id));
    return outputs;
}

}  // namespace eng::inductor::lowering
