// Every op of the elementwise tables (ops/unary_math.def, ops/elementwise.def), by its name and every alias,
// compiled and compared with eager on float and integer tensors, with the reference interpreter and LLVM code:
// a row added to a table works compiled with nothing else written for it.
#include <map>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "inductor/ir/kernel_ir.h"
#include "ops/elementwise.h"
#include "inductor_support.h"
#include "tensor/registry.h"

namespace {

using eng::inductor::ElementOp;
using eng::inductor::ElementTyping;
using eng::vm::Value;
using eng::vm::ValueList;

struct TableOp {
    std::string name;  // a row's function or one of its aliases
    ElementOp op;
};

std::vector<TableOp> tableOps() {
    std::vector<TableOp> ops;
    for (const auto& [name, op] : eng::inductor::elementOpsByName()) ops.push_back({name, op});
    return ops;
}

/// torch's call of each row, from its `call` column.
const std::map<std::string, std::string_view>& rowCalls() {
    static const std::map<std::string, std::string_view> calls = {
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, bools, kernel, call) {#function, call},
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    };
    return calls;
}

/// The call of the op on x (and y): its row's call, else torch's function where eager has one, else the
/// `operator` module's.
std::string callOf(const TableOp& op) {
    const bool unary = eng::inductor::isUnary(op.op);
    const std::string operands = unary ? "x" : "x, y";
    if (auto row = rowCalls().find(op.name); row != rowCalls().end()) {
        const eng::ops::TorchCall call = eng::ops::torchCallOf(row->second);
        if (call.keyword.empty()) return fmt::format("torch.{}({})", call.function, operands);
        return fmt::format("torch.{}({}, {}='{}')", call.function, operands, call.keyword, call.value);
    }
    const bool torchHasIt = eng::tensor::OpRegistry::instance().contains("torch." + op.name);
    return fmt::format("{}.{}({})", torchHasIt ? "torch" : "operator", op.name, operands);
}

/// The program for one op's call (one_elementwise_op.py.in); its main(kind) returns [compiled, eager, whether they agree].
std::string program(const std::string& call) {
    return fmt::format(fmt::runtime(enginetest::testProgram("inductor/one_elementwise_op.py.in")), fmt::arg("call", call));
}

void checkEveryTableOp(bool interpreter) {
    inductortest::useInterpreter(interpreter);
    int compared = 0;
    for (const TableOp& op : tableOps()) {
        const ElementTyping typing = eng::inductor::elementTyping(op.op);
        for (const std::string kind : {"float32", "int32"}) {
            const bool integral = kind == "int32";
            if (!integral && typing == ElementTyping::Integral) continue;  // bitwise ops refuse floats eagerly
            if (integral && typing == ElementTyping::Floating) continue;   // and activations refuse integers
            const std::string call = callOf(op);
            SCOPED_TRACE(fmt::format("{} on {}", call, kind));
            const std::string source = program(call);
            inductortest::InductorRun run = inductortest::runInductor(source, "main", {eng::vm::makeStr(kind)});
            ASSERT_TRUE(run.ok) << run.error << "\n" << source;
            EXPECT_EQ(inductortest::compiledGraphs(run), 1) << "the op did not compile";
            const ValueList& result = run.returned.as<eng::vm::ListObject>().items;
            auto text = [](const Value& v) { return v.as<eng::vm::StrObject>().value; };
            EXPECT_TRUE(result[2].asInt() != 0) << "compiled: " << text(result[0]) << "\neager: " << text(result[1]);
            ++compared;
        }
    }
    EXPECT_GE(compared, 110);
}

TEST(InductorElementwiseTable, EveryOpWithTheReferenceInterpreter) { checkEveryTableOp(true); }

TEST(InductorElementwiseTable, EveryOpWithNativeCode) { checkEveryTableOp(false); }

}  // namespace
