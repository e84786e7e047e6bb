// torch.nn for the VM: the Module base class in C++ (registration of parameters and submodules on attribute
// assignment, parameters()/named_parameters()/children()/modules(), train()/eval(), to(), __call__ -> forward,
// PyTorch's repr) and the leaf modules Linear, LayerNorm, Embedding, activations, Dropout, Sequential, ModuleList, ModuleDict.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "tensor/autograd/grad_mode.h"
#include "tensor/registry.h"
#include "vm/interpreter.h"

namespace eng::vm {

/// Module._call_impl: forward between its pre-hooks and hooks (nn_module_hooks.cpp).
Value callModuleImpl(Interpreter& vm, const Value& module, CallArgs args, const std::function<Value(const Value&)>& wrap);
void installModuleHooks(Interpreter& vm, ClassObject& moduleClass);
/// Module.__delattr__ and the containers' item deletion (nn_module_deletion.cpp).
void installModuleDeletion(Interpreter& vm, ModuleObject& nn);

namespace {

Value op(const std::string& name, tensor::ValueList args, tensor::KeywordArgs kwargs = {}) {
    return fromTensorValue(tensor::OpRegistry::instance().call(name, args, kwargs));
}

Value parameter(const Value& tensorValue, bool requiresGrad = true) {
    tensor::Tensor t = tensorValue.tensor();
    if (requiresGrad) t.setRequiresGrad(true);
    return Value(std::make_shared<TensorObject>(t, true));
}

InstanceObject& self(CallArgs& args) { return args.positional.at(0).as<InstanceObject>(); }

Value attribute(InstanceObject& instance, const std::string& name) {
    auto it = instance.attributes.find(name);
    return it == instance.attributes.end() ? Value() : it->second;
}

/// Positional-or-keyword argument `index` (after self) named `name`, or the fallback.
Value param(CallArgs& args, size_t index, const char* name, Value fallback) {
    if (args.positional.size() > index + 1) return args.positional[index + 1];
    if (auto v = args.take(name)) return *v;
    return fallback;
}

void collectNamedParameters(const Value& module, const std::string& prefix, bool recurse, ValueList& out,
                            std::vector<const Object*>& seen) {
    auto& instance = module.as<InstanceObject>();
    for (const std::string& name : instance.parameterOrder) {
        Value p = attribute(instance, name);
        if (!p.is(Kind::Tensor)) continue;
        if (std::find(seen.begin(), seen.end(), p.object().get()) != seen.end()) continue;
        seen.push_back(p.object().get());
        out.push_back(makeTuple({makeStr(prefix + name), p}));
    }
    if (!recurse) return;
    for (const std::string& name : instance.moduleOrder) {
        Value child = attribute(instance, name);
        if (child.is(Kind::Instance)) collectNamedParameters(child, prefix + name + ".", true, out, seen);
    }
}

void collectModules(const Value& module, const std::string& prefix, ValueList& out) {
    out.push_back(makeTuple({makeStr(prefix), module}));
    for (const std::string& name : module.as<InstanceObject>().moduleOrder) {
        Value child = attribute(module.as<InstanceObject>(), name);
        if (child.is(Kind::Instance)) collectModules(child, prefix.empty() ? name : prefix + "." + name, out);
    }
}

void collectNamedBuffers(const Value& module, const std::string& prefix, ValueList& out) {
    auto& instance = module.as<InstanceObject>();
    for (const std::string& name : instance.bufferOrder) {
        Value b = attribute(instance, name);
        if (b.is(Kind::Tensor)) out.push_back(makeTuple({makeStr(prefix + name), b}));
    }
    for (const std::string& name : instance.moduleOrder) {
        Value child = attribute(instance, name);
        if (child.is(Kind::Instance)) collectNamedBuffers(child, prefix + name + ".", out);
    }
}

void collectState(const Value& module, const std::string& prefix, DictObject& out) {
    auto& instance = module.as<InstanceObject>();
    for (const auto* order : {&instance.parameterOrder, &instance.bufferOrder})
        for (const std::string& name : *order) {
            Value t = attribute(instance, name);
            if (t.is(Kind::Tensor)) out.set(makeStr(prefix + name), t);
        }
    for (const std::string& name : instance.moduleOrder) {
        Value child = attribute(instance, name);
        if (child.is(Kind::Instance)) collectState(child, prefix + name + ".", out);
    }
}

void setTraining(Value module, bool mode) {
    auto& instance = module.as<InstanceObject>();
    instance.attributes["training"] = Value(mode);
    for (const std::string& name : instance.moduleOrder) {
        Value child = attribute(instance, name);
        if (child.is(Kind::Instance)) setTraining(child, mode);
    }
}

std::string indentLines(const std::string& text) {
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '\n') out += "  ";
    }
    return out;
}

