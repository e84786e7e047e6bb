// A hook that records the runtime's own C++ op calls as calls of torch functions, so that code written against the
// C++ API (the autograd's derivative formulas) can be traced into a graph: AOT Autograd runs the eager backward
// formulas with a recorder installed, as make_fx traces PyTorch's autograd engine through proxy tensors.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/pointwise.h"
#include "tensor/value.h"

namespace eng::tensor {

using RecordedKwargs = std::vector<std::pair<std::string, Value>>;
struct RecordedCall {
    std::vector<Value> args;
    RecordedKwargs kwargs;
};

class OpRecorder {
public:
    virtual ~OpRecorder() = default;
    /// torch.<function>(*call.args, **call.kwargs) returned `result`; `function` may be dotted ("nn.functional.gelu").
    virtual void record(std::string_view function, const RecordedCall& call, const Tensor& result) = 0;
    /// Whether the recorder also wants the structural ops (views, sum, matrix products, casts: recordedStructuralOp),
    /// named as registry ops ("Tensor.reshape"). AOT Autograd's graph recorder does not (their formulas are
    /// derivative_rules.cpp's); create_graph's recorder does, as every op of a formula must carry history.
    virtual bool recordsStructuralOps() const { return false; }
    /// Whether the recorder wants dtype casts (`Tensor.to`), which formulas computing in float32 (PyTorch's opmath)
    /// call; AOT Autograd's recorder writes them as `to` nodes. A recorder of structural ops takes them too.
    virtual bool recordsCasts() const { return recordsStructuralOps(); }
};

/// This thread's recorder; null unless a tracer installed one.
OpRecorder* activeOpRecorder();

/// Installs `recorder` for a scope (null pauses recording: an op's own inner calls are not recorded again).
class OpRecorderScope {
public:
    explicit OpRecorderScope(OpRecorder* recorder);
    ~OpRecorderScope();
    OpRecorderScope(const OpRecorderScope&) = delete;
    OpRecorderScope& operator=(const OpRecorderScope&) = delete;

private:
    OpRecorder* previous_;
};

/// Whether this thread's recorder wants dtype casts (OpRecorder::recordsCasts).
inline bool castsRecorded() {
    const OpRecorder* recorder = activeOpRecorder();
    return recorder && recorder->recordsCasts();
}

/// An operand as a recorded argument.
inline Value recordedValue(const Operand& o) { return o.isTensor() ? Value(o.tensor()) : Value(o.scalar()); }

/// Runs `compute` (the op itself); with a recorder installed, records it as the one call `function(makeCall())`.
/// The recorder may throw (a call it cannot express): the exception leaves the op.
template <typename MakeCall, typename Compute>
Tensor recordedOp(std::string_view function, MakeCall&& makeCall, Compute&& compute) {
    OpRecorder* recorder = activeOpRecorder();
    if (!recorder) return compute();
    // Paused while the op runs and while the recorder works (it may run ops itself).
    OpRecorderScope pause(nullptr);
    Tensor out = compute();
    recorder->record(function, makeCall(), out);
    return out;
}

/// Whether this thread's recorder wants structural ops (views, sum, matrix products, casts), which such an op then
/// records with recordedOp under its registry name ("Tensor.reshape"); for any other recorder it runs unrecorded.
inline bool structuralOpsRecorded() {
    const OpRecorder* recorder = activeOpRecorder();
    return recorder && recorder->recordsStructuralOps();
}

/// Integers as a recorded list argument (sizes, dims).
inline Value recordedInts(const std::vector<int64_t>& ints) {
    ValueList items(ints.begin(), ints.end());
    return Value::list(std::move(items));
}

}  // namespace eng::tensor
