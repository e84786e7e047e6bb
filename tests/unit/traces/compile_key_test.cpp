// CompileKey: PyTorch's and tlparse's spellings of compile ids round-trip.
#include <gtest/gtest.h>

#include "model/trace_model.h"

using traces::CompileKey;
using traces::parseCompileKey;

TEST(CompileKey, FormatsLikePyTorchAndTlparse) {
    CompileKey key{std::nullopt, 0, 1, 0};
    EXPECT_EQ(key.str(), "0/1");
    EXPECT_EQ(key.display(), "[0/1]");
    key.attempt = 2;
    EXPECT_EQ(key.str(), "0/1_2");
    EXPECT_EQ(key.display(), "[0/1_2]");
    CompileKey autograd{3, 0, 0, 0};
    EXPECT_EQ(autograd.str(), "!3/0/0");
    CompileKey captureOnly{1, std::nullopt, std::nullopt, 0};
    EXPECT_EQ(captureOnly.str(), "!1");
    EXPECT_EQ(captureOnly.display(), "[!1/-/-]");
    EXPECT_EQ(CompileKey{}.display(), "[-/-]");
}

TEST(CompileKey, ParsesEveryFormPyTorchWrites) {
    auto a = parseCompileKey("0/1");
    ASSERT_TRUE(a);
    EXPECT_EQ(*a->frameId, 0);
    EXPECT_EQ(*a->frameCompileId, 1);
    EXPECT_EQ(a->attempt, 0);
    auto b = parseCompileKey("[12/3_1]");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->str(), "12/3_1");
    auto c = parseCompileKey("!0/3/0");
    ASSERT_TRUE(c);
    EXPECT_EQ(*c->autogradId, 0);
    EXPECT_EQ(*c->frameId, 3);
    auto d = parseCompileKey("!7");
    ASSERT_TRUE(d);
    EXPECT_FALSE(d->frameId);
}

TEST(CompileKey, RejectsWhatPyTorchRejects) {
    for (const char* bad : {"", "-/-", "0", "0/", "/1", "0/1_", "0/1x", "!1/2", "a/b"}) {
        EXPECT_FALSE(parseCompileKey(bad)) << bad;
    }
}