Value iteratorOver(Interpreter& vm, ValueList items) { return vm.iterate(makeList(std::move(items))); }

void defineModuleBase(Interpreter& interpreter, ModuleObject& nn) {
    auto moduleClass = interpreter.defineClass("Module", "object");
    moduleClass->module = "torch.nn.modules.module";
    nn.attributes["Module"] = Value(moduleClass);
    auto def = [&moduleClass](const char* name, NativeFn fn) { moduleClass->dict[name] = makeNative(name, std::move(fn)); };
    def("__init__", [](Interpreter&, CallArgs& a) {
        self(a).attributes["training"] = Value(true);
        return Value();
    });
    def("__setattr__", [](Interpreter& vm, CallArgs& a) {
        auto& instance = self(a);
        const std::string& name = a.positional.at(1).str();
        const Value& value = a.positional.at(2);
        auto remember = [&](std::vector<std::string>& order) {
            if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
        };
        if (value.is(Kind::Tensor) && value.as<TensorObject>().parameter) remember(instance.parameterOrder);
        if (value.is(Kind::Instance) && vm.isInstance(value, *vm.builtinClass("Module"))) remember(instance.moduleOrder);
        instance.attributes[name] = value;
        return Value();
    });
    def("__call__", [](Interpreter& vm, CallArgs& a) {
        Value module = a.positional.at(0);
        auto& attributes = module.as<InstanceObject>().attributes;
        if (auto compiled = attributes.find("_compiled_call_impl"); compiled != attributes.end()) {
            a.positional.erase(a.positional.begin());
            return vm.callArgs(compiled->second, a);
        }
        a.positional.erase(a.positional.begin());
        return callModuleImpl(vm, module, std::move(a), [](const Value& callable) { return callable; });
    });
    def("named_parameters", [](Interpreter& vm, CallArgs& a) {
        std::string prefix = param(a, 0, "prefix", makeStr("")).str();
        bool recurse = vm.truthy(param(a, 1, "recurse", Value(true)));
        if (!prefix.empty()) prefix += ".";
        ValueList out;
        std::vector<const Object*> seen;
        collectNamedParameters(a.positional.at(0), prefix, recurse, out, seen);
        return iteratorOver(vm, std::move(out));
    });
    def("parameters", [](Interpreter& vm, CallArgs& a) {
        bool recurse = vm.truthy(param(a, 0, "recurse", Value(true)));
        ValueList named;
        std::vector<const Object*> seen;
        collectNamedParameters(a.positional.at(0), "", recurse, named, seen);
        ValueList out;
        for (const Value& pair : named) out.push_back(pair.as<TupleObject>().items[1]);
        return iteratorOver(vm, std::move(out));
    });
    def("named_children", [](Interpreter& vm, CallArgs& a) {
        ValueList out;
        for (const std::string& name : self(a).moduleOrder) out.push_back(makeTuple({makeStr(name), attribute(self(a), name)}));
        return iteratorOver(vm, std::move(out));
    });
    // Module.apply(fn): fn on every submodule, children first, then on self (PyTorch's order); returns self.
    def("apply", [](Interpreter& vm, CallArgs& a) {
        Value fn = a.positional.size() > 1 ? a.positional[1] : a.take("fn").value_or(Value());
        ValueList children;
        for (const std::string& name : self(a).moduleOrder) children.push_back(attribute(self(a), name));
        for (const Value& child : children)
            if (!child.isNone()) vm.call(vm.getAttr(child, "apply"), {fn});
        vm.call(fn, {a.positional.at(0)});
        return a.positional.at(0);
    });
    def("children", [](Interpreter& vm, CallArgs& a) {
        ValueList out;
        for (const std::string& name : self(a).moduleOrder) out.push_back(attribute(self(a), name));
        return iteratorOver(vm, std::move(out));
    });
    def("named_modules", [](Interpreter& vm, CallArgs& a) {
        ValueList out;
        collectModules(a.positional.at(0), "", out);
        return iteratorOver(vm, std::move(out));
    });
    def("modules", [](Interpreter& vm, CallArgs& a) {
        ValueList named;
        collectModules(a.positional.at(0), "", named);
        ValueList out;
        for (const Value& pair : named) out.push_back(pair.as<TupleObject>().items[1]);
        return iteratorOver(vm, std::move(out));
    });
    def("train", [](Interpreter& vm, CallArgs& a) {
        setTraining(a.positional.at(0), vm.truthy(param(a, 0, "mode", Value(true))));
        return a.positional.at(0);
    });
    def("eval", [](Interpreter&, CallArgs& a) {
        setTraining(a.positional.at(0), false);
        return a.positional.at(0);
    });
    def("register_parameter", [](Interpreter& vm, CallArgs& a) {
        vm.setAttr(a.positional.at(0), a.positional.at(1).str(), a.positional.at(2));
        return Value();
    });
    def("register_buffer", [](Interpreter&, CallArgs& a) {
        const std::string& name = a.positional.at(1).str();
        auto& order = self(a).bufferOrder;
        if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
        self(a).attributes[name] = a.positional.at(2);
        return Value();
    });
    def("named_buffers", [](Interpreter& vm, CallArgs& a) {
        ValueList out;
        collectNamedBuffers(a.positional.at(0), "", out);
        return iteratorOver(vm, std::move(out));
    });
    def("buffers", [](Interpreter& vm, CallArgs& a) {
        ValueList named;
        collectNamedBuffers(a.positional.at(0), "", named);
        ValueList out;
        for (const Value& pair : named) out.push_back(pair.as<TupleObject>().items[1]);
        return iteratorOver(vm, std::move(out));
    });
    // state_dict(): per module its parameters, then its buffers, then its children's, as PyTorch orders them.
    def("state_dict", [](Interpreter&, CallArgs& a) {
        auto dict = std::make_shared<DictObject>();
        collectState(a.positional.at(0), "", *dict);
        return Value(dict);
    });
    def("load_state_dict", [](Interpreter& vm, CallArgs& a) {
        // Parameters are overwritten in place, under no_grad as in PyTorch.
        const tensor::autograd::GradModeGuard noGrad(false);
        auto own = std::make_shared<DictObject>();
        collectState(a.positional.at(0), "", *own);
        const Value& source = a.positional.at(1);
        if (!source.is(Kind::Dict)) typeError("Expected state_dict to be dict-like");
        std::vector<std::string> missing;
        for (auto& [key, target] : own->entries()) {
            Value* value = source.as<DictObject>().find(key);
            if (!value) {
                missing.push_back(key.str());
                continue;
            }
            callOp("Tensor.copy_", {target, *value});
        }
        std::vector<std::string> unexpected;
        for (auto& [key, value] : source.as<DictObject>().entries())
            if (!own->find(key)) unexpected.push_back(vm.str(key));
        if (!missing.empty() || !unexpected.empty()) {
            std::string message = "Error(s) in loading state_dict for " + self(a).cls->name + ":\n\t";
            auto quoted = [](const std::vector<std::string>& keys) {
                std::string text;
                for (size_t i = 0; i < keys.size(); ++i) text += (i ? ", \"" : "\"") + keys[i] + "\"";
                return text;
            };
            if (!missing.empty()) message += "Missing key(s) in state_dict: " + quoted(missing) + ". ";
            if (!unexpected.empty()) message += "Unexpected key(s) in state_dict: " + quoted(unexpected) + ". ";
            raise("RuntimeError", message);
        }
        return Value();
    });
    // zero_grad(set_to_none=True): drops the grads, or zeroes them in place with set_to_none=False.
    def("zero_grad", [](Interpreter& vm, CallArgs& a) {
        const bool setToNone = vm.truthy(param(a, 0, "set_to_none", Value(true)));
        Value parameters = vm.call(vm.getAttr(a.positional.at(0), "parameters"), {});
        for (const Value& p : vm.toList(parameters)) {
            const tensor::Tensor grad = tensor::gradOf(p.tensor());
            if (!grad.defined()) continue;
            if (setToNone) tensor::setGrad(p.tensor(), tensor::Tensor());
            else op("Tensor.zero_", {grad});
        }
        return Value();
    });
    def("requires_grad_", [](Interpreter& vm, CallArgs& a) {
        bool flag = vm.truthy(param(a, 0, "requires_grad", Value(true)));
        for (const Value& p : vm.toList(vm.call(vm.getAttr(a.positional.at(0), "parameters"), {}))) {
            tensor::Tensor t = p.tensor();
            t.setRequiresGrad(flag);
        }
        return a.positional.at(0);
    });
    // to(device) / to(dtype): parameters are converted in place (their VM objects keep their identity).
    def("to", [](Interpreter& vm, CallArgs& a) {
        Value module = a.positional.at(0);
        tensor::ValueList rest;
        for (size_t i = 1; i < a.positional.size(); ++i) rest.push_back(toTensorValue(a.positional[i]));
        tensor::KeywordArgs kwargs;
        for (auto& [key, v] : a.keywords) kwargs.emplace_back(key, toTensorValue(v));
        ValueList tensors = vm.toList(vm.call(vm.getAttr(module, "parameters"), {}));
        ValueList buffers = vm.toList(vm.call(vm.getAttr(module, "buffers"), {}));
        tensors.insert(tensors.end(), buffers.begin(), buffers.end());
        for (const Value& p : tensors) {
            // As Module._apply: the conversion is not recorded by autograd, so a parameter stays a leaf on its
            // new device (and receives .grad there).
            const tensor::Value self[] = {toTensorValue(p)};
            tensor::ValueList args{tensor::OpRegistry::instance().call("Tensor.detach", self)};
            args.insert(args.end(), rest.begin(), rest.end());
            tensor::Tensor converted = tensor::OpRegistry::instance().call("Tensor.to", args, kwargs).toTensor();
            if (converted.isSameTensor(p.tensor())) continue;
            if (p.tensor().requiresGrad() && tensor::isFloating(converted.dtype())) converted.setRequiresGrad(true);
            p.as<TensorObject>().value = converted;
        }
        return module;
    });
    def("extra_repr", [](Interpreter&, CallArgs&) { return makeStr(""); });
    def("__repr__", [](Interpreter& vm, CallArgs& a) {
        Value module = a.positional.at(0);
        auto& instance = module.as<InstanceObject>();
        std::string extra = vm.str(vm.call(vm.getAttr(module, "extra_repr"), {}));
        std::string text = instance.cls->name + "(";
        std::vector<std::string> lines;
        for (size_t start = 0; !extra.empty() && start <= extra.size();) {  // extra_repr's lines, each a line of its own
            const size_t end = std::min(extra.find('\n', start), extra.size());
            lines.push_back(extra.substr(start, end - start));
            start = end + 1;
        }
        for (const std::string& name : instance.moduleOrder)
            lines.push_back(fmt::format("({}): {}", name, indentLines(vm.repr(attribute(instance, name)))));
        if (lines.empty()) return makeStr(text + ")");
        if (instance.moduleOrder.empty() && extra.find('\n') == std::string::npos) return makeStr(text + extra + ")");
        for (const std::string& line : lines) text += "\n  " + line;
        return makeStr(text + "\n)");
    });
}

