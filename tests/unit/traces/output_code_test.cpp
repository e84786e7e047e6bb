// Tests for splitOutputCode on wrappers shaped like Inductor's Python output and AOTInductor's C++.
#include "parse/output_code.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace traces {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

std::vector<std::string> namesOf(const SplitOutputCode& code) {
    std::vector<std::string> names;
    for (const Kernel& kernel : code.kernels) names.push_back(kernel.name);
    return names;
}

constexpr std::string_view kTritonWrapper = R"PY(# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long, c_int
import torch
from torch._inductor.async_compile import AsyncCompile
import triton

async_compile = AsyncCompile()


# kernel path: /tmp/inductor/k3/ck3rw4tjj.py
# Topologically Sorted Source Nodes: [sin, cos, mul, add], Original ATen: [aten.sin, aten.cos]
triton_poi_fused_add_cos_mul_sin_0 = async_compile.triton('triton_poi_fused_add_cos_mul_sin_0', '''
import triton
import triton.language as tl

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32'}},
)
@triton.jit
def triton_poi_fused_add_cos_mul_sin_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    tmp0 = tl.load(in_ptr0 + (x0), None)  # a ')' and a " in here must not end the call
    tl.store(out_ptr0 + (x0), tmp0, None)
''', device_str='cuda')


triton_per_fused_sum_1 = async_compile.triton('triton_per_fused_sum_1', '''
@triton_heuristics.persistent_reduction(
    size_hints={'x': 8, 'r0_': 16},
)
@triton.jit
def triton_per_fused_sum_1(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    pass
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def call(self, args):
        arg0_1, = args
        args.clear()
        with torch.cuda._DeviceGuard(0):
            buf0 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
            stream0 = get_raw_stream(0)
            triton_poi_fused_add_cos_mul_sin_0.run(arg0_1, buf0, 4096, stream=stream0)
            triton_per_fused_sum_1.run(buf0, buf1, 8, 16, grid=grid(8), stream=stream0)
            triton_poi_fused_add_cos_mul_sin_0.run(buf1, buf2, 4096, stream=stream0)
        return (buf0, )
)PY";

TEST(OutputCode, TritonKernelsWithSourcesAndLaunches) {
    SplitOutputCode code = splitOutputCode(kTritonWrapper);
    EXPECT_EQ(code.language, "python");
    EXPECT_THAT(namesOf(code), ElementsAre("triton_poi_fused_add_cos_mul_sin_0", "triton_per_fused_sum_1"));
    ASSERT_EQ(code.kernels.size(), 2u);

    const Kernel& pointwise = code.kernels[0];
    EXPECT_EQ(pointwise.index, 0);
    EXPECT_EQ(pointwise.language, "triton");
    EXPECT_THAT(pointwise.source, StartsWith("\nimport triton\n"));
    EXPECT_THAT(pointwise.source, HasSubstr("def triton_poi_fused_add_cos_mul_sin_0(in_ptr0"));
    EXPECT_THAT(pointwise.source, EndsWith("    tl.store(out_ptr0 + (x0), tmp0, None)\n"));
    EXPECT_EQ(pointwise.launchConfig, "size_hints={'x': 4096}; run(arg0_1, buf0, 4096, stream=stream0)");

    const Kernel& reduction = code.kernels[1];
    EXPECT_EQ(reduction.index, 1);
    EXPECT_EQ(reduction.launchConfig, "size_hints={'x': 8, 'r0_': 16}; run(buf0, buf1, 8, 16, grid=grid(8), stream=stream0)");
    EXPECT_THAT(reduction.source, Not(HasSubstr("device_str")));
}

TEST(OutputCode, CppKernelsInRawAndPlainTripleQuotes) {
    SplitOutputCode code = splitOutputCode(R"PY(# AOT ID: ['0_inference']
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()


cpp_fused_add_cos_mul_sin_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    #pragma omp parallel num_threads(2)
    {
        // quotes like ' and " and ) inside the kernel do not end it
        out_ptr0[0] = in_ptr0[0];
    }
}
''')


cpp_fused__softmax_1 = async_compile.cpp_pybinding(['float*'], '''
extern "C"  void  kernel(float* in_out_ptr0)
{
}
''')


