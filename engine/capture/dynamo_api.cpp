// The script-facing compile surface once the engine is installed: torch._dynamo.explain, reset, set_stance and
// is_compiling become real (the VM's own versions are the eager stand-ins for when no engine is installed).
#include <fmt/core.h>

#include "capture/capture_engine.h"
#include "capture/explain.h"
#include "capture/guard_filter.h"
#include "capture/substitute_in_graph.h"

namespace eng::capture {

namespace {

constexpr const char* kStances[] = {"default", "force_eager", "eager_on_recompile", "fail_on_recompile"};

/// The function explain() compiles for `target`: a plain function, a compiled wrapper, or a module's forward.
vm::Value explainTarget(vm::Interpreter& vm, const vm::Value& target) {
    auto options = std::make_shared<vm::CompileOptions>();
    options->backend = "eager";
    auto wrap = [&](const vm::Value& function) {
        auto copy = std::make_shared<vm::FunctionObject>(function.as<vm::FunctionObject>());
        copy->compiled = options;
        return vm::Value(copy);
    };
    if (target.is(vm::Kind::Function)) return wrap(target);
    if (target.is(vm::Kind::Instance)) {
        vm::Value module = target;
        auto& attributes = target.as<vm::InstanceObject>().attributes;
        if (auto original = attributes.find("_orig_mod"); original != attributes.end()) module = original->second;
        vm::Value forward = vm.getAttr(module, "forward");
        if (forward.is(vm::Kind::BoundMethod) && forward.as<vm::BoundMethodObject>().function.is(vm::Kind::Function))
            return vm::Value(std::make_shared<vm::BoundMethodObject>(module, wrap(forward.as<vm::BoundMethodObject>().function)));
    }
    vm::raise("TypeError", "torch._dynamo.explain: expected a function or an nn.Module");
}

}  // namespace

void CaptureEngine::installDynamoSurface() {
    auto& dynamo = vm_.modules().at("torch._dynamo").as<vm::ModuleObject>().attributes;
    auto& compiler = vm_.modules().at("torch.compiler").as<vm::ModuleObject>().attributes;
    vm::Value reset = vm::makeNative("reset", [this](vm::Interpreter&, vm::CallArgs&) {
        this->reset();
        return vm::Value();
    });
    dynamo["reset"] = reset;
    compiler["reset"] = reset;
    dynamo["explain"] = vm::makeNative("explain", [this](vm::Interpreter&, vm::CallArgs& a) {
        vm::Value target = vm::Value(a.positional.at(0));
        return vm::makeNative("explain", [this, target](vm::Interpreter& machine, vm::CallArgs& call) {
            // explain() starts from a clean cache (it calls reset() in PyTorch) and leaves the run's caches alone.
            auto savedCaches = std::move(caches_);
            auto savedKept = std::move(keptCode_);
            int savedFrameId = nextFrameId_;
            caches_.clear();
            keptCode_.clear();
            nextFrameId_ = 0;
            ExplainRecord record;
            ExplainRecord* savedRecord = explain_;
            explain_ = &record;
            auto restore = [&] {
                explain_ = savedRecord;
                caches_ = std::move(savedCaches);
                keptCode_ = std::move(savedKept);
                nextFrameId_ = savedFrameId;
            };
            try {
                machine.callArgs(explainTarget(machine, target), call);
            } catch (...) {
                restore();
                throw;
            }
            restore();
            return makeExplainOutput(machine, record);
        });
    });
    installGuardFilterHelpers(vm_, compiler);
    installSubstituteInGraph(compiler);
    compiler["is_compiling"] = vm::makeNative("is_compiling", [](vm::Interpreter&, vm::CallArgs&) { return vm::Value(false); });
    compiler["is_dynamo_compiling"] = compiler["is_compiling"];
    auto stanceClass = vm_.builtinClass("_set_stance");
    stanceClass->dict["__exit__"] = vm::makeNative("__exit__", [this](vm::Interpreter&, vm::CallArgs& a) {
        setStance(a.positional.at(0).as<vm::InstanceObject>().attributes.at("_previous").str());
        return vm::Value(false);
    });
    compiler["set_stance"] = vm::makeNative("set_stance", [this, stanceClass](vm::Interpreter&, vm::CallArgs& a) {
        std::optional<vm::Value> given = a.positional.empty() ? a.take("stance") : std::optional<vm::Value>(a.positional[0]);
        std::string stance = given ? given->str() : "default";
        if (std::find(std::begin(kStances), std::end(kStances), stance) == std::end(kStances))
            vm::raise("RuntimeError", fmt::format("invalid torch.compile stance '{}'", stance));
        auto handle = std::make_shared<vm::InstanceObject>(stanceClass);
        handle->attributes["_previous"] = vm::makeStr(this->stance());
        setStance(stance);
        return vm::Value(handle);
    });
}

}  // namespace eng::capture
