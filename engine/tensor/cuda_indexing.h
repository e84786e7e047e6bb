// The indexed CUDA kernels (cuda_indexing.cpp), apart from cuda_kernels.h: only the indexing ops need them.
#pragma once

#include "tensor/cuda_codegen.h"
#include "tensor/error.h"
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
// Which bounds an index table checks, and the error it raises: Index [-size, size), IndexError "index V is out of
// bounds for dimension D with size S" (PyTorch's CPU message); Gather [0, size), the same as a RuntimeError;
// Embedding [0, size), IndexError "index out of range in self".
enum class IndexCheck { Index, Gather, Embedding };
// Builds (add false) or adds to (add true) the position table from one index tensor (int64, contiguous, the
// table's element count, on its device): table[i] (+)= wrap(index[i]) * stride. Bounds are checked by the kernel:
// an index outside them leaves its entry out of the gather and scatter and records the error, which the device's
// next synchronisation raises; nothing is read back (PyTorch's CUDA kernels assert on the device too).
void indexTablePart(const Tensor& table, const Tensor& index, int64_t size, int64_t stride, int64_t dim, IndexCheck check, bool add);
// indexTablePart's kernel source (its compile is tested without a GPU).
cudagen::GeneratedKernel indexTableKernel();
// The data at each position = values (access.sizes, data's dtype; any strides), or += with accumulate: atomic adds,
// so duplicates add up in an unspecified order (as PyTorch's CUDA kernels may); without, one duplicate wins.
void scatterIndexed(const Tensor& data, const Tensor& values, const IndexedAccess& access, bool accumulate);

}  // namespace eng::tensor::cudaops
