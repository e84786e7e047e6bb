// Autocast made explicit. Each call inside an autocast region runs once more on its example arguments under that
// region's state with a cast observer installed (tensor/autocast.h): the runtime's own policy table decides, and
// every cast it makes becomes a `to(dtype)` node on the argument that was cast.
#include "aot/autocast_casts.h"

#include <fmt/core.h>

#include <functional>
#include <map>
#include <vector>

#include "aot/graph_builder.h"
#include "fx/graph_runner.h"
#include "fx/written_arguments.h"
#include "tensor/autocast_cache.h"
#include "tensor/autograd/grad_mode.h"

namespace eng::aot {

namespace {

constexpr const char* kEnter = "torch.amp.autocast_mode._enter_autocast";
constexpr const char* kExit = "torch.amp.autocast_mode._exit_autocast";

/// The state `_enter_autocast(device_type, dtype, enabled, cache_enabled)` sets, from its constant arguments.
tensor::AutocastStates entered(const fx::Node& node, tensor::AutocastStates states) {
    auto constantArg = [&](size_t i) -> vm::Value {
        if (i >= node.args.size()) return vm::Value();
        if (node.args[i].kind != fx::Arg::Kind::Constant) throw AotUnsupported(fmt::format("{} with a graph value", node.target));
        return node.args[i].constant;
    };
    const vm::Value device = constantArg(0);
    const bool cuda = device.is(vm::Kind::Str) && device.str() == "cuda";
    tensor::AutocastState& state = cuda ? states.cuda : states.cpu;
    const vm::Value dtype = constantArg(1);
    if (dtype.is(vm::Kind::DType)) state.dtype = dtype.as<vm::DTypeObject>().value;
    const vm::Value enabled = constantArg(2);
    state.enabled = enabled.isNone() || (enabled.is(vm::Kind::Bool) && enabled.asBool());
    if (state.dtype != tensor::DType::BFloat16 && state.dtype != tensor::DType::Float16) state.enabled = false;
    return states;
}

/// The casts autocast makes when `node` runs on its examples under the current state, by argument tensor.
std::vector<std::pair<tensor::Tensor, tensor::DType>> castsOf(vm::Interpreter& vm, GraphBuilder& b, const fx::Node& copied) {
    std::vector<std::pair<tensor::Tensor, tensor::DType>> casts;
    vm::ValueList args;
    for (const fx::Arg& a : copied.args) args.push_back(b.exampleOf(a));
    vm::KwArgs kwargs;
    for (const auto& [key, a] : copied.kwargs) kwargs.emplace_back(key, b.exampleOf(a));
    tensor::AutocastObserverScope observe([&](const tensor::Tensor& from, tensor::DType to) { casts.emplace_back(from, to); });
    tensor::autograd::GradModeGuard noGrad(false);
    fx::callNode(vm, copied, std::move(args), std::move(kwargs));
    return casts;
}

/// Whether a region entered by `enter` keeps autocast's weight-cast cache: its cache_enabled argument, or the
/// region around it when that is None.
bool cacheEnabledBy(const fx::Node& enter, bool outer) {
    if (enter.args.size() < 4 || enter.args[3].kind != fx::Arg::Kind::Constant || enter.args[3].constant.isNone()) return outer;
    return enter.args[3].constant.is(vm::Kind::Bool) && enter.args[3].constant.asBool();
}

/// A cast that eager autocast makes once per region and reuses (tensor/autocast_cache.h): a float32 leaf that
/// requires grad, to the region's lower-precision dtype of its device.
bool cachedCast(const tensor::Tensor& from, tensor::DType to, const tensor::AutocastStates& state) {
    const tensor::AutocastState& device = from.device().type() == tensor::DeviceType::CUDA ? state.cuda : state.cpu;
    return from.dtype() == tensor::DType::Float32 && from.requiresGrad() && from.isLeaf() && to == device.dtype;
}

/// A call that writes an argument (`x.add_(y)`, `x += y`, `x[i] = y`, batch_norm's running statistics; the op
/// registry's marks): not run again on the examples, which it would change. Autocast casts none of them (its
/// tables name functional ops only).
bool writesInPlace(const fx::Node& node) { return !fx::writtenArguments(node).empty(); }

}  // namespace

bool hasAutocastNodes(const fx::Graph& graph) {
    for (const auto& node : graph.nodes())
        if (node->op == fx::NodeOp::CallFunction && (node->target == kEnter || node->target == kExit)) return true;
    return false;
}

AutocastCasts explicitAutocastCasts(vm::Interpreter& vm, const fx::Graph& graph, const tensor::AutocastStates& before) {
    const tensor::AutocastStatesRestore restore;
    auto out = std::make_shared<fx::Graph>();
    out->symbols = graph.symbols;
    GraphBuilder b(vm, *out);
    std::map<const fx::Node*, fx::Node*> remap;
    std::map<const fx::Node*, tensor::AutocastStates> enteredFrom;  // each enter node: the state it replaced
    tensor::AutocastStates state = before;
    // The regions entered in the graph, each with whether it caches weight casts; within the outermost one a
    // cached cast is one `to` node for all its readers, so a write to the weight inside the region is not seen by
    // later casts, as eagerly.
    std::vector<bool> caching;
    std::map<std::pair<const fx::Node*, tensor::DType>, fx::Node*> regionCasts;
    std::function<fx::Arg(const fx::Arg&)> mapped = [&](const fx::Arg& a) {
        fx::Arg result = a;
        if (a.kind == fx::Arg::Kind::NodeRef) result.node = remap.at(a.node);
        for (fx::Arg& item : result.items) item = mapped(item);
        return result;
    };
    for (const auto& node : graph.nodes()) {
        if (node->op == fx::NodeOp::Placeholder) {
            remap[node.get()] = b.placeholder(node->target, *node, node->example);
            continue;
        }
        if (node->op == fx::NodeOp::Output) {
            std::vector<fx::Arg> outputs;
            for (const fx::Arg& a : node->args.at(0).items) outputs.push_back(mapped(a));
            out->setOutput(std::move(outputs));
            continue;
        }
        if (node->op == fx::NodeOp::CallFunction && node->target == kEnter) {
            enteredFrom[node.get()] = state;
            state = entered(*node, state);
            caching.push_back(cacheEnabledBy(*node, caching.empty() ? tensor::autocastCacheEnabled() : caching.back()));
            continue;
        }
        if (node->op == fx::NodeOp::CallFunction && node->target == kExit) {
            const fx::Node* enter = node->args.empty() ? nullptr : node->args[0].node;
            auto found = enter ? enteredFrom.find(enter) : enteredFrom.end();
            if (found == enteredFrom.end()) throw AotUnsupported("_exit_autocast of a region entered outside the graph");
            state = found->second;
            if (!caching.empty()) caching.pop_back();
            if (caching.empty()) regionCasts.clear();
            continue;
        }
        std::vector<std::pair<tensor::Tensor, tensor::DType>> casts;
        if (state.anyEnabled() && !writesInPlace(*node)) {
            tensor::setAutocastStates(state);
            casts = castsOf(vm, b, *node);
            tensor::setAutocastStates({});
        }
        // Each cast argument reads a `to` node (one per value and dtype), added before the op's copy.
        std::map<std::pair<const fx::Node*, tensor::DType>, fx::Node*> castNodes;
        std::function<void(fx::Arg&)> castArg = [&](fx::Arg& a) {
            for (fx::Arg& item : a.items) castArg(item);
            if (a.kind != fx::Arg::Kind::NodeRef) return;
            const tensor::Tensor* example = exampleTensor(*a.node);
            if (!example) return;
            for (const auto& [from, dtype] : casts) {
                if (!from.isSameTensor(*example)) continue;
                const bool cached = !caching.empty() && caching.back() && cachedCast(from, dtype, state);
                fx::Node*& cast = cached ? regionCasts[{a.node, dtype}] : castNodes[{a.node, dtype}];
                if (!cast) {
                    cast = b.method("to", a.node, {GraphBuilder::constant(vm::Value(std::make_shared<vm::DTypeObject>(dtype)))});
                    // The cast belongs to the user's line of the op it feeds.
                    cast->file = node->file;
                    cast->line = node->line;
                    cast->function = node->function;
                    cast->code = node->code;
                }
                a.node = cast;
                return;
            }
        };
        std::vector<fx::Arg> args;
        for (const fx::Arg& a : node->args) castArg(args.emplace_back(mapped(a)));
        std::vector<fx::KwArg> kwargs;
        for (const auto& [key, a] : node->kwargs) castArg(kwargs.emplace_back(key, mapped(a)).second);
        fx::Node* copied = b.copy(*node, remap);
        copied->args = std::move(args);
        copied->kwargs = std::move(kwargs);
        remap[node.get()] = copied;
    }
    return {out, state};
}

}  // namespace eng::aot
