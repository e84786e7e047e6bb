// GPU (skipped without one): generated kernels run on random inputs (NaN/inf included, sizes off the vector
// width, outer sizes from 1 to large) and match interpretKernel: integers and bools bit for bit, floats within
// a few ulp, reassociated float reductions within a relative tolerance.
#include <tuple>

#include <gtest/gtest.h>

#include "cuda_test_kernels.h"
#include "cuda_test_support.h"

namespace eng::inductor::cudatest {
namespace {

using namespace samples;

class CudaCodegenRun : public ::testing::Test {
protected:
    void SetUp() override {
        if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA: " << eng::cuda::driverStatus().reason;
    }
};

// Sums and products are reassociated across threads: compare them relative to the result, and absolutely
// by the reduction length (a sum that cancels to near zero keeps the rounding errors of its large partials).
RunOptions reductionOptions(int64_t length, uint32_t seed = 1) {
    RunOptions options;
    options.tolerance.relative = 1e-4;
    options.tolerance.absolute = std::max(1e-5, 2e-6 * static_cast<double>(length));
    options.seed = seed;
    return options;
}

TEST_F(CudaCodegenRun, PointwiseChainManySizes) {
    for (int64_t n : {1, 3, 4, 5, 1000, 1003, 4099, (1 << 20) + 7}) {
        SCOPED_TRACE(n);
        runAndCompare(pointwiseChain(n), {});
    }
}

TEST_F(CudaCodegenRun, PointwiseChainUnalignedBuffersTakeTheScalarPath) {
    RunOptions options;
    options.offsetElements = 1;
    runAndCompare(pointwiseChain(1003), {}, options);
}

TEST_F(CudaCodegenRun, PointwiseChainTunings) {
    for (auto [block, perThread, vectors] : {std::tuple{128, 16, true}, std::tuple{512, 8, true}, std::tuple{64, 0, false}}) {
        RunOptions options;
        options.tuning.blockSize = block;
        options.tuning.elementsPerThread = perThread;
        options.tuning.allowVectorized = vectors;
        runAndCompare(pointwiseChain(100003), {}, options);
    }
}

TEST_F(CudaCodegenRun, ComboKernelRunsEachPartOnItsBlocks) {
    for (int64_t s0 : {1, 2, 37, 5000}) runAndCompare(comboOfThreeSizes(), {{"s0", s0}});
    RunOptions unaligned;  // the scalar path in every part
    unaligned.offsetElements = 1;
    runAndCompare(comboOfThreeSizes(), {{"s0", 37}}, unaligned);
    RunOptions tuned;
    tuned.tuning.blockSize = 128;
    tuned.tuning.elementsPerThread = 16;
    runAndCompare(comboOfThreeSizes(), {{"s0", 300}}, tuned);
}

TEST_F(CudaCodegenRun, ComboPartsSharingABodyRunEachOnItsOwnBuffersAndExtent) {
    runAndCompare(comboOfSharedBodies(), {});
    RunOptions unaligned;  // the bodies' alignment checks take their scalar loops
    unaligned.offsetElements = 1;
    runAndCompare(comboOfSharedBodies(), {}, unaligned);
}

TEST_F(CudaCodegenRun, BroadcastAndTransposedLoads) {
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{7, 13}, std::pair{300, 257}}) runAndCompare(broadcastAddTransposed(rows, cols), {});
}

TEST_F(CudaCodegenRun, EveryUnaryFloatOp) {
    // gelu's 1 + erf(x/sqrt(2)) cancels in the negative tail, so erf's few ulps there become a relative error of
    // up to ~1.5e-5 (float32, seen on an H200) between CUDA's libm and the host's, as between PyTorch's CUDA and
    // CPU gelu. Float32 therefore also passes within torch.testing.assert_close's defaults (atol 1e-5, rtol 1.3e-6).
    for (auto [dtype, relative, absolute] : {std::tuple{DType::Float32, 1.3e-6, 1e-5}, std::tuple{DType::Float64, 1e-13, 0.0}}) {
        RunOptions options;
        options.tolerance.relative = relative;
        options.tolerance.absolute = absolute;
        runAndCompare(allUnaryFloat(1027, dtype), {}, options);
    }
    RunOptions options;
    options.tolerance.ulps16 = 1;
    runAndCompare(allUnaryFloat(1027, DType::Float16), {}, options);
}

