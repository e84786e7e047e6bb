// Enum members and classes with a metaclass in a trace. A member is Dynamo's EnumVariable: a constant (pinned by
// ID_MATCH), so `is`, `==`, `.name`/`.value`, IntEnum arithmetic and hashing as a dict key fold at trace time. An enum
// class called, subscripted or tested with `in` on constants folds too; iterating a class through its metaclass's
// __iter__ fails as in Dynamo (its iter polyfill calls the unbound __iter__), at an instruction it cannot resume at.
#include <fmt/core.h>

#include "capture/symbolic_eval.h"
#include "capture/tracer.h"

namespace eng::capture {

namespace {

bool derivesFromEnumType(const vm::ClassObject& meta) {
    for (const vm::ClassObject* c : meta.mro())
        if (c->module == "enum" && c->name == "EnumType") return true;
    return false;
}

}  // namespace

bool isEnumClass(const vm::Value& v) {
    return v.is(vm::Kind::Class) && v.as<vm::ClassObject>().metaclass && derivesFromEnumType(*v.as<vm::ClassObject>().metaclass);
}

bool isEnumMember(const vm::Value& v) {
    if (!v.is(vm::Kind::Instance)) return false;
    const auto& meta = v.as<vm::InstanceObject>().cls->metaclass;
    return meta && derivesFromEnumType(*meta);
}

VarRef intOfEnum(Tracer& tracer, const VarRef& v) {
    if (v->kind != Variable::Kind::Python || !isEnumMember(v->value)) return v;
    std::optional<vm::Value> index = tracer.vm().findAttr(v->value, "__index__");
    if (!index) return v;
    tracer.guardValue(v);
    return tracer.constant(tracer.vm().call(*index, {}));
}

std::optional<VarRef> callMetaclassInstance(Tracer& tracer, const VarRef& callable, const std::vector<VarRef>& args,
                                            const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    if (callable->kind != Variable::Kind::Python || !callable->value.is(vm::Kind::Class)) return std::nullopt;
    const auto& cls = callable->value.as<vm::ClassObject>();
    if (!cls.metaclass) return std::nullopt;
    // Dynamo's UserDefinedClassVariable for an enum: Color(1) of a constant is the member, looked up at trace time.
    if (isEnumClass(callable->value) && tracer.allConstant(args, kwargs) && kwargs.empty()) {
        vm::ValueList values;
        for (const VarRef& a : args) {
            tracer.argOf(a);
            values.push_back(tracer.exampleOf(a));
        }
        return tracer.constant(tracer.vm().call(callable->value, std::move(values)));
    }
    std::optional<vm::Value> call = cls.metaclass->lookup("__call__");
    if (call && call->is(vm::Kind::Function))
        tracer.unsupported("Unsupported metaclass",
                           fmt::format("Dynamo does not trace the __call__ of the metaclass {} of class {}.", cls.metaclass->name, cls.name),
                           {"Create the instance outside the compiled region, or drop the metaclass's __call__."},
                           fmt::format("call_function UserDefinedClassVariable({})", cls.name));
    return std::nullopt;
}

void breakOnMetaclassIteration(Tracer& tracer, const VarRef& iterable) {
    if (iterable->kind != Variable::Kind::Python || !iterable->value.is(vm::Kind::Class)) return;
    const auto& cls = iterable->value.as<vm::ClassObject>();
    std::optional<vm::Value> iter = cls.metaclass ? cls.metaclass->lookup("__iter__") : std::nullopt;
    if (!iter || !iter->is(vm::Kind::Function)) return;
    const auto& code = *iter->as<vm::FunctionObject>().code;
    try {
        tracer.unsupported("failed to bind arguments when attempting to inline",
                           "Argument mismatch when attempting to trace function __iter__.",
                           {"Your code may result in an error when running in eager. Please double check that your code doesn't contain a "
                            "similar error when actually running eager/uncompiled. You can do this by removing the `torch.compile` call, "
                            "or by using `torch.compiler.set_stance(\"force_eager\")`. "},
                           fmt::format("func='__iter__' {}:{}; args = []; kwargs = {{}}", code.filename, code.firstLine), 7312);
    } catch (Unsupported& u) {
        // GET_ITER is no instruction Dynamo resumes at: the graph ends at the last checkpoint.
        u.info.notResumable = true;
        throw;
    }
}

}  // namespace eng::capture
