// Views and layouts: storage sharing, strides after permute/transpose/expand/unsqueeze, reshape as a view or
// a copy, contiguous(), in-place writes through views and setitem; diagonal, as_strided, unfold and movedim with
// lists as PyTorch computes them; every op of view_ops.def exists in the registry.
#include <gtest/gtest.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/pointwise.h"
#include "tensor/registry.h"
#include "tensor/shape.h"
#include "tensor/view_ops.h"

namespace eng::tensor {
namespace {

Tensor grid() { return reshape(arange(Scalar(int64_t{24}), TensorOptions{DType::Float32}), {2, 3, 4}); }

TEST(Views, PermuteTransposeExpandStrides) {
    const Tensor x = grid();
    EXPECT_EQ(x.strides(), (Shape{12, 4, 1}));
    const Tensor p = permute(x, {2, 0, 1});
    EXPECT_EQ(p.sizes(), (Shape{4, 2, 3}));
    EXPECT_EQ(p.strides(), (Shape{1, 12, 4}));
    EXPECT_TRUE(p.sharesStorageWith(x));
    EXPECT_FALSE(p.isContiguous());
    EXPECT_EQ(transpose(x, 0, 2).strides(), (Shape{1, 4, 12}));
    const Tensor e = expand(fromDoubles({1, 2, 3}, {3, 1}), {2, 3, 5});
    EXPECT_EQ(e.strides(), (Shape{0, 1, 0}));
    EXPECT_EQ(unsqueeze(x, 1).strides(), (Shape{12, 12, 4, 1}));
    EXPECT_EQ(unsqueeze(x, 3).strides(), (Shape{12, 4, 1, 1}));
    EXPECT_EQ(select(x, 1, -1).storageOffset(), 8);
    EXPECT_EQ(slice(x, 2, 1, std::nullopt, 2).strides(), (Shape{12, 4, 2}));
}

TEST(Views, ReshapeViewsWhenStridesAllowElseCopies) {
    const Tensor x = grid();
    const Tensor flat = reshape(x, {6, 4});
    EXPECT_TRUE(flat.sharesStorageWith(x));
    const Tensor merged = reshape(transpose(x, 1, 2), {2, 12});  // needs a copy
    EXPECT_FALSE(merged.sharesStorageWith(x));
    EXPECT_EQ(toDoubles(merged)[1], 4.0);
    // Splitting a transposed dim is still a view.
    const Tensor split = view(transpose(x, 0, 2), {2, 2, 3, 2});
    EXPECT_TRUE(split.sharesStorageWith(x));
    EXPECT_EQ(split.strides(), (Shape{2, 1, 4, 12}));
    EXPECT_THROW(view(transpose(x, 0, 2), {-1}), TensorError);
    EXPECT_EQ(contiguous(x).impl(), x.impl());
    EXPECT_FALSE(contiguous(transpose(x, 0, 1)).sharesStorageWith(x));
}

TEST(Views, WritesThroughViewsAreVisible) {
    const Tensor x = zeros({3, 4});
    fillInPlace(select(x, 1, 2), Scalar(7.0));
    EXPECT_EQ(toDoubles(x)[2], 7.0);
    EXPECT_EQ(toDoubles(x)[10], 7.0);
    addInPlace(transpose(x, 0, 1), Scalar(1.0));
    EXPECT_EQ(toDoubles(x)[0], 1.0);
}

TEST(Views, SetItemWithMaskSliceAndTensorIndex) {
    const Tensor x = reshape(arange(Scalar(int64_t{12}), TensorOptions{DType::Float32}), {3, 4});
    setItem(x, {TensorIndex::fromTensor(gt(x, Scalar(9.0)))}, Scalar(-1.0));
    setItem(x, {TensorIndex::fromSlice(std::nullopt, std::nullopt, std::nullopt), TensorIndex::fromInteger(0)}, Scalar(100.0));
    setItem(x, {TensorIndex::fromInteger(1), TensorIndex::fromTensor(fromInts({1, 3}, {2}))}, fromDoubles({5, 6}, {2}));
    EXPECT_EQ(toDoubles(x), (std::vector<double>{100, 1, 2, 3, 100, 5, 6, 6, 100, 9, -1, -1}));
    const Tensor picked = getItem(x, {TensorIndex::ellipsis(), TensorIndex::fromInteger(-1)});
    EXPECT_TRUE(picked.sharesStorageWith(x));
    EXPECT_EQ(picked.strides(), (Shape{4}));
    const Tensor gathered = getItem(x, {TensorIndex::fromTensor(fromInts({2, 0}, {2}))});
    EXPECT_FALSE(gathered.sharesStorageWith(x));
    EXPECT_EQ(gathered.sizes(), (Shape{2, 4}));
}

TEST(Views, DiagonalIsAStridedViewOfTheTwoDims) {
    const Tensor x = grid();  // [2, 3, 4]
    const Tensor d = diagonal(x, 0, 1, 2);
    EXPECT_EQ(d.sizes(), (Shape{2, 3}));
    EXPECT_EQ(d.strides(), (Shape{12, 5}));
    EXPECT_TRUE(d.sharesStorageWith(x));
    EXPECT_EQ(toDoubles(d), (std::vector<double>{0, 5, 10, 12, 17, 22}));
    const Tensor above = diagonal(x, 2, 1, 2);  // x[:, i, i + 2]
    EXPECT_EQ(above.sizes(), (Shape{2, 2}));
    EXPECT_EQ(toDoubles(above), (std::vector<double>{2, 7, 14, 19}));
    const Tensor below = diagonal(x, -1, 1, 2);  // x[:, i + 1, i]
    EXPECT_EQ(toDoubles(below), (std::vector<double>{4, 9, 16, 21}));
    EXPECT_EQ(diagonal(x, 9, 1, 2).sizes(), (Shape{2, 0}));
    EXPECT_THROW(diagonal(x, 0, 1, -2), TensorError);
}

TEST(Views, AsStridedAndUnfold) {
    const Tensor x = grid();
    const Tensor s = asStrided(x, {2, 2}, {1, 4}, 1);
    EXPECT_TRUE(s.sharesStorageWith(x));
    EXPECT_EQ(toDoubles(s), (std::vector<double>{1, 5, 2, 6}));
    EXPECT_THROW(asStrided(x, {5, 5}, {5, 1}, 0), TensorError);  // past the storage's 24 elements
    const Tensor row = reshape(arange(Scalar(int64_t{7}), TensorOptions{DType::Float32}), {7});
    const Tensor windows = unfold(row, 0, 3, 2);  // [0 1 2] [2 3 4] [4 5 6]
    EXPECT_EQ(windows.sizes(), (Shape{3, 3}));
    EXPECT_EQ(windows.strides(), (Shape{2, 1}));
    EXPECT_EQ(toDoubles(windows), (std::vector<double>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
    EXPECT_THROW(unfold(row, 0, 8, 1), TensorError);
    EXPECT_THROW(unfold(row, 0, 2, 0), TensorError);
}

TEST(Views, MovedimWithLists) {
    const Tensor x = grid();  // [2, 3, 4]
    EXPECT_EQ(movedim(x, std::vector<int64_t>{0, 1}, std::vector<int64_t>{2, 0}).sizes(), (Shape{3, 4, 2}));
    EXPECT_EQ(movedim(x, 0, -1).sizes(), (Shape{3, 4, 2}));
    EXPECT_EQ(movedim(x, std::vector<int64_t>{2}, std::vector<int64_t>{0}).strides(), (Shape{1, 12, 4}));
    EXPECT_THROW(movedim(x, std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 2}), TensorError);
    EXPECT_THROW(movedim(x, std::vector<int64_t>{0, 1}, std::vector<int64_t>{1}), TensorError);
}

TEST(Views, EveryViewOpOfTheTableIsInTheRegistry) {
    const OpRegistry& ops = OpRegistry::instance();  // refuses to build otherwise; here is what it checks
    for (const ViewOp& op : viewOps()) {
        const std::string method = op.name == "getitem" ? "Tensor.__getitem__" : "Tensor." + std::string(op.name);
        EXPECT_TRUE(ops.contains(method) || ops.contains("torch." + std::string(op.name))) << op.name;
    }
    ASSERT_NE(findViewOp("swapdims"), nullptr);
    EXPECT_EQ(findViewOp("swapdims")->aliasing, ViewAliasing::View);
    EXPECT_EQ(findViewOp("contiguous")->aliasing, ViewAliasing::SelfWhenUnchanged);
    EXPECT_EQ(findViewOp("clone"), nullptr);
}

}  // namespace
}  // namespace eng::tensor