TEST_F(CudaCodegenRun, EveryBinaryFloatOp) {
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) runAndCompare(allBinaryFloat(2051, dtype), {});
    RunOptions ties;  // equal operands: maximum/minimum, comparisons and mod on exact values
    ties.fill.ties = true;
    runAndCompare(allBinaryFloat(2051, DType::Float32), {}, ties);
}

TEST_F(CudaCodegenRun, IntegerAndBoolOpsAreBitExact) {
    for (DType dtype : {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64}) {
        SCOPED_TRACE(tensor::dtypeName(dtype));
        runAndCompare(allIntegerOps(1031, dtype), {});
    }
    runAndCompare(boolOps(1031), {});
}

TEST_F(CudaCodegenRun, CastsMatchTheInterpreter) { runAndCompare(casts(2053), {}); }

TEST_F(CudaCodegenRun, HalfAndBFloat16Math) {
    RunOptions options;
    options.tolerance.ulps16 = 2;  // two chained 16-bit roundings
    runAndCompare(halfMath(4103), {}, options);
}

TEST_F(CudaCodegenRun, IndexValuesAndBroadcastScalar) {
    runAndCompare(indexValues3d(1, 1, 1), {});
    runAndCompare(indexValues3d(3, 5, 7), {});
    runAndCompare(indexValues3d(17, 33, 65), {});
}

TEST_F(CudaCodegenRun, CatOfSlicesLoadsOnlyTheTakenSide) {
    runAndCompare(catOfThreeSlices(1, 8), {});
    runAndCompare(catOfThreeSlices(33, 768), {});
}

TEST_F(CudaCodegenRun, StoreVectorsAlongTheInnermostDim) {
    // Cats of slices (bf16) whose rows are whole vectors (stores as vectors) or not (12: one element a thread);
    // pitched rows plus a bias in both dtypes, vector loads where rows start on vectors; a transposed float32 load.
    for (auto [rows, cols] : {std::pair{1, 8}, std::pair{7, 40}, std::pair{3, 12}, std::pair{65, 256}}) {
        SCOPED_TRACE(fmt::format("cat {}x{}", rows, cols));
        runAndCompare(catOfThreeSlices(rows, cols), {});
    }
    for (DType dtype : {DType::BFloat16, DType::Float32})
        for (auto [rows, cols, pitch] : {std::tuple{1, 8, 8}, std::tuple{9, 64, 72}, std::tuple{9, 64, 67}, std::tuple{17, 24, 24}, std::tuple{2, 10, 11}}) {
            SCOPED_TRACE(fmt::format("{} {}x{} pitch {}", tensor::dtypeName(dtype), rows, cols, pitch));
            runAndCompare(pitchedRowsPlusBias(rows, cols, pitch, dtype), {});
        }
    for (auto [rows, cols] : {std::pair{300, 256}, std::pair{3, 4}}) runAndCompare(broadcastAddTransposed(rows, cols), {});
    RunOptions offset;
    offset.offsetElements = 1;  // unaligned buffers: the variant without vectors
    runAndCompare(catOfThreeSlices(7, 40), {}, offset);
}

TEST_F(CudaCodegenRun, CatPiecesOfWholeVectorsLoadVectors) {
    // Cats whose pieces are whole vectors (one branch a vector, 16-byte loads), pieces read through heads of 64 (both
    // layouts) or 4 (branches, element loads; also 8 apart in padded rows), a piece ending inside a vector (the where
    // lane by lane); each also with where_vectors=0 and on unaligned buffers.
    RunOptions lanes, offset;
    lanes.tuning.whereVectors = false;
    offset.offsetElements = 1;
    for (const RunOptions& options : {RunOptions{}, lanes, offset}) {
        runAndCompare(catOfPieces(7, {8, 16, 24}, DType::BFloat16), {}, options);
        runAndCompare(catOfPieces(5, {4, 8, 12}, DType::Float32), {}, options);
        runAndCompare(catOfPieces(9, {4, 12}, DType::BFloat16), {}, options);
        runAndCompare(catOfHeadViews(2, 5, 12, 64, false), {}, options);
        runAndCompare(catOfHeadViews(2, 5, 12, 64, true), {}, options);
        runAndCompare(catOfHeadViews(3, 4, 6, 4, false), {}, options);
        runAndCompare(catOfHeadViews(3, 4, 6, 4, true), {}, options);
        runAndCompare(catOfHeadViews(3, 4, 6, 4, false, 8), {}, options);
    }
    runAndCompare(catOfThreeSlices(65, 768), {});
}

