// CPU-only (runs in CI): every sample and test kernel generates CUDA that NVRTC compiles for sm_90, and the
// source shows the strategy chosen (vectors, index width, row/column reductions), checked as structural facts.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "cuda_test_kernels.h"
#include "cuda/driver.h"
#include "inductor/cuda/cuda_codegen_detail.h"
#include "inductor/cuda/cuda_kernel_codegen.h"

namespace eng::inductor::cuda {
namespace {

using namespace samples;

class CudaCodegenCompile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("cwb_inductor_cuda_test_" + std::to_string(std::random_device{}()));
        compiler_ = std::make_unique<eng::cuda::KernelCompiler>(dir_);
    }
    void TearDown() override {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    // Generates and compiles; failures carry NVRTC's log and the source.
    CudaKernelCode compiles(const Kernel& kernel, const CudaTuning& tuning = {}) {
        CudaKernelCode code = generateCudaKernel(kernel, tuning);
        EXPECT_EQ(code.name, kernel.name);
        EXPECT_NE(code.source.find("extern \"C\" __global__ void __launch_bounds__"), std::string::npos);
        EXPECT_NE(code.source.find(" " + kernel.name + "("), std::string::npos);
        EXPECT_NE(code.source.find("// kernel " + kernel.name), std::string::npos) << "the IR is shown as a comment";
        try {
            auto compiled = compiler_->compile(code.kernelSource(), "sm_90");
            EXPECT_FALSE(compiled->cubin.empty());
        } catch (const std::exception& e) {
            ADD_FAILURE() << e.what() << "\n" << code.source;
        }
        return code;
    }
    static int count(const std::string& text, const std::string& what) {
        int n = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    }

    std::filesystem::path dir_;
    std::unique_ptr<eng::cuda::KernelCompiler> compiler_;
};

TEST_F(CudaCodegenCompile, EverySampleKernelCompilesForSm90) {
    for (const Kernel& kernel : samples::all()) {
        SCOPED_TRACE(kernel.name);
        compiles(kernel);
    }
}

TEST_F(CudaCodegenCompile, EveryTestKernelCompilesForSm90) {
    using namespace cudatest;
    const std::vector<Kernel> kernels = {
        allUnaryFloat(100, DType::Float32), allUnaryFloat(100, DType::Float64), allUnaryFloat(100, DType::Float16),
        allBinaryFloat(100, DType::Float32), allBinaryFloat(100, DType::Float64), allBinaryFloat(100, DType::BFloat16),
        allIntegerOps(100, DType::Int8), allIntegerOps(100, DType::Int32), allIntegerOps(100, DType::Int64),
        allIntegerOps(100, DType::UInt8), boolOps(100), casts(100), halfMath(100), indexValues3d(3, 5, 7), inPlaceSymbolic(),
        everyReduction(10, true, true), everyReduction(10, false, true), integerReductions(5, 9), multiDimReduction(3, 4, 5),
        columnSoftmax(9, 40), maskedSoftmax(16, 100), storeThenReload(4, 70), softmaxConstant(3, 64), fullSum(100), fillScalar(),
        rowAndColumnReductions(64, 512), rowAndColumnReductions(5, 13), rowAndColumnReductions(5, 13, true), catOfThreeSlices(5, 24),
        catOfPieces(3, {4, 12}, DType::BFloat16), catOfHeadViews(2, 3, 6, 4, true)};
    for (const Kernel& kernel : kernels) {
        SCOPED_TRACE(kernel.name);
        compiles(kernel);
    }
}

TEST_F(CudaCodegenCompile, PointwiseChainIsVectorisedWithNamedTemporariesAndCse) {
    const CudaKernelCode code = compiles(pointwiseChain(1 << 26));
    EXPECT_EQ(code.strategy, CudaStrategy::PointwiseVectorized);
    EXPECT_EQ(code.vectorWidth, 4);
    EXPECT_FALSE(code.index64);
    EXPECT_NE(code.source.find("cwb_vec<float, 4>"), std::string::npos);
    EXPECT_NE(code.source.find("const float* __restrict__ arg0_1"), std::string::npos);
    EXPECT_NE(code.source.find("float* __restrict__ buf0"), std::string::npos);
    EXPECT_NE(code.source.find("const int numel = 67108864;"), std::string::npos);
    // Aligned buffers (the launcher checks) and a multiple of 4 elements: one vector loop, no scalar copy of it.
    EXPECT_TRUE(code.assumesAligned);
    EXPECT_EQ(code.source.find("scalar tail"), std::string::npos);
    EXPECT_EQ(code.source.find("reinterpret_cast<unsigned long long>"), std::string::npos);
    // sin through the prelude's cwb_sin, inlined unless trig_calls asks for one out-of-line copy
    EXPECT_NE(code.source.find("cwb_sin(tmp"), std::string::npos);
    EXPECT_EQ(code.source.find("#define CWB_TRIG_CALLS"), std::string::npos);
    EXPECT_EQ(compiles(pointwiseChain(int64_t{1} << 26), {.trigCalls = true}).source.rfind("#define CWB_TRIG_CALLS\n", 0), 0u);
    // sigmoid is its ops/elementwise.def row's device function, in float
    EXPECT_NE(code.source.find("cwb_forms::cwb_f_sigmoid<float>("), std::string::npos);
    EXPECT_EQ(code.source.find("__expf"), std::string::npos) << "no fast-math intrinsics";
    // x is read twice in the IR (relu chain and sigmoid) through one shared node: one load per code path.
    EXPECT_EQ(count(code.source, "cwb_load(arg0_1_v.v[k])"), 1);
    EXPECT_EQ(count(code.source, "cwb_load(arg0_1[x0])"), 0);
    // A length that is not a multiple of the vector keeps a scalar tail; the kernel for unaligned buffers checks
    // the addresses and takes the scalar loop for everything when they are off.
    const CudaKernelCode odd = compiles(pointwiseChain((1 << 20) + 3));
    EXPECT_NE(odd.source.find("// The scalar tail (numel % vector width).\n"), std::string::npos);
    EXPECT_EQ(count(odd.source, "cwb_load(arg0_1[x0])"), 1);
    CudaTuning unaligned;
    unaligned.assumeAligned = false;
    const CudaKernelCode general = compiles(pointwiseChain(1 << 26), unaligned);
    EXPECT_FALSE(general.assumesAligned);
    EXPECT_NE(general.source.find("const bool aligned = ((reinterpret_cast<unsigned long long>(arg0_1) & 15)"), std::string::npos);
    EXPECT_NE(general.source.find("or everything when unaligned"), std::string::npos);
    EXPECT_EQ(code.launchText({}), "grid=(65536, 1, 1) block=(256, 1, 1)");
    // A block per piece of work by default (a cap of 8 waves measured 3% slower on B1); a cap when tuned.
    EXPECT_EQ(code.launchShape({}, 132).gridX, 65536u);
    CudaTuning waves;
    waves.gridWaves = 2;
    EXPECT_EQ(compiles(pointwiseChain(1 << 26), waves).launchShape({}, 132).gridX, 132u * 8 * 2);
}

TEST_F(CudaCodegenCompile, TuningChangesBlockAndUnroll) {
    CudaTuning tuning;
    tuning.blockSize = 128;
    tuning.elementsPerThread = 16;
    const CudaKernelCode code = compiles(pointwiseChain(1000), tuning);
    EXPECT_EQ(code.blockX, 128u);
    EXPECT_EQ(code.itemsPerBlock, 128 * 16);
    EXPECT_NE(code.source.find("for (int u = 0; u < 4; ++u)"), std::string::npos);
    tuning.allowVectorized = false;
    EXPECT_EQ(compiles(pointwiseChain(1000), tuning).strategy, CudaStrategy::PointwiseScalar);
}

TEST_F(CudaCodegenCompile, StridedOrBroadcastAccessesAreScalar) {
    const CudaKernelCode code = compiles(broadcastAddTransposed(7, 13));
    EXPECT_EQ(code.strategy, CudaStrategy::PointwiseScalar);
    EXPECT_EQ(code.source.find("cwb_vec<"), std::string::npos);
    EXPECT_NE(code.source.find("% 13"), std::string::npos) << "x1 decoded from the flat index";
}

TEST_F(CudaCodegenCompile, WhereSidesThatLoadRunOnlyWhereTaken) {
    // Each slice's load sits in its own branch (one load an element, as Triton's masked loads), not three loads
    // ahead of a select (slices of 12: not whole vectors, so the wheres are decided element by element).
    const CudaKernelCode code = compiles(cudatest::catOfThreeSlices(5, 12));
    const std::string body = code.source.substr(code.source.find("__global__"));
    EXPECT_EQ(count(body, "cwb_load(in0["), 3) << body;
    EXPECT_EQ(count(body, "} else {"), 2) << body;
    const size_t branch = body.find("if (");
    ASSERT_NE(branch, std::string::npos) << body;
    EXPECT_LT(branch, body.find("cwb_load(in0[")) << "the first load is inside the first branch\n" << body;
    // Sides without loads stay one select.
    const CudaKernelCode plain = compiles(cudatest::indexValues3d(3, 5, 7));
    EXPECT_EQ(plain.source.substr(plain.source.find("__global__")).find("} else {"), std::string::npos);
}

TEST_F(CudaCodegenCompile, StoreVectorsAlongTheInnermostDim) {
    // The qkv gradient's cat (bf16, rows of 3 x 768): a thread takes 8 elements of a row, decodes the index once, and
    // stores them as one 16-byte vector; with the wheres decided lane by lane (where_vectors=0) its loads stay one a
    // lane, each in its where side.
    CudaTuning lanes;
    lanes.whereVectors = false;
    const CudaKernelCode cat = compiles(cudatest::catOfThreeSlices(33, 768), lanes);
    const std::string body = cat.source.substr(cat.source.find("__global__"));
    EXPECT_EQ(cat.strategy, CudaStrategy::PointwiseScalar);
    EXPECT_EQ(cat.vectorWidth, 8);
    EXPECT_EQ(cat.itemsPerBlock, 256 * 8);
    EXPECT_NE(body.find("const int x1 = cwb_lane0 + k;"), std::string::npos) << body;
    EXPECT_NE(body.find("*reinterpret_cast<cwb_vec<cwb_bf16, 8>*>(out0 + base) = out0_out;"), std::string::npos) << body;
    EXPECT_EQ(count(body, "cwb_load(in0["), 3) << body;
    EXPECT_EQ(body.find("in0_v"), std::string::npos) << "loads under a where are not read ahead";
    EXPECT_EQ(body.find("the same on every lane"), std::string::npos) << body;
    // Loads at every element stepping by one along the row from a multiple of 8: vectors too (the bias, and the
    // input when its rows start on vectors); otherwise one element a lane.
    const CudaKernelCode both = compiles(cudatest::pitchedRowsPlusBias(10, 64, 72, DType::BFloat16));
    EXPECT_NE(both.source.find("const cwb_vec<cwb_bf16, 8> arg0_1_v0 = *reinterpret_cast<const cwb_vec<cwb_bf16, 8>*>(arg0_1 + "), std::string::npos)
        << both.source;
    EXPECT_NE(both.source.find("const cwb_vec<cwb_bf16, 8> arg1_1_v1 = *reinterpret_cast<const cwb_vec<cwb_bf16, 8>*>(arg1_1 + x1);"), std::string::npos);
    const CudaKernelCode bias = compiles(cudatest::pitchedRowsPlusBias(10, 64, 67, DType::BFloat16));
    EXPECT_EQ(bias.source.find("arg0_1_v"), std::string::npos) << bias.source;
    EXPECT_NE(bias.source.find("cwb_load(arg0_1["), std::string::npos);
    EXPECT_NE(bias.source.find("arg1_1_v0"), std::string::npos);
    const CudaKernelCode floats = compiles(broadcastAddTransposed(300, 256));  // float32: vectors of 4, a strided
    EXPECT_EQ(floats.vectorWidth, 4);
    EXPECT_NE(floats.source.find("*reinterpret_cast<cwb_vec<float, 4>*>(buf0 + base) = buf0_out;"), std::string::npos) << floats.source;
    // Not where rows are not whole vectors, buffers may be unaligned, or the tuning turns it off.
    for (const Kernel& kernel : {cudatest::catOfThreeSlices(5, 12), broadcastAddTransposed(7, 13)})
        EXPECT_EQ(compiles(kernel).source.find("cwb_lane0"), std::string::npos);
    CudaTuning unaligned;
    unaligned.assumeAligned = false;
    EXPECT_EQ(compiles(cudatest::catOfThreeSlices(33, 768), unaligned).source.find("cwb_lane0"), std::string::npos);
    CudaTuning off;
    off.storeVectors = false;
    EXPECT_EQ(compiles(cudatest::catOfThreeSlices(33, 768), off).source.find("cwb_lane0"), std::string::npos);
}

TEST_F(CudaCodegenCompile, CatPiecesOfWholeVectorsLoadVectors) {
    auto bodyOf = [](const CudaKernelCode& code) { return code.source.substr(code.source.find("__global__")); };
    // The qkv gradient's cat (bf16, pieces of 768 = 96 vectors of 8): a vector's positions lie in one piece, so its
    // where-chain is decided once a vector, one branch a piece, each with one 16-byte load and no element loads.
    const std::string cat = bodyOf(compiles(cudatest::catOfThreeSlices(33, 768)));
    EXPECT_EQ(count(cat, "{  // the same on every lane of the vector"), 2) << cat;
    EXPECT_EQ(count(cat, "const cwb_vec<cwb_bf16, 8> in0_v0 = *reinterpret_cast<const cwb_vec<cwb_bf16, 8>*>(in0 + "), 3) << cat;
    EXPECT_EQ(count(cat, "cwb_load(in0["), 0) << cat;
    EXPECT_EQ(count(cat, "*reinterpret_cast<cwb_vec<cwb_bf16, 8>*>(out0 + base) = out0_out;"), 1) << cat;
    // The step's views of the flash layout [3, B, T, H, D] read through their heads (c // 64, c % 64), and of the
    // transposed one [3, B, H, T, D]: vectors of one head's 64 elements.
    for (bool transposed : {false, true}) {
        const std::string heads = bodyOf(compiles(cudatest::catOfHeadViews(2, 16, 12, 64, transposed)));
        EXPECT_EQ(count(heads, "const cwb_vec<cwb_bf16, 8> grads_v0 = "), 3) << heads;
        EXPECT_EQ(count(heads, "cwb_load(grads["), 0) << heads;
    }
    // Heads of 4 elements in the transposed layout: the pieces (24) are whole vectors, so the branches are decided once
    // a vector, but a vector's lanes cross heads, 4 elements apart in memory: one element a lane. (In the flash layout
    // the heads' index simplifies to the contiguous column.)
    const std::string narrow = bodyOf(compiles(cudatest::catOfHeadViews(2, 16, 6, 4, true)));
    EXPECT_EQ(count(narrow, "{  // the same on every lane of the vector"), 2) << narrow;
    EXPECT_EQ(count(narrow, "cwb_load(grads["), 3) << narrow;
    EXPECT_EQ(narrow.find("grads_v0"), std::string::npos) << narrow;
    // Heads of 4 elements 8 apart (padded rows): every lane 0 is on a vector boundary, but lanes 4-7 are the next head.
    const std::string padded = bodyOf(compiles(cudatest::catOfHeadViews(2, 16, 6, 4, false, 8)));
    EXPECT_EQ(count(padded, "cwb_load(grads["), 3) << padded;
    EXPECT_EQ(padded.find("grads_v0"), std::string::npos) << padded;
    // Unequal pieces of whole vectors, bf16 (8) and float32 (4): every piece's load a vector.
    for (auto [sizes, dtype] : {std::pair{std::vector<int64_t>{8, 16, 24}, DType::BFloat16}, std::pair{std::vector<int64_t>{4, 8, 12}, DType::Float32}}) {
        const std::string pieces = bodyOf(compiles(cudatest::catOfPieces(5, sizes, dtype)));
        EXPECT_EQ(count(pieces, "{  // the same on every lane of the vector"), 2) << pieces;
        for (const char* name : {"in0", "in1", "in2"}) {
            EXPECT_EQ(count(pieces, fmt::format(" {}_v0 = *reinterpret_cast<", name)), 1) << name << pieces;
            EXPECT_EQ(count(pieces, fmt::format("cwb_load({}[", name)), 0) << name << pieces;
        }
    }
    // A piece of 4 bf16 elements ends inside a vector: its where is decided lane by lane, the loads one element a lane.
    const std::string split = bodyOf(compiles(cudatest::catOfPieces(5, {4, 12}, DType::BFloat16)));
    EXPECT_NE(split.find("cwb_lane0"), std::string::npos) << split;
    EXPECT_EQ(split.find("the same on every lane"), std::string::npos) << split;
    EXPECT_EQ(count(split, "cwb_load(in0["), 1) << split;
    EXPECT_EQ(count(split, "cwb_load(in1["), 1) << split;
}

TEST(CudaLaneForm, HowIndicesMoveAcrossTheLanesOfAVectorStep) {
    using detail::laneForm;
    auto form = [](const Index& index) {
        const auto f = laneForm(index, 1, 8);  // lanes of x1, vectors of 8
        return f ? fmt::format("{}{}", f->step, f->aligned ? " aligned" : "") : std::string("none");
    };
    EXPECT_EQ(form(x(0) * c(768) + x(1)), "1 aligned");
    EXPECT_EQ(form(x(0) * c(67) + x(1)), "1") << "rows of 67: lane 0 is not on a vector";
    EXPECT_EQ(form(x(0) * indexSymbol("s0") + x(1)), "1") << "a symbolic pitch";
    EXPECT_EQ(form(x(1) * c(1024) + x(0)), "1024") << "a transposed read";
    EXPECT_EQ(form(x(0)), "0");
    EXPECT_EQ(form(modulo(x(1) + c(8), c(16))), "1 aligned") << "a cat's piece";
    EXPECT_EQ(form(modulo(x(1) + c(8), c(12))), "none") << "a piece that ends inside a vector";
    EXPECT_EQ(form(modulo(x(1) + c(4), c(16))), "none") << "a lift that is not on a vector";
    EXPECT_EQ(form(floorDiv(modulo(x(1), c(768)), c(64)) * c(65536) + modulo(modulo(x(1), c(768)), c(64))), "1 aligned") << "heads of 64";
    EXPECT_EQ(form(floorDiv(x(1), c(4))), "none") << "heads of 4 change within a vector";
    EXPECT_EQ(form(floorDiv(x(0), c(3)) * c(8) + x(1)), "1 aligned");
    EXPECT_EQ(form(x(1) * indexSymbol("s0")), "none");
    // Conditions: a bound on a vector boundary is the same on every lane; one inside a vector, <=, == are not.
    auto uniform = [](ElementOp op, int64_t bound) {
        return detail::uniformAcrossLanes(*binary(op, indexValue(x(1), DType::Int64), constantInt(bound, DType::Int64)), 1, 8);
    };
    EXPECT_TRUE(uniform(ElementOp::Lt, 768));
    EXPECT_TRUE(uniform(ElementOp::Ge, 1536));
    EXPECT_FALSE(uniform(ElementOp::Lt, 764));
    EXPECT_FALSE(uniform(ElementOp::Le, 768));
    EXPECT_FALSE(uniform(ElementOp::Eq, 768));
    EXPECT_TRUE(detail::uniformAcrossLanes(*binary(ElementOp::Gt, constantInt(16, DType::Int64), indexValue(x(1), DType::Int64)), 1, 8));
    EXPECT_TRUE(detail::uniformAcrossLanes(*binary(ElementOp::Lt, indexValue(x(0), DType::Int64), constantInt(3, DType::Int64)), 1, 8));
    EXPECT_FALSE(detail::uniformAcrossLanes(*binary(ElementOp::Lt, load(0, x(0), DType::Float32), constantFloat(0, DType::Float32)), 1, 8));
}

TEST_F(CudaCodegenCompile, VectorWidthFollowsTheWidestElement) {
    EXPECT_EQ(compiles(cudatest::halfMath(100)).vectorWidth, 4);  // float32 output: 4 x 4 bytes
    EXPECT_EQ(compiles(cudatest::indexValues3d(3, 5, 7)).vectorWidth, 2);  // int64 output
    const CudaKernelCode bools = compiles(cudatest::boolOps(100));
    EXPECT_EQ(bools.vectorWidth, 4);
    Kernel copy;
    copy.name = "cwb_poi_copy_bf16";
    copy.buffers = {buffer("arg0_1", DType::BFloat16, true, false), buffer("buf0", DType::BFloat16, false, true)};
    copy.outerRanges = {c(1000)};
    copy.passes = {KernelPass{false, {}, {Store{1, x(0), load(0, x(0), DType::BFloat16)}}}};
    const CudaKernelCode code = compiles(copy);
    EXPECT_EQ(code.vectorWidth, 8);
    EXPECT_NE(code.source.find("cwb_vec<cwb_bf16, 8>"), std::string::npos);
}

TEST_F(CudaCodegenCompile, IndexWidthIs64BitOnlyWhenNeeded) {
    EXPECT_TRUE(compiles(pointwiseChain(int64_t{3} << 30)).index64);
    EXPECT_NE(generateCudaKernel(pointwiseChain(int64_t{3} << 30)).source.find("const long long numel"), std::string::npos);
    EXPECT_FALSE(compiles(pointwiseChain(1 << 20)).index64);
    const CudaKernelCode symbolic = compiles(cudatest::inPlaceSymbolic());
    EXPECT_TRUE(symbolic.index64);
    EXPECT_EQ(symbolic.strategy, CudaStrategy::PointwiseVectorized) << "in place, one store after its load";
    EXPECT_NE(symbolic.source.find("long long s0"), std::string::npos);
    EXPECT_EQ(symbolic.launchText({{"s0", 1000}}), "grid=(1, 1, 1) block=(256, 1, 1)");
}

TEST_F(CudaCodegenCompile, ComboKernelGivesEachPartItsOwnBlocks) {
    const CudaKernelCode code = compiles(comboOfThreeSizes());
    EXPECT_EQ(count(code.source, "cwb_block -= cwb_blocks;"), 3) << code.source;
    EXPECT_EQ(count(code.source, "blockIdx.x"), 1) << "only the dispatch reads the block index";
    EXPECT_NE(code.source.find("cwb_vec<float, 4>"), std::string::npos) << "the contiguous part keeps its vectors";
    // One block for the 1000-element chain, one for the 7 x 13 add, ceil((s0 - 1) / 256) for the slice.
    EXPECT_EQ(code.launchText({{"s0", 1}}), "grid=(2, 1, 1) block=(256, 1, 1)");
    EXPECT_EQ(code.launchText({{"s0", 1000}}, 132), "grid=(6, 1, 1) block=(256, 1, 1)");
}

TEST_F(CudaCodegenCompile, ComboPartsWithOneBodyCallOneDeviceFunction) {
    const CudaKernelCode code = compiles(comboOfSharedBodies());
    EXPECT_EQ(count(code.source, "__device__ __noinline__ void cwb_for_fused_add_div_mul_pow_sub_0_body"), 2) << code.source;
    EXPECT_EQ(count(code.source, "cwb_for_fused_add_div_mul_pow_sub_0_body1(p_1, g_1, m_1, step_1, m_out_1, p_out_1, (long long)(91), cwb_block, cwb_blocks);"), 1)
        << "the 7 x 13 part passes its buffers and its 91 elements";
    EXPECT_EQ(count(code.source, "// strategy: pointwise_vectorized"), 2) << "each body once, in vectors";
    EXPECT_EQ(count(code.source, "// strategy: pointwise_scalar"), 1) << "the transposed add's own code";
    EXPECT_EQ(count(code.source, "cwb_block -= cwb_blocks;"), 6);
    // Blocks: 1 per count, ceil(91 / 1024), ceil(1000 / 1024), ceil(3 / 1024), one for the 15-element add.
    EXPECT_EQ(code.launchText({}), "grid=(6, 1, 1) block=(256, 1, 1)");
}

TEST_F(CudaCodegenCompile, SoftmaxIsOneRowPerBlockWithAllPassesInIt) {
    const CudaKernelCode code = compiles(softmaxRows(8192));
    EXPECT_EQ(code.strategy, CudaStrategy::RowReduction);
    EXPECT_GE(code.blockX, 256u);
    EXPECT_EQ(code.blockY, 1u);
    EXPECT_NE(code.source.find("// pass 0 over the reduction range: red0 = max"), std::string::npos);
    EXPECT_NE(code.source.find("// pass 2 over the reduction range: store buf0"), std::string::npos);
    EXPECT_NE(code.source.find("cwb_reduce_x<"), std::string::npos);
    EXPECT_EQ(code.launchText({{"s0", 8192}}), "grid=(8192, 1, 1) block=(" + std::to_string(code.blockX) + ", 1, 1)");
}

TEST_F(CudaCodegenCompile, ShortRowsGetAWarpEachAndLongRowsABlock) {
    const CudaKernelCode shortRows = compiles(layerNormBf16(100, 64));
    EXPECT_EQ(shortRows.strategy, CudaStrategy::RowReduction);
    EXPECT_EQ(shortRows.blockX, 32u);
    EXPECT_GT(shortRows.blockY, 1u);
    EXPECT_NE(shortRows.source.find("cwb_to_bf16("), std::string::npos);
    const CudaKernelCode longRows = compiles(layerNormBf16(100, 8192));
    EXPECT_EQ(longRows.blockX, 512u) << "16 elements per thread";
    EXPECT_EQ(longRows.blockY, 1u);
    EXPECT_NE(longRows.source.find("__shared__"), std::string::npos);
}

TEST_F(CudaCodegenCompile, ColumnReductionsSplitTheReductionAcrossY) {
    const CudaKernelCode code = compiles(columnSumAndArgmax(4096, 300));
    EXPECT_EQ(code.strategy, CudaStrategy::ColumnReduction);
    EXPECT_EQ(code.blockX, 32u);
    EXPECT_EQ(code.blockY, 32u);
    EXPECT_NE(code.source.find("cwb_reduce_y<32, 32>"), std::string::npos);
    EXPECT_NE(code.source.find("cwb_argmax()"), std::string::npos);
    EXPECT_EQ(code.launchText({}), "grid=(10, 1, 1) block=(32, 32, 1)");
    EXPECT_EQ(compiles(cudatest::columnSoftmax(9, 40)).strategy, CudaStrategy::ColumnReduction);
    EXPECT_EQ(compiles(cudatest::everyReduction(10, false, true)).strategy, CudaStrategy::ColumnReduction);
    EXPECT_EQ(compiles(cudatest::everyReduction(10, true, true)).strategy, CudaStrategy::RowReduction);
}

TEST_F(CudaCodegenCompile, RowReductionsMoveVectorsAlongAlignedRows) {
    const CudaKernelCode softmax = compiles(softmaxRows(8192));
    EXPECT_EQ(softmax.vectorWidth, 4);
    EXPECT_NE(softmax.source.find("const bool row_vectors = "), std::string::npos);
    EXPECT_NE(softmax.source.find("((x0 * s0) % 4)"), std::string::npos) << "rows of odd length are not aligned";
    EXPECT_EQ(count(softmax.source, "*reinterpret_cast<const cwb_vec<float, 4>*>(arg0_1 + x0 * s0 + rbase)"), 3) << "one per pass";
    CudaTuning online;
    online.onlineSoftmax = true;
    EXPECT_EQ(count(compiles(softmaxRows(8192), online).source, "*reinterpret_cast<const cwb_vec<float, 4>*>(arg0_1 + x0 * s0 + rbase)"), 2)
        << "one for the max and the sum (online), one for the write";
    EXPECT_EQ(count(softmax.source, "*reinterpret_cast<cwb_vec<float, 4>*>(buf0 + x0 * s0 + rbase) = buf0_out"), 1);
    // Rows of a constant length that is whole vector steps of every thread: the steps unrolled, no bounds check,
    // so a thread's loads of a pass leave together.
    CudaTuning streaming;
    streaming.persistentRows = false;
    const std::string constant = compiles(cudatest::softmaxConstant(64, 8192), streaming).source;
    EXPECT_EQ(count(constant, "for (int it = 0; it < 4; ++it) {\n        const int rvec = threadIdx.x + it * 512;\n        {\n"), 3) << constant;
    EXPECT_EQ(count(constant, "rvec < "), 0);
    EXPECT_EQ(count(compiles(cudatest::softmaxConstant(64, 8192)).source, "rvec < "), 0) << "nor in registers";
    EXPECT_NE(compiles(cudatest::softmaxConstant(64, 8200)).source.find("if (rvec < "), std::string::npos) << "2050 vectors on 512 threads";
    // bfloat16 rows with float32 weights: vectors of 4 (16 bytes of float, 8 of bfloat16).
    EXPECT_EQ(compiles(layerNormBf16(10, 1024)).vectorWidth, 4);
    // A pass reading the row backwards stays scalar; the forward pass before it is vectorised.
    const CudaKernelCode reversed = compiles(cudatest::storeThenReload(4, 70));
    EXPECT_NE(reversed.source.find("in1_tmp0_out"), std::string::npos);
    EXPECT_EQ(reversed.source.find("in1_tmp0_v"), std::string::npos);
    CudaTuning scalar;
    scalar.allowVectorized = false;
    EXPECT_EQ(compiles(softmaxRows(8), scalar).source.find("row_vectors"), std::string::npos);
    // Column reductions never vectorise along the reduction.
    EXPECT_EQ(compiles(columnSumAndArgmax(64, 64)).vectorWidth, 1);
}

TEST_F(CudaCodegenCompile, PersistentRowsKeepTheRowInRegistersAcrossPasses) {
    CudaTuning persistent;
    persistent.persistentRows = true;
    const CudaKernelCode code = compiles(cudatest::softmaxConstant(8192, 8192), persistent);
    EXPECT_TRUE(code.persistent);
    // Rows of 8192 floats start on 16-byte boundaries: only the in-register passes, with no fallback copy.
    EXPECT_EQ(code.source.find("row_vectors"), std::string::npos);
    EXPECT_EQ(count(code.source, "for (int rindex"), 0);
    CudaTuning unaligned = persistent;
    unaligned.assumeAligned = false;
    EXPECT_NE(compiles(cudatest::softmaxConstant(8192, 8192), unaligned).source.find("if (__syncthreads_and(row_vectors || !active)) {"),
              std::string::npos);
    EXPECT_EQ(count(code.source, "[it] = *reinterpret_cast<const cwb_vec<float, 4>*>(arg0_1 + x0 * 8192 + rbase);"), 1)
        << "the row is read from memory once, in the max pass";
    EXPECT_EQ(count(code.source, "cwb_vec<float, 4> arg0_1_row"), 1);
    EXPECT_TRUE(compiles(layerNormBf16(10, 1024), persistent).persistent);
    EXPECT_FALSE(compiles(cudatest::softmaxConstant(10, 1001), persistent).persistent) << "a tail on rows not all aligned";
    EXPECT_FALSE(compiles(softmaxRows(10), persistent).persistent) << "symbolic length";
    EXPECT_FALSE(compiles(cudatest::storeThenReload(4, 64), persistent).persistent) << "a pass reads the row backwards";
    EXPECT_TRUE(compiles(cudatest::softmaxConstant(8192, 8192)).persistent) << "on by default (measured faster)";
    CudaTuning longRows;
    longRows.rowRegisters = 32;
    EXPECT_TRUE(compiles(cudatest::softmaxConstant(64, 32768), longRows).persistent) << "8 vectors a thread: 32 registers of row";
    EXPECT_FALSE(compiles(cudatest::softmaxConstant(64, 65536), longRows).persistent) << "16 vectors a thread: 64 registers of row";
    EXPECT_FALSE(compiles(cudatest::softmaxConstant(64, 32768)).persistent) << "by default (row_registers=16) at most 4 vectors";
}

// A bias gradient's column sum over 8192 rows of 768: generated as rows with column partials in registers (64 x 4
// threads a block, a piece a block) and a finish, not as 24 blocks of 32 columns.
TEST_F(CudaCodegenCompile, ColumnSumsOfFewColumnsRunAsRowsWithPartials) {
    const CudaKernelCode code = compiles(cudatest::biasGradientLike(8, 1024, 768, DType::BFloat16));
    EXPECT_TRUE(code.columnsAsRows && code.piecePerBlock && code.strategy == CudaStrategy::RowReduction);
    EXPECT_EQ(code.outerPartials, 2);
    EXPECT_EQ(code.blockX * 100 + code.blockY, 6404u) << "blocks of 64 x 4 threads";
    EXPECT_NE(code.source.find("cwb_red_fused_sum_to_0_finish("), std::string::npos);
    EXPECT_NE(code.source.find("*reinterpret_cast<const cwb_vec<cwb_bf16, 8>*>(tangents_1 + "), std::string::npos) << code.source;
    const eng::cuda::LaunchShape shape = code.launchShape({}, 132);
    EXPECT_EQ(shape.gridX, 512u) << "about a wave of blocks over the 2048 row groups";
    EXPECT_EQ(code.finishShape({}).gridX, 24u);
    EXPECT_TRUE(compiles(cudatest::biasGradientLike(8192, 1, 3072, DType::BFloat16)).columnsAsRows);
    EXPECT_TRUE(compiles(cudatest::biasGradientLike(4, 1024, 2304, DType::Float32)).columnsAsRows);
    CudaTuning off;
    off.columnPartials = false;
    EXPECT_EQ(compiles(cudatest::biasGradientLike(8, 1024, 768, DType::BFloat16), off).strategy, CudaStrategy::ColumnReduction);
    EXPECT_FALSE(compiles(cudatest::biasGradientLike(8, 1024, 771, DType::BFloat16)).columnsAsRows) << "odd columns: partials not in registers";
    EXPECT_FALSE(compiles(cudatest::biasGradientLike(8, 1024, 16384, DType::Float32)).columnsAsRows) << "enough columns to fill the grid";
    EXPECT_FALSE(compiles(cudatest::biasGradientLike(2, 64, 768, DType::Float32)).columnsAsRows) << "too few rows";
    EXPECT_FALSE(compiles(columnSumAndArgmax(4096, 64)).columnsAsRows) << "an argmax";
}

// cross_entropy's backward over GPT-2's padded logits: 50257 bfloat16 a row at a pitch of 50264, 6282 vectors of 8 on
// 1024 threads (7 a thread, 28 registers) kept across the three passes, the one element past them a scalar tail.
TEST_F(CudaCodegenCompile, LongRowsWithATailStayInRegisters) {
    CudaTuning longRows;
    longRows.rowRegisters = 32;
    const CudaKernelCode code = compiles(cudatest::crossEntropyBackwardLike(8192, 50257, 50264, 50304, DType::BFloat16), longRows);
    EXPECT_TRUE(code.persistent);
    EXPECT_EQ(code.vectorWidth, 8);
    EXPECT_EQ(code.source.find("row_vectors"), std::string::npos) << "every row start is a multiple of 8";
    EXPECT_EQ(count(code.source, "[it] = *reinterpret_cast<const cwb_vec<cwb_bf16, 8>*>(arg0_1 + x0 * 50264 + rbase);"), 1)
        << "the row is read from memory once" << code.source;
    EXPECT_EQ(count(code.source, "for (int it = 0; it < 7; ++it) {"), 3);
    EXPECT_EQ(count(code.source, "for (int rindex = 50256 + threadIdx.x; rindex < reduce_count; rindex += 1024) {"), 3) << "a tail a pass";
    CudaTuning earlier;
    earlier.rowRegisters = 16;
    const CudaKernelCode streaming = compiles(cudatest::crossEntropyBackwardLike(8192, 50257, 50264, 50304, DType::BFloat16), earlier);
    EXPECT_FALSE(streaming.persistent);
    EXPECT_EQ(count(streaming.source, "*reinterpret_cast<const cwb_vec<cwb_bf16, 8>*>(arg0_1 + x0 * 50264 + rbase)"), 3) << "read in every pass";
    // An odd pitch (the saved logits of the training graph, contiguous): row starts vary in alignment, so no tail kept
    // beside registers; the max and sum passes read vectors from the aligned one at or before the row's start
    // (shifted_rows), the store pass vectors on aligned rows and the scalar loop on the others.
    CudaTuning shiftedRows = longRows;
    shiftedRows.shiftedRows = true;
    const CudaKernelCode shifted = compiles(cudatest::crossEntropyBackwardLike(64, 50257, 50257, 50304, DType::BFloat16), shiftedRows);
    EXPECT_FALSE(shifted.persistent);
    EXPECT_EQ(count(shifted.source, "const int shift = (x0 * 50257) % 8;"), 2) << shifted.source;
    EXPECT_EQ(count(shifted.source, "const int rbase = rvec * 8 - shift;"), 2);
    EXPECT_EQ(count(shifted.source, "if (rindex >= 0 && rindex < reduce_count) {"), 2);
    EXPECT_EQ(count(shifted.source, "for (int rindex"), 1) << "the store pass's scalar loop";
    EXPECT_EQ(count(shifted.source, "*reinterpret_cast<const cwb_vec<cwb_bf16, 8>*>(arg0_1 + x0 * 50257 + rbase)"), 3);
    EXPECT_EQ(count(compiles(cudatest::crossEntropyBackwardLike(64, 50257, 50257, 50304, DType::BFloat16)).source, "for (int rindex"), 3) << "off by default";
    EXPECT_TRUE(compiles(cudatest::crossEntropyBackwardLike(64, 25000, 25000, 25000, DType::Float32), longRows).persistent) << "7 vectors of 4 floats";
}

TEST_F(CudaCodegenCompile, OnlineSoftmaxReadsTheRowOnceForMaxAndSum) {
    CudaTuning online;
    online.onlineSoftmax = true;
    const CudaKernelCode code = compiles(cudatest::softmaxConstant(64, 8192), online);
    EXPECT_NE(code.source.find("red1 = sum of exp(x - red0) in the same read (online softmax)"), std::string::npos) << code.source;
    EXPECT_NE(code.source.find("cwb_online<float> acc0 = cwb_online<float>{"), std::string::npos);
    EXPECT_NE(code.source.find("cwb_reduce_x<512>(acc0, cwb_online_combine(), reinterpret_cast<cwb_online<float>*>(scratch + cwb_area))"), std::string::npos);
    EXPECT_NE(code.source.find("const float red1 = cwb_online_sum(acc0, reduce_count);"), std::string::npos);
    EXPECT_EQ(code.source.find("cwb_sum()"), std::string::npos);
    EXPECT_NE(code.source.find("acc0 = cwb_online_add(acc0, acc0_lanes);"), std::string::npos) << "a vector's lanes at once";
    EXPECT_EQ(compiles(cudatest::softmaxConstant(64, 8192)).source.find("= cwb_online_add(acc"), std::string::npos) << "off by default";
    // Masked rows (where(..., -inf)) and column softmax take the same path; a sum of exp of anything but the
    // max's own value minus the max stays a pass of its own.
    EXPECT_NE(compiles(cudatest::maskedSoftmax(16, 100), online).source.find("cwb_online_add(acc0, "), std::string::npos);
    {
        const std::string column = compiles(cudatest::columnSoftmax(300, 40), online).source;
        EXPECT_NE(column.find("cwb_reduce_y<32, 32>(acc0, cwb_online_combine()"), std::string::npos) << column;
    }
    Kernel unshifted = cudatest::softmaxConstant(64, 8192);
    unshifted.passes[1].reductions[0].value = unary(ElementOp::Exp, load(0, x(0) * c(8192) + x(1), DType::Float32));
    EXPECT_EQ(compiles(unshifted, online).source.find("= cwb_online_add(acc"), std::string::npos);
}

TEST_F(CudaCodegenCompile, BlockReductionsAlternateScratchAreasInsteadOfAClosingBarrier) {
    // max then a sum (not of exp(x - max): no online pair), each combined across 16 warps; the second uses the
    // other half of scratch.
    Kernel twoReductions = cudatest::softmaxConstant(64, 8192);
    twoReductions.passes[1].reductions[0].value = unary(ElementOp::Exp, load(0, x(0) * c(8192) + x(1), DType::Float32));
    const CudaKernelCode softmax = compiles(twoReductions);
    EXPECT_NE(softmax.source.find("__shared__ unsigned char scratch[1024]"), std::string::npos) << softmax.source;
    EXPECT_NE(softmax.source.find("cwb_reduce_x<512>(acc0, cwb_max(), reinterpret_cast<float*>(scratch))"), std::string::npos);
    EXPECT_NE(softmax.source.find("cwb_reduce_x<512>(acc1, cwb_sum(), reinterpret_cast<float*>(scratch + 512))"), std::string::npos);
    EXPECT_EQ(softmax.source.find("the next row group reuses"), std::string::npos) << "an even count needs no barrier";
    // One reduction per row group: the areas swap roles from one group to the next instead of a closing barrier.
    const CudaKernelCode sum = compiles(cudatest::fullSum(100000));
    EXPECT_NE(sum.source.find("int cwb_area = 0;"), std::string::npos) << sum.source;
    EXPECT_NE(sum.source.find("reinterpret_cast<float*>(scratch + cwb_area));\n    cwb_area ^= 512;"), std::string::npos) << sum.source;
    EXPECT_EQ(count(sum.source.substr(sum.source.find("extern \"C\"")), "__syncthreads"), 0) << sum.source;
}

TEST_F(CudaCodegenCompile, ColumnPartialsBesideRowReductionsReadTheInputOnce) {
    // B6's [8192, 8192]: 512 threads a row, each reading the same 4 vectors of every row, so its 16 column partials of
    // each reduction stay in registers; one load of the input per vector feeds the row sum and every partial.
    const CudaKernelCode code = compiles(cudatest::rowAndColumnReductions(8192, 8192));
    EXPECT_EQ(code.strategy, CudaStrategy::RowReduction);
    EXPECT_EQ(code.outerPartials, 3);
    EXPECT_EQ(count(code.source, "*reinterpret_cast<const cwb_vec<float, 4>*>(arg0_1 + x0 * 8192 + rbase)"), 1) << code.source;
    EXPECT_NE(code.source.find("float cwb_col1[16];"), std::string::npos) << code.source;
    EXPECT_NE(code.source.find("cwb_u64 cwb_col3[16];"), std::string::npos);
    EXPECT_NE(code.source.find("cwb_col1[it * 4 + k] = cwb_col1[it * 4 + k] + "), std::string::npos);
    EXPECT_EQ(count(code.source, "for (int rindex"), 0) << "no scalar tail";
    EXPECT_EQ(count(code.source, "if (rvec < "), 0) << "every thread has 4 whole vectors a row: no bounds checks";
    EXPECT_NE(code.source.find("*reinterpret_cast<cwb_vec<float, 4>*>(cwb_part1 + rvec * 4 + 0) = cwb_vec<float, 4>{{cwb_col1[it * 4 + 0], "),
              std::string::npos) << "partials leave as 16-byte stores";
    EXPECT_NE(code.source.find("*reinterpret_cast<cwb_vec<cwb_u64, 2>*>(cwb_part3 + rvec * 4 + 2) = "), std::string::npos);
    EXPECT_NE(code.source.find("extern \"C\" __global__ void __launch_bounds__(1024) cwb_red_fused_amax_mean_mul_sum_0_finish("), std::string::npos);
    // About one wave of 1024 threads per multiprocessor, so that the pieces' partials stay small: 8192 rows take
    // 32 rounds on 264 blocks, so 256 blocks of 32 rows each.
    EXPECT_EQ(code.launchText({}, 132), "grid=(256, 1, 1) block=(512, 1, 1), then cwb_red_fused_amax_mean_mul_sum_0_finish grid=(256, 1, 1) block=(32, 32, 1)");
    EXPECT_EQ(code.workspaceBytes(code.launchShape({}, 132), {}), size_t{3} * 256 * 8192 * 8);
    CudaTuning wider;
    wider.partialThreadsPerSm = 2048;
    EXPECT_EQ(compiles(cudatest::rowAndColumnReductions(8192, 8192), wider).launchShape({}, 132).gridX, 512u);
    // Rows of 13 (not whole vectors) or of a symbolic length: each thread keeps its partials in its piece's row of
    // the workspace, reading the same columns of every row (no vectors where row starts vary).
    for (const Kernel& kernel : {cudatest::rowAndColumnReductions(5, 13), cudatest::rowAndColumnReductions(5, 13, true)}) {
        const CudaKernelCode general = compiles(kernel);
        EXPECT_NE(general.source.find("cwb_part1[rindex] = cwb_part1[rindex] + "), std::string::npos) << general.source;
        EXPECT_EQ(general.source.find("cwb_col1"), std::string::npos);
        EXPECT_EQ(general.source.find("row_vectors"), std::string::npos);
        EXPECT_EQ(general.vectorWidth, 1);
    }
}

TEST_F(CudaCodegenCompile, ColumnPartialsCombinedInTheBlock) {
    // GPT-2's layer-norm backward, [8192, 768] bfloat16: 64 threads a row (two vector steps of 8, the second for 32
    // of them), 4 rows of threads a block. The rows combine their partials in shared memory in row order and the
    // block writes one piece: 512 pieces of 768 columns per reduction, not 2048.
    const CudaKernelCode code = compiles(cudatest::layerNormBackwardLike(8192, 768, DType::BFloat16));
    EXPECT_EQ(code.blockX, 64u);
    EXPECT_EQ(code.blockY, 4u);
    EXPECT_TRUE(code.piecePerBlock);
    EXPECT_NE(code.source.find("const int cwb_piece = blockIdx.x;"), std::string::npos) << code.source;
    EXPECT_NE(code.source.find("alignas(16) __shared__ unsigned char cwb_combine[8192];"), std::string::npos) << code.source;
    EXPECT_NE(code.source.find("for (int y = 1; y < 4; ++y) acc = cwb_max()(acc, cwb_sh[y * 512 + c]);"), std::string::npos) << code.source;
    EXPECT_NE(code.source.find("if (col < reduce_count) {"), std::string::npos) << "the second step's columns end at 768";
    const auto shape = code.launchShape({}, 132);
    EXPECT_EQ(shape.gridX, 512u);
    EXPECT_EQ(code.pieces(shape), 512);
    EXPECT_EQ(code.workspaceBytes(shape, {}), size_t{3} * 512 * 768 * 8);
    // block_partials=0: a piece a row of threads (2048), for measuring against.
    CudaTuning rows;
    rows.blockPartials = false;
    const CudaKernelCode apart = compiles(cudatest::layerNormBackwardLike(8192, 768, DType::BFloat16), rows);
    EXPECT_FALSE(apart.piecePerBlock);
    EXPECT_EQ(apart.source.find("cwb_combine"), std::string::npos);
    EXPECT_EQ(apart.pieces(apart.launchShape({}, 132)), 2048);
    // Whole vector steps (rows of 512 float32: 32 threads, 4 steps each): no column check.
    const CudaKernelCode whole = compiles(cudatest::layerNormBackwardLike(1000, 512, DType::Float32));
    EXPECT_TRUE(whole.piecePerBlock);
    EXPECT_EQ(whole.source.find("if (col < reduce_count)"), std::string::npos) << whole.source;
    // One row of threads a block (B6's rows of 8192) and partials in the workspace (rows of 13): a piece per row of
    // threads, as before.
    const CudaKernelCode b6 = compiles(cudatest::rowAndColumnReductions(8192, 8192));
    EXPECT_FALSE(b6.piecePerBlock);
    EXPECT_EQ(b6.source.find("cwb_combine"), std::string::npos);
    const CudaKernelCode general = compiles(cudatest::layerNormBackwardLike(100, 13, DType::BFloat16));
    EXPECT_FALSE(general.piecePerBlock);
    EXPECT_EQ(general.pieces(general.launchShape({}, 132)), int64_t{general.launchShape({}, 132).gridX} * general.blockY);
}

TEST_F(CudaCodegenCompile, KernelsWithoutOuterRanges) {
    EXPECT_EQ(compiles(cudatest::fullSum(1000)).launchText({}), "grid=(1, 1, 1) block=(64, 1, 1)");
    EXPECT_EQ(compiles(cudatest::fillScalar()).launchText({}), "grid=(1, 1, 1) block=(256, 1, 1)");
}

TEST_F(CudaCodegenCompile, PassesReadingEarlierStoresSynchronise) {
    EXPECT_NE(compiles(cudatest::storeThenReload(4, 70)).source.find("__syncthreads();  // a later pass"), std::string::npos);
    EXPECT_EQ(generateCudaKernel(softmaxRows(4)).source.find("__syncthreads();  // a later pass"), std::string::npos);
}

TEST_F(CudaCodegenCompile, MalformedKernelsAreRejected) {
    Kernel bad = pointwiseChain(10);
    bad.passes[0].stores[0].buffer = 7;
    EXPECT_THROW(generateCudaKernel(bad), std::logic_error);
}

}  // namespace
}  // namespace eng::inductor::cuda
