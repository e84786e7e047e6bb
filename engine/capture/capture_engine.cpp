// The frame hook's run path: find the cache of the frame (or resume point), check each entry's guards, run
// the hit's compiled graph, rebuild the return value or the frame state, run a graph-break instruction in the
// VM and continue with the resume point after it; recompile on a miss, up to the recompile limit.
#include "capture/capture_engine.h"

#include <fmt/core.h>

#include <algorithm>
#include <functional>

#include <iostream>

#include "fx/backend.h"
#include "fx/torch_logs.h"
#include "tensor/autograd/grad_mode.h"

namespace eng::capture {

LogSettings LogSettings::fromEnvironment() {
    LogSettings settings;
    settings.graphBreaks = fx::torchLogEnabled("graph_breaks");
    settings.recompiles = fx::torchLogEnabled("recompiles");
    settings.guards = fx::torchLogEnabled("guards");
    settings.graphCode = fx::torchLogEnabled("graph_code");
    settings.graphSizes = fx::torchLogEnabled("graph_sizes");
    return settings;
}

CaptureEngine::CaptureEngine(vm::Interpreter& vm) : vm_(vm), logs_(LogSettings::fromEnvironment()) {}

CaptureEngine::~CaptureEngine() {
    if (vm_.frameHook() == this) vm_.setFrameHook(nullptr);
}

void CaptureEngine::install() {
    vm_.setFrameHook(this);
    fx::installBackendCatalog();
    installDynamoSurface();
}

std::ostream& CaptureEngine::log() { return logStream_ ? *logStream_ : std::cerr; }

void CaptureEngine::reset() {
    caches_.clear();
    keptCode_.clear();
    nextFrameId_ = 0;
    uniqueGraphs_ = 0;
    loggedBreakSites_.clear();
    compiledAutogradState_.reset();
    // torch._dynamo.utils.counters survive reset(), as in PyTorch.
}

const vm::Namespace& CaptureEngine::dynamoConfig() { return vm_.modules().at("torch._dynamo.config").as<vm::ModuleObject>().attributes; }

bool CaptureEngine::dynamoDisabled(const vm::Namespace& config) {
    const vm::Value& disable = config.at("disable");
    return disable.is(vm::Kind::Bool) && disable.asBool();
}

bool CaptureEngine::compiledAutogradEnabled(const vm::Namespace& config) {
    auto flag = config.find("compiled_autograd");
    return fx::compiledAutogradHandler() && flag != config.end() && vm_.truthy(flag->second);
}

int CaptureEngine::recompileLimit() {
    const vm::Namespace& config = dynamoConfig();
    // recompile_limit is the current name; a script that sets the old cache_size_limit means the same.
    int64_t limit = config.at("recompile_limit").asInt();
    int64_t legacy = config.at("cache_size_limit").asInt();
    return static_cast<int>(legacy != 8 ? legacy : limit);
}

void CaptureEngine::countCounter(const std::string& group, const std::string& name, int64_t delta) {
    auto& counters = vm_.getAttr(vm_.modules().at("torch._dynamo.utils"), "counters").as<vm::DictObject>();
    vm::Value* bucket = counters.find(vm::makeStr(group));
    if (!bucket) {
        // A new group is what PyTorch's defaultdict(Counter) makes (a script may have replaced counters by a dict).
        counters.set(vm::makeStr(group), counters.defaultFactory.isNone() ? vm::Value(std::make_shared<vm::DictObject>())
                                                                          : vm_.call(counters.defaultFactory, {}));
        bucket = counters.find(vm::makeStr(group));
    }
    auto& dict = bucket->as<vm::DictObject>();
    vm::Value* count = dict.find(vm::makeStr(name));
    if (count) *count = vm::Value(count->asInt() + delta);
    else dict.set(vm::makeStr(name), vm::Value(delta));
}

void CaptureEngine::countGraphBreak(const std::string& reason) { countCounter("graph_break", reason, 1); }

std::optional<vm::Value> CaptureEngine::onFrame(vm::Interpreter&, vm::Frame& frame, const vm::CompileOptions& options) {
    const vm::Namespace& config = dynamoConfig();  // read once per call: this runs on every compiled call
    if (stance_ == "force_eager" || dynamoDisabled(config)) return std::nullopt;
    // Calls made by this frame's graphs and traces are not frames of their own; only its break steps are.
    const vm::CompileOptions* outer = vm_.hookEveryCall();
    // The compiled function's own code, not a function it calls while the callback is installed: Dynamo puts it in
    // always_optimize_code_objects, so it compiles with or without tensors in the frame.
    const bool ownCode = &options != outer;
    vm_.setHookEveryCall(nullptr);
    struct Restore {
        vm::Interpreter& vm;
        const vm::CompileOptions* options;
        ~Restore() { vm.setHookEveryCall(options); }
    } restore{vm_, outer};
    // Compiled autograd covers the whole call of the compiled function, its eager parts after graph breaks included
    // (where `loss.backward()` runs), as Dynamo enters compiled_autograd._enable around it.
    std::optional<tensor::autograd::BackwardInterceptorScope> compiledAutograd;
    if (!tensor::autograd::backwardIntercepted() && compiledAutogradEnabled(config))
        compiledAutograd.emplace([this, options](const tensor::autograd::RootGradients& start, bool retainGraph) {
            return fx::compiledAutogradHandler()(*this, options, start, retainGraph);
        });
    if (pendingExplain_) {
        explain_ = pendingExplain_;
        pendingExplain_ = nullptr;
        vm::CompileOptions defaults;
        defaults.backend = "eager";
        try {
            vm::Value result = runCompiled(frame, defaults, true);
            explain_ = nullptr;
            return result;
        } catch (...) {
            explain_ = nullptr;
            throw;
        }
    }
    return runCompiled(frame, options, ownCode);
}

vm::Value CaptureEngine::rebuild(const Rebuild& r, const vm::ValueList& outputs, const vm::ValueList& view, const vm::Namespace& globals) {
    switch (r.kind) {
        case Rebuild::Kind::GraphOutput: return outputs.at(r.index);
        case Rebuild::Kind::Constant: return r.constant;
        case Rebuild::Kind::CopyOfConstant:
            if (r.constant.is(vm::Kind::Set)) return vm::Value(std::make_shared<vm::SetObject>(r.constant.as<vm::SetObject>()));
            if (r.constant.is(vm::Kind::Dict)) return vm::Value(std::make_shared<vm::DictObject>(r.constant.as<vm::DictObject>()));
            return vm::makeList(r.constant.as<vm::ListObject>().items);
        case Rebuild::Kind::FromSource: {
            std::optional<vm::Value> v = readSource(vm_, *r.source, view, globals);
            if (!v) vm::raise("RuntimeError", "torch.compile: " + r.source->str() + " disappeared while the frame ran");
            return *v;
        }
        case Rebuild::Kind::TensorSize: {
            std::optional<vm::Value> t = readSource(vm_, *r.source, view, globals);
            if (!t || !t->is(vm::Kind::Tensor)) vm::raise("RuntimeError", "torch.compile: " + r.source->str() + " is no longer a tensor");
            return vm::Value(t->tensor().size(static_cast<int64_t>(r.index)));
        }
        case Rebuild::Kind::Null: return vm::Value::null();
        case Rebuild::Kind::List:
        case Rebuild::Kind::Tuple:
        case Rebuild::Kind::Iterator: {
            // A list the trace made is one object however many places hold it (a local and the stack, say).
            if (r.kind == Rebuild::Kind::List && r.index > 0)
                if (auto it = rebuiltLists_.find(r.index); it != rebuiltLists_.end()) return it->second;
            vm::ValueList items;
            for (const Rebuild& item : r.items) items.push_back(rebuild(item, outputs, view, globals));
            if (r.kind == Rebuild::Kind::List) {
                vm::Value list = vm::makeList(std::move(items));
                if (r.index > 0) rebuiltLists_[r.index] = list;
                return list;
            }
            if (r.kind == Rebuild::Kind::Iterator && !r.name.empty()) return vm_.call(vm_.builtins().at(r.name), std::move(items));
            if (r.kind == Rebuild::Kind::Iterator) return vm_.iterate(vm::makeList(std::move(items)));
            vm::Value tuple = vm::makeTuple(std::move(items));
            if (r.constant.is(vm::Kind::Tuple)) {
                tuple.as<vm::TupleObject>().copyTypeFrom(r.constant.as<vm::TupleObject>());
            }
            return tuple;
        }
        case Rebuild::Kind::Dict: {
            if (r.index > 0)
                if (auto it = rebuiltLists_.find(r.index); it != rebuiltLists_.end()) return it->second;
            auto dict = std::make_shared<vm::DictObject>();
            if (r.constant.is(vm::Kind::Dict)) {
                dict->cls = r.constant.as<vm::DictObject>().cls;
                dict->defaultFactory = r.constant.as<vm::DictObject>().defaultFactory;
            }
            for (size_t i = 0; i < r.keys.size(); ++i) dict->set(r.keys[i], rebuild(r.items[i], outputs, view, globals));
            if (r.index > 0) rebuiltLists_[r.index] = vm::Value(dict);
            return vm::Value(dict);
        }
        case Rebuild::Kind::Object: {
            if (auto it = rebuiltLists_.find(r.index); it != rebuiltLists_.end()) return it->second;
            auto object = std::make_shared<vm::InstanceObject>(r.constant.ref<vm::ClassObject>());
            rebuiltLists_[r.index] = vm::Value(object);  // before its attributes, which may refer back to it
            for (size_t i = 0; i < r.keys.size(); ++i) object->attributes[r.keys[i].str()] = rebuild(r.items[i], outputs, view, globals);
            return vm::Value(object);
        }
        case Rebuild::Kind::Super:
            return vm::Value(std::make_shared<vm::SuperObject>(r.constant.ref<vm::ClassObject>(), rebuild(r.items.at(0), outputs, view, globals)));
        case Rebuild::Kind::TensorMethod: return vm_.getAttr(rebuild(r.items.at(0), outputs, view, globals), r.name);
        case Rebuild::Kind::DictView: return vm_.call(vm_.getAttr(rebuild(r.items.at(0), outputs, view, globals), r.name), {});
        case Rebuild::Kind::Set: {
            if (auto it = rebuiltLists_.find(r.index); it != rebuiltLists_.end()) return it->second;
            auto set = std::make_shared<vm::SetObject>();
            set->frozen = r.name == "frozenset";
            for (const Rebuild& item : r.items) set->add(rebuild(item, outputs, view, globals));
            rebuiltLists_[r.index] = vm::Value(set);
            return vm::Value(set);
        }
        case Rebuild::Kind::Function: {
            // A closure the trace made: new per call (one however many places hold it), over this call's cells.
            if (auto it = rebuiltLists_.find(r.index); it != rebuiltLists_.end()) return it->second;
            auto function = std::make_shared<vm::FunctionObject>(r.constant.as<vm::FunctionObject>());
            function->closure.clear();
            for (const Rebuild& cell : r.items) function->closure.push_back(rebuild(cell, outputs, view, globals).ref<vm::CellObject>());
            rebuiltLists_[r.index] = vm::Value(function);
            return vm::Value(function);
        }
        case Rebuild::Kind::Cell:
            // A closure tuple cut by a break (at a MAKE_FUNCTION whose function escapes): the running frame's cell.
            if (!rebuildCells_ || r.index >= rebuildCells_->size()) vm::raise("RuntimeError", "torch.compile: a closure cell is gone");
            return vm::Value((*rebuildCells_)[r.index]);
    }
    return vm::Value();
}

void CaptureEngine::replaySideEffects(const CacheEntry& entry, const vm::ValueList& outputs, const vm::ValueList& view, vm::Namespace& globals) {
    // Every new value first, then the writes: a value read from a source must not see an earlier write.
    std::vector<vm::Value> values;
    for (const SideEffect& e : entry.sideEffects)
        if (e.kind == SideEffect::Kind::SetMethod) {
            // The set itself, found before any write (a later store may rebind the name that reached it).
            std::optional<vm::Value> set = readSource(vm_, *e.target, view, globals);
            if (!set || !set->is(vm::Kind::Set)) vm::raise("RuntimeError", "torch.compile: set " + e.target->str() + " is gone");
            values.push_back(*set);
        } else {
            values.push_back(e.kind == SideEffect::Kind::DictDelete || e.kind == SideEffect::Kind::DelAttr ? vm::Value()
                                                                                                              : rebuild(e.value, outputs, view, globals));
        }
    for (size_t i = 0; i < entry.sideEffects.size(); ++i) {
        const SideEffect& e = entry.sideEffects[i];
        if (e.kind == SideEffect::Kind::SetGlobal) {
            globals[e.name] = std::move(values[i]);
            continue;
        }
        if (e.kind == SideEffect::Kind::SetMethod) {
            vm_.call(vm_.getAttr(values[i], e.name), e.key.as<vm::TupleObject>().items);  // set.add(3), as the trace ran it
            continue;
        }
        std::optional<vm::Value> target = readSource(vm_, *e.target, view, globals);
        if (!target) vm::raise("RuntimeError", "torch.compile: " + e.target->str() + " is gone");
        switch (e.kind) {
            case SideEffect::Kind::ListContents:
                if (!target->is(vm::Kind::List)) vm::raise("RuntimeError", "torch.compile: list " + e.target->str() + " is gone");
                target->as<vm::ListObject>().items = values[i].as<vm::ListObject>().items;
                break;
            case SideEffect::Kind::SetAttr: vm_.setAttr(*target, e.name, std::move(values[i])); break;
            case SideEffect::Kind::DelAttr:
                // object's own deletion: a class's __delattr__ was inlined, and its effects are replayed by themselves.
                if (target->is(vm::Kind::Instance)) vm_.deleteInstanceAttr(*target, e.name);
                else vm_.delAttr(*target, e.name);
                break;
            case SideEffect::Kind::DictSet:
            case SideEffect::Kind::DictDelete:
                if (!target->is(vm::Kind::Dict)) vm::raise("RuntimeError", "torch.compile: dict " + e.target->str() + " is gone");
                if (e.kind == SideEffect::Kind::DictSet) target->as<vm::DictObject>().set(e.key, std::move(values[i]));
                else target->as<vm::DictObject>().erase(e.key);
                break;
            case SideEffect::Kind::SetGlobal:
            case SideEffect::Kind::SetMethod: break;
        }
    }
}

namespace {

/// Dynamo's has_tensor_in_frame: a global module torch or torch.* among the names the code reads, or a tensor or
/// nn.Module (a class of one too) among its locals (a resumed frame's stack values and cells included), inside
/// plain lists, tuples and dicts; anything else counts as holding none.
bool hasTensorInFrame(vm::Interpreter& vm, const vm::Frame& frame) {
    // A frame of torch's own Python (the torch.optim.optimizer entry compiled for opt.step) stands for PyTorch code,
    // which reads the torch module.
    if (auto name = frame.globals->find("__name__"); name != frame.globals->end() && name->second.is(vm::Kind::Str) &&
                                                      name->second.str().rfind("torch.", 0) == 0)
        return true;
    for (const std::string& name : frame.code->names) {
        auto it = frame.globals->find(name);
        if (it == frame.globals->end() || !it->second.is(vm::Kind::Module)) continue;
        const std::string& module = it->second.as<vm::ModuleObject>().name;
        if (module == "torch" || module.rfind("torch.", 0) == 0) return true;
    }
    const auto& moduleClass = *vm.builtinClass("Module");
    std::vector<const vm::Object*> seen;
    std::function<bool(const vm::Value&)> holds = [&](const vm::Value& v) -> bool {
        switch (v.kind()) {
            case vm::Kind::Tensor: return true;
            case vm::Kind::Instance: return v.as<vm::InstanceObject>().cls->isSubclassOf(moduleClass);
            case vm::Kind::Class: return v.as<vm::ClassObject>().isSubclassOf(moduleClass);
            case vm::Kind::List:
            case vm::Kind::Tuple:
            case vm::Kind::Dict: {
                if (std::find(seen.begin(), seen.end(), v.object().get()) != seen.end()) return false;
                seen.push_back(v.object().get());
                if (v.is(vm::Kind::Dict)) {
                    for (const auto& [key, item] : v.as<vm::DictObject>().entries())
                        if (holds(item)) return true;
                    return false;
                }
                const vm::ValueList& items = v.is(vm::Kind::List) ? v.as<vm::ListObject>().items : v.as<vm::TupleObject>().items;
                return std::any_of(items.begin(), items.end(), holds);
            }
            default: return false;
        }
    };
    if (std::any_of(frame.fast.begin(), frame.fast.end(), holds) || std::any_of(frame.stack.begin(), frame.stack.end(), holds)) return true;
    return std::any_of(frame.cells.begin(), frame.cells.end(), [&](const auto& cell) { return cell->value && holds(*cell->value); });
}

}  // namespace

vm::Value CaptureEngine::evalSkippedFrame(vm::Frame& frame, const vm::CompileOptions& options) {
    // Dynamo's callback stays installed while a skipped frame runs: every function it calls is a frame of its own.
    const vm::CompileOptions* outer = vm_.hookEveryCall();
    vm_.setHookEveryCall(&options);
    struct Restore {
        vm::Interpreter& vm;
        const vm::CompileOptions* options;
        ~Restore() { vm.setHookEveryCall(options); }
    } restore{vm_, outer};
    return vm_.evalFrame(frame);
}

vm::Value CaptureEngine::runCompiled(vm::Frame& frame, const vm::CompileOptions& options, bool ownCode) {
    const uint32_t firstPc = frame.pc;
    int breakLine = 0;  // the line of the last graph break: resume functions are named after it
    for (;;) {
        CacheKey key{frame.code.get(), frame.pc};
        auto& slot = caches_[key];
        if (!slot) {
            slot = std::make_unique<FrameCache>();
            keptCode_.push_back(frame.code);
            slot->functionName = frame.pc == 0 ? frame.code->name : fmt::format("torch_dynamo_resume_in_{}_at_{}", frame.code->name, breakLine);
            slot->firstLine = frame.pc == 0 ? frame.code->firstLine : breakLine;
        }
        FrameCache& cache = *slot;
        // Guards read locals by slot; a resumed frame's stack values follow the locals (___stack0, ...).
        // Closure cells follow the stack, so that guards and graph inputs read free variables like locals.
        vm::ValueList joined;
        const vm::ValueList* view = &frame.fast;
        if (!frame.stack.empty() || !frame.cells.empty()) {
            joined = frame.fast;
            joined.insert(joined.end(), frame.stack.begin(), frame.stack.end());
            for (const auto& cell : frame.cells) joined.push_back(cell->value ? *cell->value : vm::Value::null());
            view = &joined;
        }
        CacheEntry* hit = nullptr;
        // Dynamo checks the most recent entry first. The hit's guards leave what they read in `values`, where the
        // graph's inputs are read from too.
        const tensor::AutocastStates autocast = tensor::autocastStates();
        const bool gradEnabled = tensor::autograd::isGradEnabled();
        std::optional<SourceValues> values;
        for (auto it = cache.entries.rbegin(); it != cache.entries.rend() && !hit; ++it) {
            if (!fx::sameBackend(it->compiledWith, options) || it->autocast != autocast || it->gradEnabled != gradEnabled) continue;
            values.emplace(it->guards, vm_, *view, *frame.globals);
            if (it->guards.check(*values)) hit = &*it;
        }
        if (!hit) {
            values.reset();  // (a compile adds an entry, which may move the others)
            if (cache.skipped) return evalSkippedFrame(frame, options);
            // Dynamo's convert_frame runs a frame with no tensor in it eagerly, with no compile and no count; the
            // functions it calls are still frames of their own (a manager's __enter__ that touches no tensor, say).
            // The compiled function's own frame compiles all the same (always_optimize_code_objects; real torch
            // 2.11 recompiles test_truth's int-only calls and a call whose only tensors sit in a partial's keywords);
            // its resumed pieces are resume functions of their own, which do not.
            const bool alwaysOptimized = options.fullgraph || (ownCode && frame.pc == firstPc && firstPc == 0);
            if (!alwaysOptimized && !hasTensorInFrame(vm_, frame)) return evalSkippedFrame(frame, options);
            if (cache.limitHit) return vm_.evalFrame(frame);
            if (!cache.entries.empty() && stance_ == "eager_on_recompile") return vm_.evalFrame(frame);
            hit = compileEntry(cache, frame, *view, options);
            if (!hit) return cache.skipped ? evalSkippedFrame(frame, options) : vm_.evalFrame(frame);
        }
        vm::ValueList outputs;
        if (hit->graph) {
            vm::ValueList inputs;
            for (size_t i = 0; i < hit->inputs.size(); ++i) {
                const InputBinding& binding = hit->inputs[i];
                std::optional<vm::Value> v = values ? values->at(hit->inputAccessors.at(i)) : readSource(vm_, *binding.source, *view, *frame.globals);
                if (!v) vm::raise("RuntimeError", "torch.compile: graph input " + binding.source->str() + " is gone");
                inputs.push_back(binding.dimension >= 0 ? vm::Value(v->tensor().size(binding.dimension)) : *v);
            }
            outputs = hit->compiled(vm_, inputs);
        }
        rebuiltLists_.clear();
        // The frame's cells as the trace left them (written once everything is rebuilt: a rebuild may read them).
        auto rebuildFrameCells = [&] {
            std::vector<std::pair<uint32_t, vm::Value>> cells;
            for (const auto& [index, recipe] : hit->cells) cells.emplace_back(index, rebuild(recipe, outputs, *view, *frame.globals));
            return cells;
        };
        // Values read back from sources are the frame's own (read before the side effects change anything), then
        // the side effects are replayed on the real objects, as Dynamo's SideEffects codegen does after the graph.
        if (hit->returned) {
            rebuildCells_ = &frame.cells;
            vm::Value value = rebuild(hit->returnValue, outputs, *view, *frame.globals);
            std::vector<std::pair<uint32_t, vm::Value>> cells = rebuildFrameCells();
            replaySideEffects(*hit, outputs, *view, *frame.globals);
            rebuildCells_ = nullptr;
            // A returned closure over the frame's cells sees what the frame left in them.
            for (auto& [index, cellValue] : cells) frame.cells.at(index)->value = std::move(cellValue);
            return value;
        }
        // A graph break: rebuild the live locals, the stack and the frame's cells, run the breaking instruction in
        // the VM, then continue at the resume point after it (its own cache, its own frame id).
        rebuildCells_ = &frame.cells;
        vm::ValueList fast(frame.fast.size(), vm::Value::null());
        for (const auto& [index, recipe] : hit->locals) fast[index] = rebuild(recipe, outputs, *view, *frame.globals);
        vm::ValueList stack;
        for (const Rebuild& recipe : hit->stack) stack.push_back(rebuild(recipe, outputs, *view, *frame.globals));
        std::vector<std::pair<uint32_t, vm::Value>> cells = rebuildFrameCells();
        replaySideEffects(*hit, outputs, *view, *frame.globals);
        rebuildCells_ = nullptr;
        for (auto& [index, value] : cells) frame.cells.at(index)->value = std::move(value);
        frame.fast = std::move(fast);
        frame.stack = std::move(stack);
        frame.pc = hit->breakPc;
        // A break Dynamo cannot resume from: the rest of the frame runs eagerly from the checkpoint the graph ends at.
        if (hit->graphBreak && hit->graphBreak->atCheckpoint) return evalSkippedFrame(frame, options);
        breakLine = frame.code->lineTable.lineOf(hit->breakPc);
        // Functions the breaking instruction calls are compiled as frames of their own (with these options).
        vm_.setHookEveryCall(&options);
        vm::Value result;
        try {
            result = vm_.stepFrame(frame);
        } catch (...) {
            vm_.setHookEveryCall(nullptr);
            throw;
        }
        vm_.setHookEveryCall(nullptr);
        if (!result.isNull()) return result;
        if (stance_ == "force_eager") return vm_.evalFrame(frame);
    }
}

}  // namespace eng::capture