TEST_F(CudaCodegenRun, InPlaceSymbolicSizes) {
    for (int64_t n : {1, 2, 5, 4097, 1 << 20}) runAndCompare(inPlaceSymbolic(), {{"s0", n}});
}

TEST_F(CudaCodegenRun, SoftmaxRows) {
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{1, 5}, std::pair{5, 1000}, std::pair{64, 8195}, std::pair{3000, 33}}) {
        SCOPED_TRACE(fmt::format("{}x{}", rows, cols));
        runAndCompare(softmaxRows(rows), {{"s0", cols}}, reductionOptions(cols));
    }
    RunOptions wide = reductionOptions(3000);
    wide.tuning.blockSize = 1024;
    wide.tuning.elementsPerThread = 1;
    runAndCompare(softmaxRows(37), {{"s0", 3000}}, wide);
}

// Softmax with -inf among the values (masked-out tails, a row with one finite element, a row of -inf only: NaN,
// as eagerly) in float32 and float64, on rows of one warp and of a block, three passes or online; online softmax
// also on NaN/inf-filled rows and columns.
TEST_F(CudaCodegenRun, MaskedAndOnlineSoftmaxKeepEagerInfinities) {
    for (bool online : {false, true}) {
        for (DType dtype : {DType::Float32, DType::Float64}) {
            for (auto [rows, cols] : {std::pair{40, 33}, std::pair{9, 5000}, std::pair{70, 64}}) {
                SCOPED_TRACE(fmt::format("online {} {} {}x{}", online, tensor::dtypeName(dtype), rows, cols));
                RunOptions options = reductionOptions(cols);
                options.fill.specials = false;
                options.tuning.onlineSoftmax = online;
                runAndCompare(maskedSoftmax(rows, cols, dtype), {}, options);
            }
        }
    }
    for (auto [rows, cols] : {std::pair{5, 1000}, std::pair{64, 8195}, std::pair{3000, 33}}) {
        RunOptions options = reductionOptions(cols);
        options.tuning.onlineSoftmax = true;
        runAndCompare(softmaxRows(rows), {{"s0", cols}}, options);
        options.tuning.persistentRows = true;
        runAndCompare(softmaxConstant(rows, cols), {}, options);
    }
    RunOptions columns = reductionOptions(300);
    columns.tuning.onlineSoftmax = true;
    runAndCompare(columnSoftmax(300, 40), {}, columns);
}

TEST_F(CudaCodegenRun, RowReductionsOnUnalignedOrScalarPaths) {
    RunOptions unaligned = reductionOptions(1000);
    unaligned.offsetElements = 1;  // every row misaligned: the scalar loop does all
    runAndCompare(softmaxRows(5), {{"s0", 1000}}, unaligned);
    RunOptions scalar = reductionOptions(1000);
    scalar.tuning.allowVectorized = false;
    runAndCompare(softmaxRows(5), {{"s0", 1000}}, scalar);
    // Odd row lengths: only rows whose start is a multiple of 4 take the vector loop.
    runAndCompare(softmaxRows(9), {{"s0", 1001}}, reductionOptions(1001));
}

TEST_F(CudaCodegenRun, PersistentRows) {
    for (bool persistent : {false, true}) {
        for (auto [rows, cols] : {std::pair{1, 4}, std::pair{7, 64}, std::pair{33, 1000}, std::pair{5, 8192}, std::pair{3, 1001}}) {
            SCOPED_TRACE(fmt::format("persistent {} {}x{}", persistent, rows, cols));
            RunOptions options = reductionOptions(cols);
            options.tuning.persistentRows = persistent;
            runAndCompare(softmaxConstant(rows, cols), {}, options);
            options.offsetElements = 1;  // misaligned rows: the re-reading branch
            runAndCompare(softmaxConstant(rows, cols), {}, options);
        }
    }
    RunOptions options = reductionOptions(1024);
    options.fill.specials = false;
    options.tolerance.absolute = 1e-3;
    options.tuning.persistentRows = true;
    runAndCompare(layerNormBf16(37, 1024), {}, options);
}

