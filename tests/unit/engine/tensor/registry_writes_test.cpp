// Which arguments an op writes, as its schema says (PyTorch's `Tensor(a!)` alias annotation, the in-place naming
// rule for self, `if FLAG` for writes a bool argument turns on): the one source that eager autograd, the capture
// engine, functionalisation and the lowering all read.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tensor/registry.h"

namespace eng::tensor {
namespace {

const Schema& schemaOf(std::string_view name) {
    const OpEntry* entry = OpRegistry::instance().find(name);
    if (!entry) throw std::runtime_error("no op " + std::string(name));
    return entry->overloads.front().schema;
}

std::vector<std::string> writtenParams(const Schema& schema) {
    std::vector<std::string> out;
    for (const Param& p : schema.params)
        if (p.written) out.push_back(p.writtenWhen.empty() ? p.name : p.name + " if " + p.writtenWhen);
    return out;
}

TEST(RegistryWrites, InPlaceVariantsWriteSelfByName) {
    EXPECT_EQ(writtenParams(schemaOf("Tensor.add_")), std::vector<std::string>{"self"});
    EXPECT_EQ(writtenParams(schemaOf("Tensor.__iadd__")), std::vector<std::string>{"self"});
    EXPECT_EQ(writtenParams(schemaOf("Tensor.__setitem__")), std::vector<std::string>{"self"});
    EXPECT_EQ(writtenParams(schemaOf("torch.relu_")), std::vector<std::string>{"self"});
    // Out of place, or a flag rather than data.
    EXPECT_TRUE(writtenParams(schemaOf("Tensor.add")).empty());
    EXPECT_TRUE(writtenParams(schemaOf("Tensor.__and__")).empty());
    EXPECT_TRUE(writtenParams(schemaOf("Tensor.requires_grad_")).empty());
}

TEST(RegistryWrites, FlagGatedWrites) {
    EXPECT_EQ(writtenParams(schemaOf("F.batch_norm")), (std::vector<std::string>{"running_mean if training", "running_var if training"}));
    EXPECT_EQ(writtenParams(schemaOf("torch.batch_norm")), (std::vector<std::string>{"running_mean if training", "running_var if training"}));
    EXPECT_EQ(writtenParams(schemaOf("F.relu")), std::vector<std::string>{"input if inplace"});
    EXPECT_EQ(writtenParams(schemaOf("F.dropout")), std::vector<std::string>{"input if inplace"});

    const Schema& relu = schemaOf("F.relu");
    const Value x = Value();
    EXPECT_TRUE(writesArgument(relu, Args({x, Value(true)}), 0));
    EXPECT_FALSE(writesArgument(relu, Args({x, Value(false)}), 0));
    EXPECT_FALSE(writesArgument(relu, Args({x, Value(true)}), 1));
}

TEST(RegistryWrites, AnnotationsStayOutOfMessages) {
    // TypeErrors print the schema as PyTorch's Python bindings do, without alias annotations.
    EXPECT_EQ(schemaOf("F.batch_norm").text.find('!'), std::string::npos);
    EXPECT_NE(schemaOf("F.batch_norm").text.find("Tensor? running_mean"), std::string::npos);
    EXPECT_TRUE(schemaOf("F.batch_norm").params[1].optional);
}

TEST(RegistryWrites, BadAnnotationsAreRefused) {
    EXPECT_THROW(parseSchema("f(Tensor(a) x)"), std::logic_error);
    EXPECT_THROW(parseSchema("f(Tensor(a! if flag) x)"), std::logic_error);  // no bool parameter `flag`
    const Schema ok = parseSchema("f(Tensor(a! if flag) x, bool flag=False)");
    EXPECT_TRUE(ok.params[0].written);
    EXPECT_EQ(ok.params[0].writtenWhen, "flag");
}

}  // namespace
}  // namespace eng::tensor