std::shared_ptr<ClassObject> leaf(Interpreter& vm, ModuleObject& nn, const char* name) {
    auto cls = vm.defineClass(name, "Module");
    cls->module = "torch.nn.modules";
    nn.attributes[name] = Value(cls);
    return cls;
}

void init(Interpreter& vm, CallArgs& a) { vm.call(vm.builtinClass("Module")->dict.at("__init__"), {a.positional.at(0)}); }

void defineLeafModules(Interpreter& vm, ModuleObject& nn) {
    auto linear = leaf(vm, nn, "Linear");
    linear->dict["__init__"] = makeNative("__init__", [](Interpreter& m, CallArgs& a) {
        init(m, a);
        Value module = a.positional.at(0);
        int64_t in = param(a, 0, "in_features", Value()).asInt();
        int64_t out = param(a, 1, "out_features", Value()).asInt();
        bool bias = m.truthy(param(a, 2, "bias", Value(true)));
        Value dtype = param(a, 4, "dtype", Value());
        tensor::KeywordArgs options{{"dtype", toTensorValue(dtype)}};
        self(a).attributes["in_features"] = Value(in);
        self(a).attributes["out_features"] = Value(out);
        Value weight = op("torch.empty", {tensor::Value::list({out, in})}, options);
        op("torch.nn.init.kaiming_uniform_", {toTensorValue(weight)}, {{"a", tensor::Value(std::sqrt(5.0))}});
        m.setAttr(module, "weight", parameter(weight));
        if (bias) {
            double bound = in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 0.0;
            Value b = op("torch.empty", {tensor::Value::list({out})}, options);
            op("torch.nn.init.uniform_", {toTensorValue(b), tensor::Value(-bound), tensor::Value(bound)});
            m.setAttr(module, "bias", parameter(b));
        } else {
            m.setAttr(module, "bias", Value());
        }
        return Value();
    });
    linear->dict["forward"] = makeNative("forward", [](Interpreter&, CallArgs& a) {
        auto& s = self(a);
        return op("F.linear", {toTensorValue(a.positional.at(1)), toTensorValue(attribute(s, "weight")), toTensorValue(attribute(s, "bias"))});
    });
    linear->dict["extra_repr"] = makeNative("extra_repr", [](Interpreter&, CallArgs& a) {
        auto& s = self(a);
        return makeStr(fmt::format("in_features={}, out_features={}, bias={}", attribute(s, "in_features").asInt(),
                                   attribute(s, "out_features").asInt(), attribute(s, "bias").isNone() ? "False" : "True"));
    });

    auto layerNorm = leaf(vm, nn, "LayerNorm");
    layerNorm->dict["__init__"] = makeNative("__init__", [](Interpreter& m, CallArgs& a) {
        init(m, a);
        Value module = a.positional.at(0);
        Value shape = param(a, 0, "normalized_shape", Value());
        if (shape.is(Kind::Int)) shape = makeTuple({shape});
        shape = makeTuple(m.toList(shape));
        double eps = param(a, 1, "eps", Value(1e-5)).asFloat();
        bool affine = m.truthy(param(a, 2, "elementwise_affine", Value(true)));
        bool bias = m.truthy(param(a, 3, "bias", Value(true)));
        self(a).attributes["normalized_shape"] = shape;
        self(a).attributes["eps"] = Value(eps);
        self(a).attributes["elementwise_affine"] = Value(affine);
        m.setAttr(module, "weight", affine ? parameter(op("torch.ones", {toTensorValue(shape)})) : Value());
        m.setAttr(module, "bias", affine && bias ? parameter(op("torch.zeros", {toTensorValue(shape)})) : Value());
        return Value();
    });
    layerNorm->dict["forward"] = makeNative("forward", [](Interpreter&, CallArgs& a) {
        auto& s = self(a);
        return op("F.layer_norm", {toTensorValue(a.positional.at(1)), toTensorValue(attribute(s, "normalized_shape")),
                                   toTensorValue(attribute(s, "weight")), toTensorValue(attribute(s, "bias")),
                                   toTensorValue(attribute(s, "eps"))});
    });
    layerNorm->dict["extra_repr"] = makeNative("extra_repr", [](Interpreter& m, CallArgs& a) {
        auto& s = self(a);
        return makeStr(fmt::format("{}, eps={}, elementwise_affine={}", m.repr(attribute(s, "normalized_shape")),
                                   m.repr(attribute(s, "eps")), m.repr(attribute(s, "elementwise_affine"))));
    });

    auto embedding = leaf(vm, nn, "Embedding");
    embedding->dict["__init__"] = makeNative("__init__", [](Interpreter& m, CallArgs& a) {
        init(m, a);
        int64_t count = param(a, 0, "num_embeddings", Value()).asInt();
        int64_t dim = param(a, 1, "embedding_dim", Value()).asInt();
        self(a).attributes["num_embeddings"] = Value(count);
        self(a).attributes["embedding_dim"] = Value(dim);
        m.setAttr(a.positional.at(0), "weight", parameter(op("torch.randn", {tensor::Value::list({count, dim})})));
        return Value();
    });
    embedding->dict["forward"] = makeNative("forward", [](Interpreter&, CallArgs& a) {
        return op("F.embedding", {toTensorValue(a.positional.at(1)), toTensorValue(attribute(self(a), "weight"))});
    });
    embedding->dict["extra_repr"] = makeNative("extra_repr", [](Interpreter&, CallArgs& a) {
        return makeStr(fmt::format("{}, {}", attribute(self(a), "num_embeddings").asInt(), attribute(self(a), "embedding_dim").asInt()));
    });

    // Activations: forward is one op; GELU keeps its approximate mode, ReLU and SiLU their inplace flag (an
    // in-place module writes its input, as PyTorch's does).
    for (auto [name, opName] : {std::pair{"ReLU", "F.relu"}, std::pair{"GELU", "F.gelu"}, std::pair{"SiLU", "F.silu"},
                                std::pair{"Tanh", "torch.tanh"}, std::pair{"Sigmoid", "torch.sigmoid"}, std::pair{"Identity", ""}}) {
        auto cls = leaf(vm, nn, name);
        std::string target = opName;
        bool gelu = std::string(name) == "GELU";
        bool hasInplace = std::string(name) == "ReLU" || std::string(name) == "SiLU";
        cls->dict["__init__"] = makeNative("__init__", [gelu, hasInplace](Interpreter& m, CallArgs& a) {
            init(m, a);
            if (gelu) self(a).attributes["approximate"] = param(a, 0, "approximate", makeStr("none"));
            if (hasInplace) self(a).attributes["inplace"] = Value(m.truthy(param(a, 0, "inplace", Value(false))));
            return Value();
        });
        cls->dict["forward"] = makeNative("forward", [target, gelu, hasInplace](Interpreter&, CallArgs& a) {
            if (target.empty()) return a.positional.at(1);
            tensor::KeywordArgs kwargs;
            if (gelu) kwargs.emplace_back("approximate", toTensorValue(attribute(self(a), "approximate")));
            if (hasInplace) kwargs.emplace_back("inplace", toTensorValue(attribute(self(a), "inplace")));
            return op(target, {toTensorValue(a.positional.at(1))}, kwargs);
        });
        if (gelu)
            cls->dict["extra_repr"] = makeNative("extra_repr", [](Interpreter& m, CallArgs& a) {
                return makeStr("approximate=" + m.repr(attribute(self(a), "approximate")));
            });
        if (hasInplace)
            cls->dict["extra_repr"] = makeNative("extra_repr", [](Interpreter& m, CallArgs& a) {
                return makeStr(m.truthy(attribute(self(a), "inplace")) ? "inplace=True" : "");
            });
    }
    auto dropout = leaf(vm, nn, "Dropout");
    dropout->dict["__init__"] = makeNative("__init__", [](Interpreter& m, CallArgs& a) {
        init(m, a);
        self(a).attributes["p"] = Value(param(a, 0, "p", Value(0.5)).asFloat());
        self(a).attributes["inplace"] = param(a, 1, "inplace", Value(false));
        return Value();
    });
    dropout->dict["forward"] = makeNative("forward", [](Interpreter&, CallArgs& a) {
        auto& s = self(a);
        return op("F.dropout", {toTensorValue(a.positional.at(1)), toTensorValue(attribute(s, "p")), toTensorValue(attribute(s, "training")),
                                toTensorValue(attribute(s, "inplace"))});
    });
    dropout->dict["extra_repr"] = makeNative("extra_repr", [](Interpreter& m, CallArgs& a) {
        return makeStr(fmt::format("p={}, inplace={}", m.repr(attribute(self(a), "p")), m.repr(attribute(self(a), "inplace"))));
    });
}