async_compile.wait(globals())
del async_compile

def call(args):
    cpp_fused_add_cos_mul_sin_0(arg0_1, buf0)
)PY");
    EXPECT_EQ(code.language, "python");
    EXPECT_THAT(namesOf(code), ElementsAre("cpp_fused_add_cos_mul_sin_0", "cpp_fused__softmax_1"));
    ASSERT_EQ(code.kernels.size(), 2u);
    EXPECT_EQ(code.kernels[0].language, "cpp");
    EXPECT_THAT(code.kernels[0].source, StartsWith("\n#include <torch/csrc/inductor/cpp_prefix.h>\nextern \"C\""));
    EXPECT_THAT(code.kernels[0].source, HasSubstr("out_ptr0[0] = in_ptr0[0];\n    }\n}\n"));
    EXPECT_EQ(code.kernels[1].source, "\nextern \"C\"  void  kernel(float* in_out_ptr0)\n{\n}\n");
    EXPECT_TRUE(code.kernels[0].launchConfig.empty());
}

TEST(OutputCode, OtherAsyncCompileKindsKeepTheirName) {
    SplitOutputCode code = splitOutputCode(R"PY(from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()
cuda_fused_mm_0 = async_compile.cuda(r'''
__global__ void cuda_fused_mm_0(float* a) {}
''', 'so', aot_compile=False)
triton_red_fused_0 = async_compile.multi_kernel('triton_red_fused_0', [
    triton_red_fused_0_0,
    triton_red_fused_0_1,
])
async_compile.wait(globals())
)PY");
    ASSERT_EQ(code.kernels.size(), 2u);
    EXPECT_EQ(code.kernels[0].name, "cuda_fused_mm_0");
    EXPECT_EQ(code.kernels[0].language, "cuda");
    EXPECT_EQ(code.kernels[0].source, "\n__global__ void cuda_fused_mm_0(float* a) {}\n");
    EXPECT_EQ(code.kernels[1].name, "triton_red_fused_0");
    EXPECT_EQ(code.kernels[1].language, "multi_kernel");
    EXPECT_THAT(code.kernels[1].source, StartsWith("multi_kernel('triton_red_fused_0', ["));
    EXPECT_THAT(code.kernels[1].source, HasSubstr("triton_red_fused_0_1,\n])"));
}

TEST(OutputCode, AotInductorCppFunctions) {
    SplitOutputCode code = splitOutputCode(R"CPP(#include <torch/csrc/inductor/aoti_include/cpu.h>
// Definition of AOTI runtime interface functions
extern "C" void cpp_fused_mul_0(const float* in_ptr0, float* out_ptr0);

extern "C"  void cpp_fused_mul_0(const float* in_ptr0,
                       float* out_ptr0)
{
    const char* note = "} not the end";  /* } nor this */
    // nor } this
    for (int64_t x0 = 0; x0 < 16; x0++) { out_ptr0[x0] = in_ptr0[x0] * 2.0f; }
}

extern "C" {
    int unrelated_block;
}

namespace torch::aot_inductor {
void AOTInductorModel::run_impl() {}
}
)CPP");
    EXPECT_EQ(code.language, "cpp");
    ASSERT_EQ(code.kernels.size(), 1u);
    EXPECT_EQ(code.kernels[0].name, "cpp_fused_mul_0");
    EXPECT_EQ(code.kernels[0].language, "cpp");
    EXPECT_THAT(code.kernels[0].source, StartsWith("extern \"C\"  void cpp_fused_mul_0(const float* in_ptr0,"));
    EXPECT_THAT(code.kernels[0].source, HasSubstr("in_ptr0[x0] * 2.0f; }\n}"));
    EXPECT_EQ(code.kernels[0].source.back(), '}');
}

TEST(OutputCode, LanguageOfTheWholeFile) {
    EXPECT_EQ(outputCodeLanguage("# AOT ID: ['0_forward']\nimport torch\n"), "python");
    EXPECT_EQ(outputCodeLanguage("from ctypes import c_void_p\n"), "python");
    EXPECT_EQ(outputCodeLanguage("\n\nimport torch\n"), "python");
    EXPECT_EQ(outputCodeLanguage("#include <torch/csrc/inductor/aoti_runtime/interface.h>\n"), "cpp");
    EXPECT_EQ(outputCodeLanguage("// AOTInductor wrapper\nint x;\n"), "cpp");
    EXPECT_EQ(outputCodeLanguage(""), "");
    EXPECT_EQ(outputCodeLanguage("   \n"), "");
}

