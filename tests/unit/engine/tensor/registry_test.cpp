// The op registry as the VM uses it: qualified names, positional/keyword binding with defaults, int[] varargs,
// overload selection, named tuples, properties, operators, and PyTorch-style TypeErrors.
#include <gtest/gtest.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/printing.h"
#include "tensor/registry.h"

namespace eng::tensor {
namespace {

const OpRegistry& ops() { return OpRegistry::instance(); }

Value call(std::string_view name, std::vector<Value> args, KeywordArgs kwargs = {}) { return ops().call(name, args, kwargs); }

TEST(Registry, KeywordsDefaultsAndVarargs) {
    const Value x = call("torch.arange", {Value(int64_t{6})}, {{"dtype", Value(DType::Float32)}});
    EXPECT_EQ(x.toTensor().dtype(), DType::Float32);
    const Value m = call("Tensor.view", {x, Value(2), Value(3)});  // x.view(2, 3)
    EXPECT_EQ(m.toTensor().sizes(), (Shape{2, 3}));
    EXPECT_EQ(call("Tensor.reshape", {x, Value::tuple({Value(3), Value(-1)})}).toTensor().sizes(), (Shape{3, 2}));
    const Value s = call("Tensor.sum", {m}, {{"dim", Value(-1)}, {"keepdim", Value(true)}});
    EXPECT_EQ(s.toTensor().sizes(), (Shape{2, 1}));
    EXPECT_EQ(toDoubles(s.toTensor()), (std::vector<double>{3, 12}));
    EXPECT_EQ(call("torch.sum", {m, Value::list({Value(0), Value(1)})}).toTensor().dim(), 0);
    EXPECT_EQ(call("torch.zeros", {Value(2), Value(3)}).toTensor().sizes(), (Shape{2, 3}));
}

TEST(Registry, OverloadsAndNamedTuples) {
    const Value m = call("torch.tensor", {Value::list({Value::list({Value(1.0), Value(5.0)}), Value::list({Value(7.0), Value(2.0)})})});
    const Value byDim = call("Tensor.max", {m}, {{"dim", Value(1)}});
    ASSERT_TRUE(byDim.isSequence());
    EXPECT_EQ(byDim.sequence().fieldNames, (std::vector<std::string>{"values", "indices"}));
    EXPECT_EQ(toInts(byDim.items()[1].toTensor()), (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(item(call("torch.max", {m}).toTensor()).toDouble(), 7.0);
    EXPECT_EQ(call("torch.max", {m, m}).toTensor().sizes(), (Shape{2, 2}));
    // var(dim, unbiased) selects the second overload; var(unbiased=False) the third.
    EXPECT_NEAR(item(call("Tensor.var", {m}, {{"unbiased", Value(false)}}).toTensor()).toDouble(), 5.6875, 1e-6);
    EXPECT_EQ(call("torch.add", {m, Value(1)}, {{"alpha", Value(2)}}).toTensor().dtype(), DType::Float32);
}

TEST(Registry, OperatorsPropertiesAndIndexing) {
    const Value x = call("torch.arange", {Value(int64_t{6})});
    const Value y = call("Tensor.__rsub__", {x, Value(10)});  // 10 - x
    EXPECT_EQ(toInts(y.toTensor()), (std::vector<int64_t>{10, 9, 8, 7, 6, 5}));
    EXPECT_TRUE(OpRegistry::isTensorProperty("shape"));
    EXPECT_EQ(call("Tensor.shape", {x}).repr(), "torch.Size([6])");
    EXPECT_EQ(call("Tensor.dtype", {x}).repr(), "torch.int64");
    const Value idx = Value::tuple({Value(Slice{std::nullopt, std::nullopt, Value(2).toInt()})});
    EXPECT_EQ(repr(call("Tensor.__getitem__", {x, idx}).toTensor()), "tensor([0, 2, 4])");
    call("Tensor.__setitem__", {x, Value(Slice{Value(-2).toInt(), std::nullopt, std::nullopt}), Value(0)});
    EXPECT_EQ(repr(x.toTensor()), "tensor([0, 1, 2, 3, 0, 0])");
    EXPECT_FALSE(call("Tensor.__eq__", {x, Value()}).toBool());  // x == None
    EXPECT_EQ(call("Tensor.__float__", {call("Tensor.sum", {x})}).toDouble(), 6.0);
    EXPECT_EQ(call("Tensor.tolist", {call("Tensor.view", {x, Value(2), Value(3)})}).repr(), "[[0, 1, 2], [3, 0, 0]]");
}

TEST(Registry, TypeErrorsNameTheProblem) {
    const Value x = call("torch.ones", {Value(2)});
    try {
        call("Tensor.sum", {x}, {{"dims", Value(0)}});
        FAIL();
    } catch (const TensorError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Type);
        EXPECT_STREQ(e.what(), "sum() got an unexpected keyword argument 'dims'");
    }
    try {
        call("torch.max", {x, Value("a")});
        FAIL();
    } catch (const TensorError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Type);
        EXPECT_NE(std::string(e.what()).find("received an invalid combination of arguments - got (Tensor, str)"), std::string::npos);
    }
    EXPECT_THROW(call("torch.no_such_op", {}), TensorError);
    EXPECT_THROW(call("Tensor.to", {x, Value("cuda")}), TensorError);  // cuda unavailable
    try {
        call("Tensor.to", {x, Value("cuda")});
    } catch (const TensorError& e) {
        EXPECT_NE(std::string(e.what()).find("cuda unavailable"), std::string::npos);
    }
    EXPECT_FALSE(call("torch.cuda.is_available", {}).toBool());
}

TEST(Registry, EveryRequiredNameIsRegistered) {
    for (const char* name : {"torch.sin", "Tensor.sin", "torch.nn.functional.gelu", "F.gelu", "F.softmax", "torch.softmax",
                             "Tensor.sum", "torch.matmul", "F.linear", "F.layer_norm", "Tensor.masked_fill_", "Tensor.add_",
                             "Tensor.copy_", "Tensor.zero_", "Tensor.fill_", "Tensor.__iadd__", "Tensor.__isub__", "torch.cat",
                             "torch.stack", "Tensor.split", "Tensor.chunk", "torch.triu", "torch.tril", "Tensor.item",
                             "Tensor.tolist", "Tensor.half", "Tensor.float", "torch.manual_seed", "torch.rand", "torch.randn",
                             "torch.randint", "F.scaled_dot_product_attention", "F.embedding", "F.dropout", "torch.where"})
        EXPECT_TRUE(ops().contains(name)) << name;
    EXPECT_GT(ops().names().size(), 500u);
}

}  // namespace
}  // namespace eng::tensor