// cross_entropy's backward form on rows longer than 16 elements a thread of 1024: in registers with a scalar tail
// (pitched rows whose length is not whole vectors), streamed (row_registers=16, and rows of an odd pitch, whose
// alignment varies: vectors shifted to an aligned start, or the scalar loop with shifted_rows=0), bfloat16 and
// float32, with and without vectors, short rows of one warp too.
TEST_F(CudaCodegenRun, LongRowsInRegistersWithATail) {
    struct Shape {
        int64_t rows, cols, pitch, outPitch;
    };
    for (DType dtype : {DType::BFloat16, DType::Float32}) {
        for (Shape s : {Shape{5, 50257, 50264, 50304}, Shape{3, 20001, 20008, 20008}, Shape{2, 32768, 32768, 32768}, Shape{9, 20001, 20001, 20003},
                        Shape{9, 1003, 1003, 1008}, Shape{5, 7, 7, 7}}) {
            for (int registers : {32, 16}) {
                for (bool shifted : {true, false}) {
                    SCOPED_TRACE(fmt::format("{} {}x{} pitch {} out {} row_registers {} shifted_rows {}", tensor::dtypeName(dtype), s.rows, s.cols, s.pitch,
                                             s.outPitch, registers, shifted));
                    RunOptions options = reductionOptions(s.cols);
                    options.fill.specials = false;
                    options.tolerance.absolute = dtype == DType::BFloat16 ? 1e-2 : 1e-5;
                    options.tuning.rowRegisters = registers;
                    options.tuning.shiftedRows = shifted;
                    runAndCompare(crossEntropyBackwardLike(s.rows, s.cols, s.pitch, s.outPitch, dtype), {}, options);
                }
            }
        }
    }
    RunOptions scalar = reductionOptions(20001);
    scalar.fill.specials = false;
    scalar.tuning.allowVectorized = false;
    runAndCompare(crossEntropyBackwardLike(3, 20001, 20008, 20008, DType::Float32), {}, scalar);
}

// Bias-gradient column reductions as rows with column partials (column_partials, on) and in the column form, bfloat16
// and float32, columns that are whole vectors and odd ones (the column form then), rows of one and two variables.
TEST_F(CudaCodegenRun, ColumnSumsAsRowsWithPartials) {
    for (DType dtype : {DType::BFloat16, DType::Float32}) {
        for (auto [a, b, cols] : {std::tuple{8, 512, 768}, std::tuple{4097, 1, 64}, std::tuple{3, 300, 2304}, std::tuple{2, 700, 771}, std::tuple{1, 256, 8}}) {
            for (bool rows : {true, false}) {
                SCOPED_TRACE(fmt::format("{} [{}, {}, {}] column_partials {}", tensor::dtypeName(dtype), a, b, cols, rows));
                RunOptions options = reductionOptions(int64_t{a} * b);
                options.fill.specials = false;
                options.tolerance.absolute = dtype == DType::BFloat16 ? 0.05 * std::sqrt(double(a) * b) : 1e-3;
                options.tuning.columnPartials = rows;
                runAndCompare(biasGradientLike(a, b, cols, dtype), {}, options);
            }
        }
    }
}

TEST_F(CudaCodegenRun, KernelsWithoutOuterRanges) {
    for (int64_t n : {1, 7, 100000}) runAndCompare(fullSum(n), {}, reductionOptions(n));
    runAndCompare(fillScalar(), {});
}

TEST_F(CudaCodegenRun, FullSumsReadingRowBuffers) {
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{6, 10}, std::pair{37, 300}}) runAndCompare(fullSumsOfRows(rows, cols), {}, reductionOptions(rows * cols));
}

TEST_F(CudaCodegenRun, LayerNormBf16) {
    RunOptions options = reductionOptions(4096);
    options.fill.specials = false;  // one NaN would turn a whole row NaN: tested elsewhere
    // x - mean cancels where x is near the mean: the reassociated mean's error is absolute, not relative.
    options.tolerance.absolute = 1e-3;
    for (auto [rows, cols] : {std::pair{1, 64}, std::pair{3, 64}, std::pair{1000, 64}, std::pair{9, 4096}, std::pair{5, 777}}) {
        SCOPED_TRACE(fmt::format("{}x{}", rows, cols));
        runAndCompare(layerNormBf16(rows, cols), {}, options);
    }
}

TEST_F(CudaCodegenRun, ColumnSumAndArgmax) {
    RunOptions ties = reductionOptions(0);
    ties.fill.ties = true;
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{9, 6}, std::pair{1000, 70}, std::pair{4096, 300}, std::pair{3, 2000}}) {
        SCOPED_TRACE(fmt::format("{}x{}", rows, cols));
        runAndCompare(columnSumAndArgmax(rows, cols), {}, reductionOptions(rows));
        runAndCompare(columnSumAndArgmax(rows, cols), {}, ties);
    }
}