TEST(OutputCode, EmptyAndTruncatedSources) {
    SplitOutputCode empty = splitOutputCode("");
    EXPECT_EQ(empty.language, "");
    EXPECT_THAT(empty.kernels, IsEmpty());

    EXPECT_THAT(splitOutputCode("import torch\nasync_compile = AsyncCompile()\nasync_compile.wait(globals())\n").kernels,
                IsEmpty());

    // A payload cut inside a kernel keeps the kernel, up to the end of the text.
    SplitOutputCode cut = splitOutputCode("import triton\n"
                                          "triton_poi_0 = async_compile.triton('triton_poi_0', '''\n"
                                          "@triton.jit\ndef triton_poi_0(in_ptr0):\n    pass");
    ASSERT_EQ(cut.kernels.size(), 1u);
    EXPECT_EQ(cut.kernels[0].name, "triton_poi_0");
    EXPECT_EQ(cut.kernels[0].source, "\n@triton.jit\ndef triton_poi_0(in_ptr0):\n    pass");

    EXPECT_NO_THROW(splitOutputCode("#include <x>\nextern \"C\" void f(int a\n{ {"));
    EXPECT_NO_THROW(splitOutputCode("import x\nk = async_compile.triton("));
}

// Shaped like torch 2.11's wrapper: the fusion comments sit right above each kernel's assignment.
constexpr std::string_view kCommentedWrapper = R"PY(# AOT ID: ['0_backward']
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()


# kernel path: /tmp/inductor/27/c27.py
# Topologically Sorted Source Nodes: [mul_3, sum_1, layer_norm], Original ATen: [aten.native_layer_norm_backward]
# Source node to ATen node mapping:
#   layer_norm => mul, sub
#   mul_3 => mul_3
# Graph fragment:
#   %tangents_1 : Tensor "f32[16, 32][32, 1]cuda:0" = PlaceHolder[target=tangents_1]
#   %sum_1 : Tensor "f32[16, 1][1, 16]cuda:0" = PlaceHolder[target=sum_1]
#   %mul_3 : Tensor "f32[16, 32][32, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%tangents_1, %primals_4), kwargs = {})
#   %sum_1 : Tensor "f32[16, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%mul_3, [1], True), kwargs = {})
#   %sub : Tensor "f32[16, 32][32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%addmm, %getitem_1), kwargs = {})
#   return %sum_1,%sub
triton_per_fused_native_layer_norm_backward_0 = async_compile.triton('triton_per_fused_native_layer_norm_backward_0', '''
@triton.jit
def triton_per_fused_native_layer_norm_backward_0(in_ptr0):
    # Graph fragment: a comment inside the kernel source is not read
    pass
''', device_str='cuda')


# kernel path: /tmp/inductor/5a/c5a.py
# Topologically Sorted Source Nodes: [input_1, out], Original ATen: [aten.native_dropout, aten.gelu]
# Graph fragment:
#   %clone : [num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%inductor_random_default,), kwargs = {})
#   %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg0_1, 0.5), kwargs = {})
triton_poi_fused_gelu_native_dropout_1 = async_compile.triton('triton_poi_fused_gelu_native_dropout_1', '''
@triton.jit
def triton_poi_fused_gelu_native_dropout_1(in_ptr0):
    pass
''', device_str='cuda')


triton_poi_fused_sum_2 = async_compile.triton('triton_poi_fused_sum_2', '''
# Topologically Sorted Source Nodes: [not_mine], Original ATen: []
def triton_poi_fused_sum_2(in_ptr0):
    pass
''', device_str='cuda')

async_compile.wait(globals())
del async_compile

def call(args):
    # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.t, aten.addmm]
    extern_kernels.addmm(primals_2, primals_3, out=buf0)
    triton_poi_fused_sum_2.run(buf0, buf1, 1024, stream=stream0)
)PY";

