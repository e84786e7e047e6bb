// Graph nodes' written arguments from the op registry's schemas: the node's target names the registry entry and
// its arguments bind to the schema's parameters by position, then by keyword.
#include "fx/written_arguments.h"

#include <string_view>

#include "ops/in_place.h"
#include "ops/operators.h"
#include "tensor/registry.h"

namespace eng::fx {

std::string registryNameOf(const Node& node) {
    if (node.op == NodeOp::CallMethod) return "Tensor." + node.target;
    if (node.op != NodeOp::CallFunction) return {};
    const std::string_view target = node.target;
    if (target.starts_with("operator.")) {
        const std::string_view function = target.substr(std::string_view("operator.").size());
        if (function == "setitem") return "Tensor.__setitem__";
        if (node.callKind != CallKind::Binary) return {};
        const auto operand = ops::binaryOperatorByFunction(function);
        if (!operand) return {};
        return "Tensor." + (operand->inplace ? ops::inplaceDunder(operand->op) : ops::dunder(operand->op));
    }
    for (const auto& [prefix, registryPrefix] : {std::pair<std::string_view, std::string_view>{"torch.nn.functional.", "F."},
                                                 {"torch._C._nn.", "F."}, {"torch._C._VariableFunctions.", "torch."}})
        if (target.starts_with(prefix)) return std::string(registryPrefix) + std::string(target.substr(prefix.size()));
    return node.target;
}

namespace {

const Arg* argumentFor(const Node& node, const tensor::Schema& schema, size_t index) {
    if (index < node.args.size() && !schema.params[index].keywordOnly) return &node.args[index];
    for (const auto& [key, arg] : node.kwargs)
        if (key == schema.params[index].name) return &arg;
    return nullptr;
}

/// The overload the node's arguments fit: no more positionals than it has parameters, every keyword one of them.
const tensor::Schema* schemaFor(const Node& node, const tensor::OpEntry& entry) {
    for (const tensor::OpOverload& overload : entry.overloads) {
        const tensor::Schema& schema = overload.schema;
        if (node.args.size() > schema.params.size()) continue;
        bool fits = true;
        for (const auto& [key, arg] : node.kwargs) {
            bool known = false;
            for (const tensor::Param& p : schema.params) known = known || p.name == key;
            fits = fits && known;
        }
        if (fits) return &schema;
    }
    return nullptr;
}

}  // namespace

std::vector<WrittenArgument> writtenArguments(const Node& node) {
    std::vector<WrittenArgument> out;
    const std::string name = registryNameOf(node);
    const tensor::OpEntry* entry = name.empty() ? nullptr : tensor::OpRegistry::instance().find(name);
    const tensor::Schema* schema = entry ? schemaFor(node, *entry) : nullptr;
    if (!schema) {
        // An op the registry does not define (a VM method, an operator without a tensor entry): the naming rule
        // that marks self in every registry schema (ops/in_place.h) still holds.
        const std::string_view op = std::string_view(name).substr(name.rfind('.') + 1);
        if (!node.args.empty() && !name.empty() && ops::schemaWritesSelf(op)) out.push_back({&node.args[0], "self", 0, "", true});
        return out;
    }
    for (size_t i = 0; i < schema->params.size(); ++i) {
        const tensor::Param& p = schema->params[i];
        if (!p.written) continue;
        const Arg* arg = argumentFor(node, *schema, i);
        if (!arg || (arg->kind == Arg::Kind::Constant && arg->constant.isNone())) continue;  // an optional left out
        WrittenArgument written{arg, p.name, i, p.writtenWhen, p.writtenWhen.empty()};
        if (!p.writtenWhen.empty()) {
            size_t flag = 0;
            while (flag < schema->params.size() && schema->params[flag].name != p.writtenWhen) ++flag;
            const Arg* value = argumentFor(node, *schema, flag);
            // A flag left out takes its default; a constant is known; a graph value may be either.
            const vm::Value known = value ? (value->kind == Arg::Kind::Constant ? value->constant : vm::Value::null())
                                          : vm::fromTensorValue(schema->params[flag].defaultValue);
            if (known.is(vm::Kind::Bool) && !known.asBool()) continue;
            written.certain = known.is(vm::Kind::Bool);
        }
        out.push_back(std::move(written));
    }
    return out;
}

bool writesOnlySelf(const Node& node) {
    const std::vector<WrittenArgument> written = writtenArguments(node);
    return written.size() == 1 && written[0].index == 0 && written[0].certain;
}

}  // namespace eng::fx
