// reshapedRowsIndex (the scheduler's test for a pointwise buffer over a row kernel's input with the rows reshaped):
// [8, 1024, 50257] beside reductions over [8192, 50257] rows is indexed from the flat row number, and its body's
// re-linearised row folds back to the kernel's row variable; other row counts, the same sizes, and kernels whose
// reduced dims are not the trailing ones are not.
#include <gtest/gtest.h>

#include "inductor/reshaped_rows.h"

namespace {

using namespace eng::inductor;

std::vector<Index> constants(std::vector<int64_t> sizes) {
    std::vector<Index> out;
    for (int64_t s : sizes) out.push_back(indexConstant(s));
    return out;
}

TEST(ReshapedRows, SplitRowsComeFromTheFlatRowAndFoldBack) {
    const Index row = indexVar(0), column = indexVar(1);
    auto index = reshapedRowsIndex(constants({8192, 50257}), {false, true}, {row}, {column}, constants({8, 1024, 50257}));
    ASSERT_TRUE(index);
    ASSERT_EQ(index->size(), 3u);
    EXPECT_EQ(toString((*index)[0]), toString(floorDiv(row, indexConstant(1024))));
    EXPECT_EQ(toString((*index)[1]), toString(modulo(row, indexConstant(1024))));
    EXPECT_TRUE(indexEqual((*index)[2], column));
    // A body reading the [8192, 50257] rows at its own point linearises the split dims again: that is the row.
    EXPECT_TRUE(indexEqual((*index)[0] * indexConstant(1024) + (*index)[1], row));
    // and a store into a buffer with padded rows (row stride 50304) is row * 50304 + column
    EXPECT_TRUE(indexEqual((*index)[0] * indexConstant(1024 * 50304) + (*index)[1] * indexConstant(50304) + column,
                           row * indexConstant(50304) + column));
    // Merged rows too: [8, 1024] rows beside a [8192] buffer.
    auto merged = reshapedRowsIndex(constants({8, 1024, 64}), {false, false, true}, {indexVar(0), indexVar(1)}, {indexVar(2)}, constants({8192, 64}));
    ASSERT_TRUE(merged);
    EXPECT_TRUE(indexEqual((*merged)[0], indexVar(0) * indexConstant(1024) + indexVar(1)));
}

TEST(ReshapedRows, OtherRowsTheSameSizesOrLeadingReducedDimsAreNot) {
    const Index row = indexVar(0), column = indexVar(1);
    EXPECT_FALSE(reshapedRowsIndex(constants({8192, 50257}), {false, true}, {row}, {column}, constants({8, 1000, 50257})));
    EXPECT_FALSE(reshapedRowsIndex(constants({8192, 50257}), {false, true}, {row}, {column}, constants({8192, 50257})));
    EXPECT_FALSE(reshapedRowsIndex(constants({8192, 50257}), {false, true}, {row}, {column}, constants({8, 1024, 50256})));
    EXPECT_FALSE(reshapedRowsIndex(constants({64, 128}), {true, false}, {column}, {row}, constants({64, 2, 64})));
}

}  // namespace
