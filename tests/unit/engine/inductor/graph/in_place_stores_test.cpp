// Inputs updated by compiled graphs: the kernel stores an input's final value into the input where it computes it
// element by element (Inductor's mutated buffers, in_place_stores.h), otherwise it is written back; either way the
// input and the outputs equal eager's, with the reference interpreter, LLVM code and (on a GPU) CUDA code.
#include <gtest/gtest.h>

#include "cuda/driver.h"
#include "inductor_support.h"

namespace {

using eng::vm::Value;
using eng::vm::ValueList;

bool same(const Value& a, const Value& b) {
    if (a.is(eng::vm::Kind::None) || b.is(eng::vm::Kind::None)) return a.is(eng::vm::Kind::None) && b.is(eng::vm::Kind::None);
    return eng::vm::callOp("torch.equal", {a, b}).asInt() != 0;
}

void checkInPlaceStores(bool interpreter, const std::string& device) {
    inductortest::useInterpreter(interpreter);
    const std::string source = enginetest::testProgram("inductor/in_place_stores.py");
    inductortest::InductorRun run = inductortest::runInductor(source, "main", {eng::vm::makeStr(device)});
    ASSERT_TRUE(run.ok) << run.error;
    const ValueList& results = run.returned.as<eng::vm::ListObject>().items;
    ASSERT_EQ(results.size(), 3u);
    for (size_t i = 0; i < results.size(); ++i) {
        const ValueList& r = results[i].as<eng::vm::ListObject>().items;
        EXPECT_TRUE(same(r[0], r[1])) << "the input after compiled call " << i;
        EXPECT_TRUE(same(r[2], r[3])) << "the output of compiled call " << i;
    }
    std::vector<std::string> code;
    for (const auto& c : run.events.code)
        if (c.filename == "cwb_inductor_output_code") code.push_back(c.source);
    ASSERT_EQ(code.size(), 3u);
    EXPECT_NE(code[0].find("is stored in place into arg0_1 (its final value)"), std::string::npos) << code[0];
    EXPECT_EQ(code[0].find(".copy_("), std::string::npos) << code[0];
    EXPECT_NE(code[1].find("is written back into arg0_1: its kernel reads the input at other elements"), std::string::npos) << code[1];
    EXPECT_NE(code[1].find("arg0_1.copy_("), std::string::npos) << code[1];
    EXPECT_NE(code[2].find("is written back into arg0_1"), std::string::npos) << code[2];
}

TEST(InductorInPlaceStores, WithTheReferenceInterpreter) { checkInPlaceStores(true, "cpu"); }

TEST(InductorInPlaceStores, WithNativeCode) { checkInPlaceStores(false, "cpu"); }

TEST(InductorInPlaceStores, OnCuda) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << eng::cuda::driverStatus().reason;
    checkInPlaceStores(false, "cuda");
}

}  // namespace