TEST(OutputCode, FusionCommentsGiveSourceAndPostGradNodes) {
    SplitOutputCode code = splitOutputCode(kCommentedWrapper);
    ASSERT_EQ(code.kernels.size(), 3u);

    const Kernel& reduction = code.kernels[0];
    EXPECT_THAT(reduction.sourceNodes, ElementsAre("mul_3", "sum_1", "layer_norm"));
    // Placeholders are the kernel's inputs, not nodes it computes; sum_1 is listed once although named twice.
    EXPECT_THAT(reduction.postGradNodes, ElementsAre("mul_3", "sum_1", "sub"));

    const Kernel& older = code.kernels[1];  // torch 2.5's fragment lines carry no tensor type
    EXPECT_THAT(older.sourceNodes, ElementsAre("input_1", "out"));
    EXPECT_THAT(older.postGradNodes, ElementsAre("clone", "mul"));

    // No comment block above it: comments inside its source and in the launch code are not its own.
    const Kernel& bare = code.kernels[2];
    EXPECT_THAT(bare.sourceNodes, IsEmpty());
    EXPECT_THAT(bare.postGradNodes, IsEmpty());
}

TEST(OutputCode, KernelsWithoutFusionCommentsStayEmpty) {
    SplitOutputCode code = splitOutputCode(R"PY(# AOT ID: ['0_inference']
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


cpp_fused_mul_sin_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
extern "C"  void  kernel(const float* in_ptr0, float* out_ptr0) {}
''')
)PY");
    ASSERT_EQ(code.kernels.size(), 1u);
    EXPECT_THAT(code.kernels[0].sourceNodes, IsEmpty());
    EXPECT_THAT(code.kernels[0].postGradNodes, IsEmpty());

    // An empty list, and a comment block at the very start of the text.
    SplitOutputCode first = splitOutputCode("# Topologically Sorted Source Nodes: [], Original ATen: []\n"
                                            "# Graph fragment:\n"
                                            "k = async_compile.triton('k', '''pass''')\n");
    ASSERT_EQ(first.kernels.size(), 1u);
    EXPECT_THAT(first.kernels[0].sourceNodes, IsEmpty());
    EXPECT_THAT(first.kernels[0].postGradNodes, IsEmpty());
}

TEST(OutputCode, FusionCommentsOfTheRealTrainingLog) {
    // The forward graph's GELU kernel as torch 2.11 wrote it (tests/data/torch_traces/training_cuda).
    SplitOutputCode code = splitOutputCode(R"PY(# AOT ID: ['0_forward']
async_compile = AsyncCompile()


# kernel path: /tmp/cwb_training_cuda_gpo6i0z8/inductor0/3d/c3d25skr7ewrregujiahrbo4tzeskxoccmybz4py3p2oip2f7kym.py
# Topologically Sorted Source Nodes: [h], Original ATen: [aten.gelu]
# Source node to ATen node mapping:
#   h => add, erf, mul, mul_1, mul_2
# Graph fragment:
#   %addmm : Tensor "f32[16, 64][64, 1]cuda:0" = PlaceHolder[target=addmm]
#   %mul : Tensor "f32[16, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%addmm, 0.5), kwargs = {})
#   %mul_1 : Tensor "f32[16, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%addmm, 0.7071067811865476), kwargs = {})
#   %erf : Tensor "f32[16, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.erf.default](args = (%mul_1,), kwargs = {})
#   %add : Tensor "f32[16, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%erf, 1), kwargs = {})
#   %mul_2 : Tensor "f32[16, 64][64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %add), kwargs = {})
#   return %mul_2
triton_poi_fused_gelu_0 = async_compile.triton('triton_poi_fused_gelu_0', '''
def triton_poi_fused_gelu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    pass
''', device_str='cuda')
)PY");
    ASSERT_EQ(code.kernels.size(), 1u);
    EXPECT_THAT(code.kernels[0].sourceNodes, ElementsAre("h"));
    EXPECT_THAT(code.kernels[0].postGradNodes, ElementsAre("mul", "mul_1", "erf", "add", "mul_2"));
}

}  // namespace
}  // namespace traces
