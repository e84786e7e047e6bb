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

/// main() runs f compiled, then eagerly: [compiled, eager, whether they agree]. Inputs avoid what eager refuses
/// (integer division by zero, integers to negative powers).
std::string program(const std::string& call, const char* x, const char* y) {
    return fmt::format(R"(import operator
import torch

def f(x, y):
    return {}

def main():
    x = {}
    y = {}
    got = torch.compile(f)(x, y)
    want = f(x, y)
    if got.dtype != want.dtype:
        return [repr(got), repr(want), False]
    if want.dtype.is_floating_point:
        agree = torch.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        agree = torch.equal(got, want)
    return [repr(got), repr(want), agree]
)",
                       call, x, y);
}

struct Inputs {
    const char* what;
    const char* x;
    const char* y;
};

constexpr Inputs kFloat = {"float32", "torch.tensor([-2.5, -1.0, -0.5, 0.0, 0.25, 1.0, 2.0, 3.5])",
                           "torch.tensor([1.5, -2.0, 0.5, 2.0, -1.0, 3.0, -0.75, 2.0])"};
constexpr Inputs kInteger = {"int32", "torch.tensor([-7, -3, -1, 0, 1, 2, 5, 9], dtype=torch.int32)",
                             "torch.tensor([2, 3, 1, 5, 2, 3, 7, 4], dtype=torch.int32)"};

void checkEveryTableOp(bool interpreter) {
    inductortest::useInterpreter(interpreter);
    int compared = 0;
    for (const TableOp& op : tableOps()) {
        const ElementTyping typing = eng::inductor::elementTyping(op.op);
        for (const Inputs& inputs : {kFloat, kInteger}) {
            const bool integral = std::string_view(inputs.what) == kInteger.what;
            if (!integral && typing == ElementTyping::Integral) continue;  // bitwise ops refuse floats eagerly
            if (integral && typing == ElementTyping::Floating) continue;   // and activations refuse integers
            const std::string call = callOf(op);
            SCOPED_TRACE(fmt::format("{} on {}", call, inputs.what));
            const std::string source = program(call, inputs.x, inputs.y);
            inductortest::InductorRun run = inductortest::runInductor(source, "main", {});
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

/// torch.fmax / torch.fmin take the number where exactly one operand is NaN (torch.maximum propagates it), on
/// float tensors, with integers as maximum / minimum: compiled and eager both give torch's documented values.
void checkFmaxFminNan(bool interpreter) {
    inductortest::useInterpreter(interpreter);
    const std::string source = R"(import torch

def f(x, y, i, j):
    return [torch.fmax(x, y), torch.fmin(x, y), x.fmax(y), y.fmin(x), torch.maximum(x, y), torch.fmax(i, j), i.fmin(j)]

def main():
    nan = float('nan')
    x = torch.tensor([1.0, nan, nan, -2.0, 0.5, -0.0])
    y = torch.tensor([nan, 3.0, nan, 4.0, 0.5, 7.0])
    i = torch.tensor([-7, 3, 0, 5], dtype=torch.int32)
    j = torch.tensor([2, -3, 0, 9], dtype=torch.int32)
    got = [repr(t.tolist()) for t in torch.compile(f)(x, y, i, j)]
    want = [repr(t.tolist()) for t in f(x, y, i, j)]
    return [got, want]
)";
    inductortest::InductorRun run = inductortest::runInductor(source, "main", {});
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(inductortest::compiledGraphs(run), 1);
    const std::vector<std::string> documented = {
        "[1.0, 3.0, nan, 4.0, 0.5, 7.0]",  "[1.0, 3.0, nan, -2.0, 0.5, -0.0]", "[1.0, 3.0, nan, 4.0, 0.5, 7.0]",
        "[1.0, 3.0, nan, -2.0, 0.5, -0.0]", "[nan, nan, nan, 4.0, 0.5, 7.0]",   "[2, 3, 0, 9]",
        "[-7, -3, 0, 5]"};
    const ValueList& result = run.returned.as<eng::vm::ListObject>().items;
    for (size_t side = 0; side < 2; ++side) {
        const ValueList& lists = result[side].as<eng::vm::ListObject>().items;
        ASSERT_EQ(lists.size(), documented.size());
        for (size_t k = 0; k < documented.size(); ++k)
            EXPECT_EQ(lists[k].as<eng::vm::StrObject>().value, documented[k]) << (side == 0 ? "compiled" : "eager") << " result " << k;
    }
}

TEST(InductorElementwiseTable, FmaxFminTakeTheNumberWhereOneIsNanInterpreted) { checkFmaxFminNan(true); }

TEST(InductorElementwiseTable, FmaxFminTakeTheNumberWhereOneIsNanNative) { checkFmaxFminNan(false); }

TEST(InductorElementwiseTable, EveryOpWithTheReferenceInterpreter) { checkEveryTableOp(true); }

TEST(InductorElementwiseTable, EveryOpWithNativeCode) { checkEveryTableOp(false); }

}  // namespace