TEST_F(CudaCodegenRun, IntegerWhereAndAny) {
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{4, 11}, std::pair{513, 300}}) runAndCompare(integerWhereAndAny(rows, cols), {});
}

TEST_F(CudaCodegenRun, EveryReductionOpRowsAndColumns) {
    for (bool rows : {true, false}) {
        for (bool ties : {false, true}) {
            for (auto [outer, length] : {std::pair{1, 1}, std::pair{1, 3000}, std::pair{7, 33}, std::pair{300, 1000}, std::pair{5000, 7}}) {
                SCOPED_TRACE(fmt::format("rows {} ties {} {}x{}", rows, ties, outer, length));
                RunOptions options = reductionOptions(length, static_cast<uint32_t>(outer + length));
                options.fill.ties = ties;
                runAndCompare(everyReduction(outer, rows, true), {{"s0", length}}, options);
            }
        }
        // An empty reduction range gives each op's identity (max/argmax of nothing is an error).
        runAndCompare(everyReduction(5, rows, false), {{"s0", 0}}, reductionOptions(0));
    }
}

TEST_F(CudaCodegenRun, IntegerReductionsWrapLikeTheInterpreter) {
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{6, 40}, std::pair{100, 5000}}) runAndCompare(integerReductions(rows, cols), {});
}

TEST_F(CudaCodegenRun, MultiDimensionalReductionRange) {
    RunOptions ties = reductionOptions(2100);
    ties.fill.ties = true;
    for (auto [a, b, cc] : {std::tuple{1, 1, 1}, std::tuple{3, 4, 5}, std::tuple{50, 30, 70}}) runAndCompare(multiDimReduction(a, b, cc), {}, ties);
}

TEST_F(CudaCodegenRun, ColumnSoftmax) {
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{9, 40}, std::pair{1000, 33}, std::pair{64, 1000}})
        runAndCompare(columnSoftmax(rows, cols), {}, reductionOptions(rows));
}

TEST_F(CudaCodegenRun, ColumnPartialsBesideRowReductions) {
    // Registers (whole aligned vectors), the workspace (13 and 517 columns, a symbolic length), one row, more
    // pieces than rows, and rows of 8192 over several row groups per piece.
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{5, 13}, std::pair{300, 517}, std::pair{256, 512}, std::pair{3, 8192}, std::pair{700, 8192}}) {
        SCOPED_TRACE(fmt::format("{}x{}", rows, cols));
        runAndCompare(cudatest::rowAndColumnReductions(rows, cols), {}, reductionOptions(std::max(rows, cols)));
    }
    runAndCompare(cudatest::rowAndColumnReductions(300, 0, true), {{"s0", 517}}, reductionOptions(517));
}

TEST_F(CudaCodegenRun, ColumnPartialsCombinedInTheBlock) {
    // A layer-norm backward's column sums and maxima, in bfloat16 and float32: rows of 768 and 512 (several rows of
    // threads a block combine their partials in shared memory: whole and partial vector steps), 40 and 8 (one
    // vector step, threads past the row's vectors), 13 (the workspace path, no combine); rows from 1 to more than
    // a wave of blocks.
    RunOptions options = reductionOptions(2049);
    options.fill.specials = false;  // a NaN turns a whole row's input gradient NaN: tested elsewhere
    for (DType dtype : {DType::BFloat16, DType::Float32})
        for (int64_t cols : {768, 512, 40, 8, 13})
            for (int64_t rows : {1, 5, 257, 2049}) {
                SCOPED_TRACE(fmt::format("{} {}x{}", tensor::dtypeName(dtype), rows, cols));
                runAndCompare(cudatest::layerNormBackwardLike(rows, cols, dtype), {}, options);
            }
    options.tuning.blockPartials = false;  // block_partials=0: a piece a row of threads
    runAndCompare(cudatest::layerNormBackwardLike(257, 768, DType::BFloat16), {}, options);
}

TEST_F(CudaCodegenRun, LaterPassesSeeEarlierStores) {
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{4, 70}, std::pair{33, 2500}}) runAndCompare(storeThenReload(rows, cols), {}, reductionOptions(cols));
}

}  // namespace
}  // namespace eng::inductor::cudatest
