// torch.compile's wrappers enter the VM's FrameHook (or run eagerly when none is installed); the programs that
// check the rest of the torch surface by what they print are in tests/scripts/vm/torch/.
#include <gtest/gtest.h>

#include <sstream>

#include "../test_programs.h"
#include "frontend/code_object.h"
#include "script_support.h"

namespace {

/// Records every compiled frame it sees; answers with `replacement` when set.
class RecordingHook : public eng::vm::FrameHook {
public:
    std::optional<eng::vm::Value> onFrame(eng::vm::Interpreter&, eng::vm::Frame& frame,
                                          const eng::vm::CompileOptions& options) override {
        seen.push_back(frame.code->name + (options.fullgraph ? " fullgraph" : "") + " args=" + std::to_string(frame.fast.size()));
        return replacement;
    }
    std::vector<std::string> seen;
    std::optional<eng::vm::Value> replacement;
};

}  // namespace

TEST(VmTorch, CompiledFunctionsEnterTheFrameHook) {
    const std::string source = enginetest::testProgram("vm/compiled_functions_enter_the_frame_hook.py");
    std::ostringstream out;
    eng::vm::Interpreter vm(out);
    ASSERT_TRUE(vm.runScript("x.py", source).ok);
    RecordingHook hook;
    vm.setFrameHook(&hook);
    eng::vm::Value result = vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")});
    EXPECT_EQ(vm.repr(result), "[6, 4, 4, 'f', 6]");
    EXPECT_EQ(hook.seen, (std::vector<std::string>{"f fullgraph args=2", "forward args=2", "forward args=2"}));
    hook.replacement = eng::vm::Value(42);
    EXPECT_EQ(vm.repr(vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")})), "[42, 4, 42, 'f', 42]");
    // A hook may also run the frame itself through the interpreter.
    class EvaluatingHook : public eng::vm::FrameHook {
    public:
        std::optional<eng::vm::Value> onFrame(eng::vm::Interpreter& interpreter, eng::vm::Frame& frame,
                                              const eng::vm::CompileOptions&) override {
            eng::vm::Value result = interpreter.evalFrame(frame);
            return interpreter.binaryOp(0, result, eng::vm::Value(100));
        }
    } evaluating;
    vm.setFrameHook(&evaluating);
    EXPECT_EQ(vm.repr(vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")})), "[106, 4, 104, 'f', 106]");
    vm.setFrameHook(nullptr);
    EXPECT_EQ(vm.repr(vm.call(*vm.global("main"), {eng::vm::makeStr("cpu")})), "[6, 4, 4, 'f', 6]");
}
