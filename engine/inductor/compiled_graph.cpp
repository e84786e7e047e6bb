// Running a compiled graph: read the symbols off the inputs, check the inputs' layouts against what the kernels
// were generated for, allocate the stored buffers, run kernels and extern calls in order (freeing buffers after
// their last reader), write in-place results back into inputs and assemble the outputs; or replay a CUDA graph.
#include "inductor/compiled_graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "cuda/cuda_graph.h"
#include "cuda/driver.h"
#include "fx/torch_logs.h"
#include "inductor/step_profile.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"

namespace eng::inductor {

namespace {

/// cudagraph_trees numbers the functions it wraps and the graphs it records, process-wide.
int nextCudaGraphFunctionId() {
    static int next = 0;
    return next++;
}

int nextCudaGraphRecordingId() {
    static int next = 0;
    return next++;
}

std::vector<int64_t> evaluateAll(const std::vector<Index>& sizes, const SymbolValues& symbols) {
    std::vector<int64_t> out;
    for (const Index& s : sizes) out.push_back(evaluate(s, {}, symbols));
    return out;
}

const tensor::Tensor& tensorOf(const vm::Value& v, const std::string& what) {
    if (!v.is(vm::Kind::Tensor)) throw std::runtime_error(what + " is not a tensor");
    return v.as<vm::TensorObject>().value;
}

}  // namespace

CompiledGraph::CompiledGraph(LoweredGraph graph, Schedule schedule, std::unique_ptr<KernelLauncher> launcher)
    : graph_(std::move(graph)), schedule_(std::move(schedule)), launcher_(std::move(launcher)) {
    lastUse_.assign(graph_.buffers.size(), -1);
    kernelArgument_.assign(graph_.buffers.size(), false);
    for (const ScheduledKernel& k : schedule_.kernels)
        for (int id : k.bufferIds) kernelArgument_[static_cast<size_t>(id)] = true;
    for (size_t step = 0; step < schedule_.steps.size(); ++step) {
        const ScheduleStep& s = schedule_.steps[step];
        std::vector<int> reads;
        if (s.kind == ScheduleStep::Kind::Kernel) reads = schedule_.kernels[static_cast<size_t>(s.index)].bufferIds;
        else reads = graph_.buffers[static_cast<size_t>(s.index)].extern_.inputBuffers;
        for (int id : reads) lastUse_[static_cast<size_t>(id)] = static_cast<int>(step);
    }
    // Outputs and write-backs live to the end.
    for (const GraphOutput& out : graph_.outputs)
        if (out.kind == GraphOutput::Kind::Buffer) lastUse_[static_cast<size_t>(out.buffer)] = -1;
    for (const GraphBuffer& b : graph_.buffers)
        if (b.mutatesInput >= 0) lastUse_[static_cast<size_t>(b.id)] = -1;
    freeAfter_.assign(schedule_.steps.size(), {});
    for (size_t id = 0; id < lastUse_.size(); ++id)
        if (lastUse_[id] >= 0 && graph_.buffers[id].kind != BufferKind::Input) freeAfter_[static_cast<size_t>(lastUse_[id])].push_back(static_cast<int>(id));
    allocateBefore_.assign(schedule_.steps.size(), {});
    std::vector<bool> placed(graph_.buffers.size(), false);
    for (size_t step = 0; step < schedule_.steps.size(); ++step) {
        const ScheduleStep& s = schedule_.steps[step];
        if (s.kind != ScheduleStep::Kind::Kernel) continue;
        for (int id : schedule_.kernels[static_cast<size_t>(s.index)].bufferIds) {
            const GraphBuffer& b = graph_.buffers[static_cast<size_t>(id)];
            if (placed[static_cast<size_t>(id)] || !(b.kind == BufferKind::Pointwise || b.kind == BufferKind::Reduction) || !schedule_.stored[static_cast<size_t>(id)])
                continue;
            placed[static_cast<size_t>(id)] = true;
            allocateBefore_[step].push_back(id);
        }
    }
    for (const GraphBuffer& b : graph_.buffers)
        if ((b.kind == BufferKind::Pointwise || b.kind == BufferKind::Reduction) && schedule_.stored[static_cast<size_t>(b.id)] && !placed[static_cast<size_t>(b.id)])
            startAllocations_.push_back(b.id);
    evaluatedLayout_.assign(graph_.buffers.size(), false);
    for (const GraphBuffer& b : graph_.buffers)
        evaluatedLayout_[static_cast<size_t>(b.id)] =
            b.kind == BufferKind::Input || b.kind == BufferKind::Extern || schedule_.stored[static_cast<size_t>(b.id)];
}

std::shared_ptr<const CompiledGraph::Layouts> CompiledGraph::layoutsFor(const SymbolValues& symbols) {
    if (layouts_ && layouts_->symbols == symbols) return layouts_;
    auto layouts = std::make_shared<Layouts>();
    layouts->symbols = symbols;
    layouts->sizes.resize(graph_.buffers.size());
    layouts->strides.resize(graph_.buffers.size());
    for (const GraphBuffer& b : graph_.buffers) {
        if (!evaluatedLayout_[static_cast<size_t>(b.id)]) continue;
        layouts->sizes[static_cast<size_t>(b.id)] = evaluateAll(b.sizes, symbols);
        layouts->strides[static_cast<size_t>(b.id)] = evaluateAll(b.strides, symbols);
    }
    layouts_ = std::move(layouts);
    return layouts_;
}

SymbolValues CompiledGraph::symbolValues(const vm::ValueList& inputs) const {
    SymbolValues symbols;
    for (const SymbolSource& source : graph_.symbols) {
        const vm::Value& v = inputs.at(static_cast<size_t>(source.input));
        symbols[source.name] = source.dim < 0 ? v.asInt() : tensorOf(v, "input").sizes().at(static_cast<size_t>(source.dim));
    }
    return symbols;
}

std::vector<tensor::Tensor> CompiledGraph::bindInputs(const vm::ValueList& inputs, const Layouts& layouts) const {
    std::vector<tensor::Tensor> tensors(graph_.buffers.size());
    for (const GraphBuffer& b : graph_.buffers) {
        if (b.kind != BufferKind::Input) continue;
        tensor::Tensor t = tensorOf(inputs.at(static_cast<size_t>(b.inputIndex)), b.name);
        const std::vector<int64_t>& strides = layouts.strides[static_cast<size_t>(b.id)];
        if (t.sizes() != layouts.sizes[static_cast<size_t>(b.id)] || t.dtype() != b.dtype)
            throw std::runtime_error(fmt::format("input {} does not match the compiled graph", b.name));
        // Guards keep layouts stable; a size-1 dimension's stride may still differ, which the kernels never use.
        bool sameLayout = true;
        for (size_t d = 0; d < strides.size(); ++d) sameLayout = sameLayout && (t.sizes()[d] == 1 || t.strides()[d] == strides[d]);
        if (!sameLayout) t = tensor::contiguous(t);  // write-backs still go to the caller's tensor
        // A 0-d cpu tensor may join a cuda graph (lowering admits it, as PyTorch does); kernels read it on the device.
        if (t.device() != graph_.device && kernelArgument_[static_cast<size_t>(b.id)]) t = tensor::to(t, std::nullopt, graph_.device);
        tensors[static_cast<size_t>(b.id)] = t;
    }
    return tensors;
}

void CompiledGraph::launchKernel(size_t index, const std::vector<tensor::Tensor>& tensors, const SymbolValues& symbols) {
    std::vector<void*> addresses;
    for (int id : schedule_.kernels[index].bufferIds) addresses.push_back(tensors[static_cast<size_t>(id)].data());
    launcher_->launch(index, addresses, symbols);
}

vm::ValueList CompiledGraph::outputsOf(const std::vector<tensor::Tensor>& tensors, const vm::ValueList& inputs,
                                       const SymbolValues& symbols) const {
    vm::ValueList outputs;
    for (const GraphOutput& out : graph_.outputs) {
        switch (out.kind) {
            case GraphOutput::Kind::Buffer: {
                const GraphBuffer& b = graph_.buffers[static_cast<size_t>(out.buffer)];
                if (b.kind == BufferKind::Input) {
                    outputs.push_back(inputs.at(static_cast<size_t>(b.inputIndex)));
                } else {
                    const tensor::Tensor& t = tensors[static_cast<size_t>(out.buffer)];
                    outputs.push_back(vm::makeTensor(out.view ? t.asStrided(out.view->sizes, out.view->strides, t.storageOffset() + out.view->offset) : t));
                }
                break;
            }
            case GraphOutput::Kind::Number: outputs.push_back(out.number); break;
            case GraphOutput::Kind::Symbol: outputs.push_back(vm::Value(evaluate(out.symbolic, {}, symbols))); break;
            case GraphOutput::Kind::None: outputs.push_back(vm::Value()); break;
        }
    }
    return outputs;
}

struct CompiledGraph::Recording {
    // Declared first so that it goes last: the graph and the tensors release their blocks into it before it hands
    // them to the shared cache.
    std::unique_ptr<eng::cuda::MemoryPool> pool;
    std::vector<tensor::Tensor> tensors;  // fixed addresses the graph was recorded with (extern outputs included)
    std::unique_ptr<eng::cuda::CapturedGraph> graph;
};

tensor::Tensor CompiledGraph::runExtern(vm::Interpreter& vm, int buffer, const std::vector<tensor::Tensor>& tensors,
                                        const SymbolValues& symbols, const Layouts& layouts) {
    const GraphBuffer& b = graph_.buffers[static_cast<size_t>(buffer)];
    vm::ValueList args;
    for (size_t i = 0; i < b.extern_.inputBuffers.size(); ++i) {
        const tensor::Tensor& t = tensors[static_cast<size_t>(b.extern_.inputBuffers[i])];
        const std::optional<ExternView>& view = b.extern_.inputViews[i];
        args.push_back(vm::makeTensor(view ? t.asStrided(view->sizes, view->strides, t.storageOffset() + view->offset) : t));
    }
    vm::Value result;
    if (b.extern_.resultItem > 0) {
        // An item of an earlier call's several results (that call ran first: it is this buffer's input).
        auto item = otherResults_.find({b.extern_.inputBuffers.at(0), b.extern_.resultItem});
        if (item == otherResults_.end()) throw std::runtime_error(fmt::format("extern kernel {} ({}): its call returned no item {}", b.extern_.op, b.name, b.extern_.resultItem));
        result = std::move(item->second);
        otherResults_.erase(item);
        args.clear();  // (it aliases no input: the call's result is a tuple, not a tensor)
    } else {
        result = b.extern_.call(vm, args, symbols);
        if (result.is(vm::Kind::Tuple) && !result.as<vm::TupleObject>().items.empty()) {
            const vm::ValueList& items = result.as<vm::TupleObject>().items;
            for (size_t i = 1; i < items.size(); ++i) otherResults_[{buffer, static_cast<int>(i)}] = items[i];
            result = vm::Value(items[0]);
        }
    }
    tensor::Tensor t = tensorOf(result, b.name);
    const std::vector<int64_t>& expected = layouts.sizes[static_cast<size_t>(buffer)];
    if (t.sizes() != expected)
        throw ExternResultMismatch(fmt::format("extern kernel {} ({}) returned sizes [{}] where the compiled graph expects [{}]", b.extern_.op,
                                               b.name, fmt::join(t.sizes(), ", "), fmt::join(expected, ", ")));
    if (t.dtype() != b.dtype)
        throw ExternResultMismatch(fmt::format("extern kernel {} ({}) returned dtype {} where the compiled graph expects {}", b.extern_.op, b.name,
                                               tensor::dtypeName(t.dtype()), tensor::dtypeName(b.dtype)));
    if (t.device() != graph_.device && kernelArgument_[static_cast<size_t>(buffer)]) {
        // A kernel would read another device's memory: a 0-d result joins the kernels' device as a 0-d input does
        // (eager ops take a cpu scalar tensor alongside cuda tensors); anything larger the compiled code cannot use.
        if (t.dim() > 0)
            throw ExternResultMismatch(fmt::format("extern kernel {} ({}) returned a tensor on {} where the compiled graph's kernels run on {}",
                                                   b.extern_.op, b.name, t.device().str(), graph_.device.str()));
        t = tensor::to(t, std::nullopt, graph_.device);
    }
    // A result that aliases an input (a fallback view op) gets memory of its own: the input's buffer may be
    // reused once its last reader ran.
    bool aliases = false;
    for (const vm::Value& arg : args) aliases = aliases || t.sharesStorageWith(arg.as<vm::TensorObject>().value);
    return t.isContiguous() && !aliases ? t : tensor::clone(t);
}

std::optional<vm::ValueList> CompiledGraph::replay(vm::Interpreter& vm, const vm::ValueList& inputs, const SymbolValues& symbols,
                                                  const Layouts& layouts) {
    std::vector<tensor::Tensor> bound = bindInputs(inputs, layouts);
    std::vector<int64_t> key;
    for (const auto& [name, value] : symbols) key.push_back(value);
    for (const GraphBuffer& b : graph_.buffers)
        if (b.kind == BufferKind::Input && b.isParameter) key.push_back(reinterpret_cast<int64_t>(bound[static_cast<size_t>(b.id)].data()));
    std::shared_ptr<Recording>& recording = recordings_[key];
    if (!recording) {
        fx::logArtifact("cudagraphs", fmt::format("Recording function {} of graph recording id {}", cudaGraphFunctionId_, nextCudaGraphRecordingId()));
        auto fresh = std::make_shared<Recording>();
        fresh->tensors.resize(graph_.buffers.size());
        for (const GraphBuffer& b : graph_.buffers) {
            tensor::Tensor& slot = fresh->tensors[static_cast<size_t>(b.id)];
            const size_t id = static_cast<size_t>(b.id);
            if (b.kind == BufferKind::Input)
                slot = b.isParameter ? bound[id] : tensor::emptyStrided(layouts.sizes[id], layouts.strides[id], b.dtype, graph_.device);
            else if (b.kind != BufferKind::Extern && schedule_.stored[id])
                slot = allocateStored(id, layouts);
        }
        auto& device = eng::cuda::DeviceContext::get(graph_.device.index());
        launcher_->awaitOptimised();  // a recording replays the kernels it saw: never the quick tier's
        fresh->pool = std::make_unique<eng::cuda::MemoryPool>(device);
        try {
            // Extern outputs (and their temporaries) come from the pool; every tensor stays in the recording, so
            // no block the graph writes is ever handed to anyone else while it can replay.
            fresh->graph = eng::cuda::CapturedGraph::capture(device, [&] {
                for (const ScheduleStep& s : schedule_.steps) {
                    if (s.kind == ScheduleStep::Kind::Kernel) launchKernel(static_cast<size_t>(s.index), fresh->tensors, symbols);
                    else fresh->tensors[static_cast<size_t>(s.index)] = runExtern(vm, s.index, fresh->tensors, symbols, layouts);
                }
            }, fresh->pool.get());
        } catch (const eng::cuda::CudaError& error) {
            // An extern that synchronises or copies to the host cannot be captured: run plainly from now on.
            recordings_.erase(key);
            cudaGraphs_ = false;
            cudaGraphFailure_ = error.what();
            if (runNote_) {
                const std::string firstLine = cudaGraphFailure_.substr(0, cudaGraphFailure_.find('\n'));
                runNote_("skipping cudagraphs due to " + firstLine + " (recording failed on the second call; this graph runs without CUDA graphs)");
            }
            return std::nullopt;
        }
        recording = fresh;
    }
    // The static inputs take this call's values (a capture only records; the replay computes).
    for (const GraphBuffer& b : graph_.buffers)
        if (b.kind == BufferKind::Input && !b.isParameter)
            vm::callOp("Tensor.copy_", {vm::makeTensor(recording->tensors[static_cast<size_t>(b.id)]), vm::makeTensor(bound[static_cast<size_t>(b.id)])});
    recording->graph->replay();
    return outputsOf(recording->tensors, inputs, symbols);
}

void CompiledGraph::enableCudaGraphs() {
    cudaGraphs_ = true;
    cudaGraphFunctionId_ = nextCudaGraphFunctionId();
}

void CompiledGraph::fallBackToEager(const std::string& reason) {
    eagerFallback_ = reason;
    if (runNote_) runNote_("cwb inductor: this graph runs on the eager runtime from now on: " + reason);
}

vm::ValueList CompiledGraph::run(vm::Interpreter& vm, const vm::ValueList& inputs) {
    if (inputs.size() != static_cast<size_t>(graph_.inputCount))
        throw std::runtime_error(fmt::format("compiled graph takes {} inputs, got {}", graph_.inputCount, inputs.size()));
    const SymbolValues symbols = symbolValues(inputs);
    const std::shared_ptr<const Layouts> layouts = layoutsFor(symbols);
    // The first call runs plainly (it loads modules, autotunes and creates library handles, which a recording
    // must not do).
    if (cudaGraphs_ && calls_++ > 0)
        if (auto outputs = replay(vm, inputs, symbols, *layouts)) return *outputs;
    // cudagraph_trees' words: the first call is the warmup, the second records.
    if (cudaGraphs_ && calls_ == 1) fx::logArtifact("cudagraphs", fmt::format("Running warmup of function {}", cudaGraphFunctionId_));
    vm::ValueList outputs = runPlain(vm, inputs, symbols, *layouts);
    if (!tuningLabel_.empty()) {
        // Tuning times its candidates on the first launch, after the trace recorded the kernels.
        if (runNote_)
            for (size_t i = 0; i < schedule_.kernels.size(); ++i)
                runNote_(fmt::format("{}: {} {}", tuningLabel_, schedule_.kernels[i].kernel.name, launcher_->artifact(i, symbols).launchConfig));
        tuningLabel_.clear();
    }
    return outputs;
}

std::string CompiledGraph::stepLabel(const ScheduleStep& step, const std::vector<tensor::Tensor>& tensors, const SymbolValues& symbols) const {
    // A kernel by its name and the largest buffer it touches (bound now); an extern by its op and result.
    auto shape = [](tensor::DType dtype, const auto& sizes) { return fmt::format("{}[{}]", tensor::dtypeName(dtype), fmt::join(sizes, ", ")); };
    if (step.kind != ScheduleStep::Kind::Kernel) {
        const GraphBuffer& b = graph_.buffers[static_cast<size_t>(step.index)];
        return fmt::format("extern {} {}", b.extern_.op, shape(b.dtype, evaluateAll(b.sizes, symbols)));
    }
    const ScheduledKernel& kernel = schedule_.kernels[static_cast<size_t>(step.index)];
    const tensor::Tensor* largest = nullptr;
    for (int id : kernel.bufferIds) {
        const tensor::Tensor& t = tensors[static_cast<size_t>(id)];
        if (t.defined() && (!largest || t.numel() > largest->numel())) largest = &t;
    }
    return largest ? fmt::format("{} {}", kernel.kernel.name, shape(largest->dtype(), largest->sizes())) : kernel.kernel.name;
}

tensor::Tensor CompiledGraph::allocateStored(size_t id, const Layouts& layouts) const {
    const std::vector<int64_t>& sizes = layouts.sizes[id];
    const std::vector<int64_t>& strides = layouts.strides[id];
    const DType dtype = graph_.buffers[id].dtype;
    // Rows padded by comprehensive_padding: the storage holds the last row's padding too, and the padding is
    // zero-filled (no kernel writes it), so that a product padding k reads the rows in place with zeros after them
    // (lowering_pad_mm.cpp's padWithZeros).
    const size_t d = sizes.size();
    if (d >= 2 && strides[d - 1] == 1 && strides[d - 2] > sizes[d - 1] && sizes[d - 1] > 0) {
        std::vector<int64_t> rows = sizes, padding = sizes;
        rows.back() = strides[d - 2];
        padding.back() = strides[d - 2] - sizes[d - 1];
        const tensor::Tensor whole = tensor::emptyStrided(rows, strides, dtype, graph_.device);
        if (whole.numel() > 0) tensor::fillInPlace(whole.asStrided(padding, strides, whole.storageOffset() + sizes[d - 1]), tensor::Scalar(0.0));
        return whole.asStrided(sizes, strides, whole.storageOffset());
    }
    return tensor::emptyStrided(sizes, strides, dtype, graph_.device);
}

std::vector<bool> CompiledGraph::bindInPlaceStores(const vm::ValueList& inputs, const Layouts& layouts, std::vector<tensor::Tensor>& tensors) const {
    std::vector<bool> bound(graph_.buffers.size(), false);
    if (inPlace_.inputOf.empty()) return bound;
    // Each input's storage, counted over every tensor input: a buffer is stored into an input no other input shares.
    std::unordered_map<const void*, int> storageUses;
    bool any = false;
    for (int id : inPlace_.inputOf) any = any || id >= 0;
    if (!any) return bound;
    for (const vm::Value& v : inputs)
        if (v.is(vm::Kind::Tensor)) ++storageUses[v.as<vm::TensorObject>().value.storage().get()];
    for (size_t id = 0; id < inPlace_.inputOf.size(); ++id) {
        const int inputId = inPlace_.inputOf[id];
        if (inputId < 0) continue;
        const GraphBuffer& input = graph_.buffers[static_cast<size_t>(inputId)];
        const tensor::Tensor& caller = inputs.at(static_cast<size_t>(input.inputIndex)).as<vm::TensorObject>().value;
        const tensor::Tensor& t = tensors[static_cast<size_t>(inputId)];
        if (t.data() != caller.data() || !t.sharesStorageWith(caller) || storageUses[caller.storage().get()] != 1) continue;
        if (layouts.sizes[id] != layouts.sizes[static_cast<size_t>(inputId)] || layouts.strides[id] != t.strides()) continue;
        // Padded rows are zero-filled by allocateStored; an input's padding may hold anything.
        const std::vector<int64_t>& sizes = layouts.sizes[id];
        if (sizes.size() >= 2 && t.strides()[sizes.size() - 2] > sizes.back()) continue;
        tensors[id] = t;
        bound[id] = true;
    }
    return bound;
}

void CompiledGraph::assertFinite(const ScheduleStep& step, const std::vector<tensor::Tensor>& tensors) const {
    const bool kernel = step.kind == ScheduleStep::Kind::Kernel;
    const std::vector<int> written = kernel ? schedule_.kernels[static_cast<size_t>(step.index)].members : std::vector<int>{step.index};
    const std::string producer = kernel ? schedule_.kernels[static_cast<size_t>(step.index)].kernel.name
                                        : graph_.buffers[static_cast<size_t>(step.index)].extern_.op;
    for (int id : written) {
        const tensor::Tensor& t = tensors[static_cast<size_t>(id)];
        if (!t.defined() || !tensor::isFloating(t.dtype()) || t.numel() == 0) continue;
        for (auto [check, what] : {std::pair{tensor::UnaryOp::IsNan, "NaN"}, std::pair{tensor::UnaryOp::IsInf, "infinity"}})
            if (tensor::item(tensor::any(tensor::unary(check, t))).toBool())
                vm::raise("AssertionError", fmt::format("nan_asserts: {} (written by {}) holds {}", graph_.buffers[static_cast<size_t>(id)].name, producer, what));
    }
}

vm::ValueList CompiledGraph::runPlain(vm::Interpreter& vm, const vm::ValueList& inputs, const SymbolValues& symbols, const Layouts& layouts) {
    std::vector<tensor::Tensor> tensors = bindInputs(inputs, layouts);
    const std::vector<bool> inPlace = bindInPlaceStores(inputs, layouts, tensors);
    // CWB_ALLOCATE_UPFRONT=1: every stored buffer at the start, as before (to measure against).
    static const bool upfront = [] {
        const char* value = std::getenv("CWB_ALLOCATE_UPFRONT");
        return value != nullptr && std::string_view(value) == "1";
    }();
    auto allocate = [&](int id) {
        if (!inPlace[static_cast<size_t>(id)]) tensors[static_cast<size_t>(id)] = allocateStored(static_cast<size_t>(id), layouts);
    };
    for (int id : startAllocations_) allocate(id);
    if (upfront)
        for (const std::vector<int>& ids : allocateBefore_)
            for (int id : ids) allocate(id);
    for (size_t step = 0; step < schedule_.steps.size(); ++step) {
        const ScheduleStep& s = schedule_.steps[step];
        if (!upfront)
            for (int id : allocateBefore_[step]) allocate(id);
        {
            std::optional<StepTimer> timer;
            // A step's first run loads modules and picks library algorithms: the table holds the later runs.
            if (stepProfilingEnabled()) {
                if (profiledOnce_.empty()) profiledOnce_.assign(schedule_.steps.size(), false);
                if (profiledOnce_[step]) timer.emplace(graph_.device, stepLabel(s, tensors, symbols));
                profiledOnce_[step] = true;
            }
            if (s.kind == ScheduleStep::Kind::Kernel) launchKernel(static_cast<size_t>(s.index), tensors, symbols);
            else tensors[static_cast<size_t>(s.index)] = runExtern(vm, s.index, tensors, symbols, layouts);
            if (timer) timer->finish();
        }
        if (nanAsserts_) assertFinite(s, tensors);
        for (int id : freeAfter_[step]) tensors[static_cast<size_t>(id)] = tensor::Tensor();
    }
    for (const GraphBuffer& b : graph_.buffers)
        if (b.mutatesInput >= 0) {
            const GraphBuffer& input = graph_.buffers[static_cast<size_t>(b.mutatesInput)];
            const vm::Value& target = inputs.at(static_cast<size_t>(input.inputIndex));
            // A buffer stored in place holds the input's new value already: the copy's version bump remains.
            if (inPlace[static_cast<size_t>(b.id)]) tensor::bumpVersion(target.as<vm::TensorObject>().value);
            else vm::callOp("Tensor.copy_", {target, vm::makeTensor(tensors[static_cast<size_t>(b.id)])});
        }
    return outputsOf(tensors, inputs, symbols);
}

}  // namespace eng::inductor