void defineContainers(Interpreter& vm, ModuleObject& nn) {
    for (const char* name : {"Sequential", "ModuleList"}) {
        auto cls = leaf(vm, nn, name);
        bool sequential = std::string(name) == "Sequential";
        cls->dict["__init__"] = makeNative("__init__", [sequential](Interpreter& m, CallArgs& a) {
            init(m, a);
            // Sequential(OrderedDict(...)): the children under their keys, in order, as PyTorch's.
            if (sequential && a.positional.size() == 2 && a.positional[1].is(Kind::Dict) && a.positional[1].as<DictObject>().cls &&
                a.positional[1].as<DictObject>().cls->name == "OrderedDict") {
                for (const auto& [key, child] : a.positional[1].as<DictObject>().entries()) m.setAttr(a.positional.at(0), m.str(key), child);
                return Value();
            }
            ValueList children = sequential ? ValueList(a.positional.begin() + 1, a.positional.end())
                                            : (a.positional.size() > 1 ? m.toList(a.positional[1]) : ValueList{});
            for (size_t i = 0; i < children.size(); ++i) m.setAttr(a.positional.at(0), std::to_string(i), children[i]);
            return Value();
        });
        cls->dict["__len__"] = makeNative("__len__", [](Interpreter&, CallArgs& a) { return Value(static_cast<int64_t>(self(a).moduleOrder.size())); });
        cls->dict["__iter__"] = makeNative("__iter__", [](Interpreter& m, CallArgs& a) {
            ValueList out;
            for (const std::string& n : self(a).moduleOrder) out.push_back(attribute(self(a), n));
            return iteratorOver(m, std::move(out));
        });
        cls->dict["__getitem__"] = makeNative("__getitem__", [sequential](Interpreter& m, CallArgs& a) {
            auto& s = self(a);
            if (a.positional.at(1).is(Kind::Slice)) {
                // A slice is a new container of the same class over the selected children, as PyTorch's.
                ValueList children;
                for (const std::string& n : s.moduleOrder) children.push_back(attribute(s, n));
                ValueList picked = m.toList(m.getItem(makeList(std::move(children)), a.positional[1]));
                return sequential ? m.call(Value(s.cls), std::move(picked)) : m.call(Value(s.cls), {makeList(std::move(picked))});
            }
            int64_t count = static_cast<int64_t>(s.moduleOrder.size());
            int64_t i = a.positional.at(1).asInt();
            if (i < 0) i += count;
            if (i < 0 || i >= count) raise("IndexError", fmt::format("index {} is out of range", a.positional.at(1).asInt()));
            return attribute(s, s.moduleOrder[static_cast<size_t>(i)]);
        });
        cls->dict["append"] = makeNative("append", [](Interpreter& m, CallArgs& a) {
            m.setAttr(a.positional.at(0), std::to_string(self(a).moduleOrder.size()), a.positional.at(1));
            return a.positional.at(0);
        });
        if (sequential)
            cls->dict["forward"] = makeNative("forward", [](Interpreter& m, CallArgs& a) {
                Value x = a.positional.at(1);
                for (const std::string& n : self(a).moduleOrder) x = m.call(attribute(self(a), n), {x});
                return x;
            });
    }
    // ModuleDict: submodules by name, in insertion order (the module's own child order), with dict's methods.
    auto moduleDict = leaf(vm, nn, "ModuleDict");
    moduleDict->dict["__init__"] = makeNative("__init__", [](Interpreter& m, CallArgs& a) {
        init(m, a);
        Value modules = a.positional.size() > 1 ? a.positional[1] : a.take("modules").value_or(Value());
        if (!modules.isNone()) m.call(m.getAttr(a.positional.at(0), "update"), {modules});
        return Value();
    });
    moduleDict->dict["update"] = makeNative("update", [](Interpreter& m, CallArgs& a) {
        const Value& modules = a.positional.at(1);
        ValueList pairs = modules.is(Kind::Dict) || modules.is(Kind::Instance) ? m.toList(m.call(m.getAttr(modules, "items"), {}))
                                                                                : m.toList(modules);
        for (const Value& pair : pairs) {
            ValueList kv = m.toList(pair);
            if (kv.size() != 2) raise("ValueError", "ModuleDict update sequence element has length " + std::to_string(kv.size()) + "; 2 is required");
            m.setAttr(a.positional.at(0), m.str(kv[0]), kv[1]);
        }
        return Value();
    });
    moduleDict->dict["__getitem__"] = makeNative("__getitem__", [](Interpreter& m, CallArgs& a) {
        auto& s = self(a);
        const std::string key = m.str(a.positional.at(1));
        if (std::find(s.moduleOrder.begin(), s.moduleOrder.end(), key) == s.moduleOrder.end()) raise("KeyError", m.repr(a.positional.at(1)));
        return attribute(s, key);
    });
    moduleDict->dict["__setitem__"] = makeNative("__setitem__", [](Interpreter& m, CallArgs& a) {
        m.setAttr(a.positional.at(0), m.str(a.positional.at(1)), a.positional.at(2));
        return Value();
    });
    moduleDict->dict["__contains__"] = makeNative("__contains__", [](Interpreter& m, CallArgs& a) {
        auto& order = self(a).moduleOrder;
        return Value(a.positional.at(1).is(Kind::Str) && std::find(order.begin(), order.end(), m.str(a.positional.at(1))) != order.end());
    });
    moduleDict->dict["__len__"] = makeNative("__len__", [](Interpreter&, CallArgs& a) { return Value(static_cast<int64_t>(self(a).moduleOrder.size())); });
    auto listing = [](int what) {
        return [what](Interpreter& m, CallArgs& a) {
            ValueList out;
            for (const std::string& n : self(a).moduleOrder) {
                if (what == 0) out.push_back(makeStr(n));
                else if (what == 1) out.push_back(attribute(self(a), n));
                else out.push_back(makeTuple({makeStr(n), attribute(self(a), n)}));
            }
            (void)m;
            return makeList(std::move(out));
        };
    };
    moduleDict->dict["keys"] = makeNative("keys", listing(0));
    moduleDict->dict["values"] = makeNative("values", listing(1));
    moduleDict->dict["items"] = makeNative("items", listing(2));
    moduleDict->dict["__iter__"] = makeNative("__iter__", [](Interpreter& m, CallArgs& a) {
        ValueList out;
        for (const std::string& n : self(a).moduleOrder) out.push_back(makeStr(n));
        return iteratorOver(m, std::move(out));
    });
}

}  // namespace

void installNn(Interpreter& vm, ModuleObject& nn) {
    defineModuleBase(vm, nn);
    installModuleHooks(vm, *vm.builtinClass("Module"));
    defineLeafModules(vm, nn);
    defineContainers(vm, nn);
    installModuleDeletion(vm, nn);
    auto parameterClass = vm.builtinClass("Parameter");
    parameterClass->dict["__new__"] = makeNative("Parameter", [](Interpreter& m, CallArgs& a) {
        Value data = a.positional.size() > 1 ? a.positional[1] : op("torch.empty", {tensor::Value::list({int64_t{0}})});
        bool requiresGrad = m.truthy(a.positional.size() > 2 ? a.positional[2] : a.take("requires_grad").value_or(Value(true)));
        return parameter(data, requiresGrad);
    });
    nn.attributes["Parameter"] = Value(parameterClass);
}

}  // namespace eng::vm
