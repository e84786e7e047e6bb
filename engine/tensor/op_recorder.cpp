// The thread's op recorder (see op_recorder.h).
#include "tensor/op_recorder.h"

namespace eng::tensor {

namespace {
thread_local OpRecorder* tActiveRecorder = nullptr;
}

OpRecorder* activeOpRecorder() { return tActiveRecorder; }

OpRecorderScope::OpRecorderScope(OpRecorder* recorder) : previous_(tActiveRecorder) { tActiveRecorder = recorder; }

OpRecorderScope::~OpRecorderScope() { tActiveRecorder = previous_; }

}  // namespace eng::tensor
