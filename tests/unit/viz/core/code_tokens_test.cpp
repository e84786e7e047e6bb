// The code view's highlighter: token kinds per language, state carried across lines, and search.
#include "core/code_tokens.h"

#include <gtest/gtest.h>

namespace viz {
namespace {

std::string kinds(std::string_view line, CodeLanguage language, LineState& state) {
    std::string out;
    for (const Token& token : tokenizeLine(line, language, state)) {
        static const char* kNames[] = {"plain", "kw", "type", "builtin", "num", "str", "comment", "pre", "deco", "var"};
        out += std::string(kNames[static_cast<int>(token.kind)]) + "(" +
               std::string(line.substr(token.begin, token.length)) + ") ";
    }
    return out;
}

TEST(CodeTokens, PythonKeywordsStringsNumbersCommentsAndDecorators) {
    LineState state;
    EXPECT_EQ(kinds("@triton.jit", CodeLanguage::Python, state), "deco(@triton.jit) ");
    EXPECT_EQ(kinds("def f(x, y=1.5e-3):  # note", CodeLanguage::Python, state),
              "kw(def) num(1.5e-3) comment(# note) ");
    EXPECT_EQ(kinds("    tmp0 = tl.load(in_ptr0 + (x0), xmask)", CodeLanguage::Python, state),
              "builtin(tl) builtin(load) ");
    EXPECT_EQ(kinds("s = r'a#b' + \"c\"", CodeLanguage::Python, state), "str('a#b') str(\"c\") ");
}

TEST(CodeTokens, PythonTripleQuotedStringsSpanLines) {
    LineState state;
    EXPECT_EQ(kinds("k = async_compile.triton('k', '''", CodeLanguage::Python, state),
              "builtin(async_compile) str('k') str(''') ");
    EXPECT_EQ(state.open, LineState::Open::TripleSingle);
    EXPECT_EQ(kinds("import triton  # inside", CodeLanguage::Python, state), "str(import triton  # inside) ");
    EXPECT_EQ(kinds("''', device_str='cpu')", CodeLanguage::Python, state), "str(''') str('cpu') ");
    EXPECT_EQ(state.open, LineState::Open::Nothing);
}

TEST(CodeTokens, CppPreprocessorTypesAndBlockComments) {
    LineState state;
    EXPECT_EQ(kinds("#include \"/tmp/x/cpp_prefix.h\"", CodeLanguage::Cpp, state),
              "pre(#include \"/tmp/x/cpp_prefix.h\") ");
    EXPECT_EQ(kinds("extern \"C\" void kernel(const float* in_ptr0) /* start", CodeLanguage::Cpp, state),
              "kw(extern) str(\"C\") type(void) kw(const) type(float) comment(/* start) ");
    EXPECT_EQ(state.open, LineState::Open::BlockComment);
    EXPECT_EQ(kinds("end */ int64_t x0 = 16L;", CodeLanguage::Cpp, state),
              "comment(end */) type(int64_t) num(16L) ");
    EXPECT_EQ(kinds("__global__ void k() { int i = threadIdx.x; }", CodeLanguage::Cpp, state),
              "kw(__global__) type(void) type(int) builtin(threadIdx) ");
}

TEST(CodeTokens, LlvmIrValuesTypesAndMetadata) {
    LineState state;
    EXPECT_EQ(kinds("define void @vadd(ptr %a, i32 %n) #0 {", CodeLanguage::LlvmIr, state),
              "kw(define) type(void) var(@vadd) type(ptr) var(%a) type(i32) var(%n) pre(#0) ");
    EXPECT_EQ(kinds("  %3 = fadd float %1, -2.5 ; sum", CodeLanguage::LlvmIr, state),
              "var(%3) kw(fadd) type(float) var(%1) num(-2.5) comment(; sum) ");
    EXPECT_EQ(kinds("!0 = !{i32 1}", CodeLanguage::LlvmIr, state), "pre(!0) pre(!) type(i32) num(1) ");
}

TEST(CodeTokens, LanguageNamesFromTheStore) {
    EXPECT_EQ(codeLanguageFromName("triton"), CodeLanguage::Python);
    EXPECT_EQ(codeLanguageFromName("python"), CodeLanguage::Python);
    EXPECT_EQ(codeLanguageFromName("CUDA"), CodeLanguage::Cpp);
    EXPECT_EQ(codeLanguageFromName("cpp"), CodeLanguage::Cpp);
    EXPECT_EQ(codeLanguageFromName("llvm_ir"), CodeLanguage::LlvmIr);
    EXPECT_EQ(codeLanguageFromName("ptx"), CodeLanguage::Plain);
}

TEST(CodeTokens, HighlightedCodeSplitsLinesAndSearchFindsEveryMatch) {
    HighlightedCode code("def f():\n    return F(1)\r\n\n# f again\n", CodeLanguage::Python);
    ASSERT_EQ(code.lineCount(), 4u);
    EXPECT_EQ(code.line(1), "    return F(1)");
    EXPECT_EQ(code.line(2), "");
    EXPECT_EQ(code.tokens(3).front().kind, TokenKind::Comment);
    auto matches = findMatches(code, "f");
    ASSERT_EQ(matches.size(), 4u);  // "def" has one, "f()" one, "F(" one, "# f" one
    EXPECT_EQ(matches[0].line, 0u);
    EXPECT_EQ(matches[0].column, 2u);
    EXPECT_EQ(matches[2].line, 1u);
    EXPECT_EQ(matches[3].line, 3u);
    EXPECT_TRUE(findMatches(code, "").empty());
}

}  // namespace
}  // namespace viz
