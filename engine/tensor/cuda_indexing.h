// The indexed CUDA kernels (cuda_indexing.cpp), apart from cuda_kernels.h: only the indexing ops need them.
#pragma once

#include "tensor/tensor.h"

namespace eng::tensor::cudaops {

// Indexed copies (cuda_indexing.cpp). Over the iteration shape `sizes` (the gathered result's, or the scattered
// values'), the element at coordinates c reads or writes the data tensor's element
// sum(c * dataStrides) + table[sum(c * tableStrides)], counted from data.data(): the table (contiguous int64, on
// the data's device) holds the indexed part of each position, the strides place the dims that were not indexed.
struct IndexedAccess {
    Shape sizes, dataStrides, tableStrides;
    Tensor table;
};
// out (access.sizes, data's dtype) = the data at each position.
void gatherIndexed(const Tensor& out, const Tensor& data, const IndexedAccess& access);
// The data at each position = values (access.sizes, data's dtype; any strides), or += with accumulate: atomic adds,
// so duplicates add up in an unspecified order (as PyTorch's CUDA kernels may); without, one duplicate wins.
void scatterIndexed(const Tensor& data, const Tensor& values, const IndexedAccess& access, bool accumulate);

}  // namespace eng::tensor::cudaops
