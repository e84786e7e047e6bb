// Indexed CUDA kernels: a gather and a scatter (assign or atomic add) over storage positions split into a table
// of the indexed part and strides of the rest (see cuda_kernels.h), which advanced indexing, index_select,
// embedding, gather, index_put_ and the losses' label lookups use on CUDA tensors; and the kernel that builds the
// table from the index tensors, checking their bounds on the device (no value is read back to the host).
#include <algorithm>

#include <fmt/format.h>

#include "cuda/device_context.h"
#include "tensor/cuda_indexing.h"
#include "tensor/cuda_kernels.h"
#include "tensor/cuda_launch_memo.h"
#include "tensor/error.h"
#include "tensor/indexing.h"

namespace eng::tensor::cudaops {

namespace {

// Coordinates of element i over g's sizes, and its three offsets: [0] the element side (the gathered result or
// the scattered values), [1] the data's non-indexed dims, [2] the table.
constexpr const char* kOffsets = R"CUDA(
    long long rem = i, o = 0, at = 0, t = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const long long c = rem % g.sizes[d];
      rem /= g.sizes[d];
      o += c * g.strides[0][d];
      at += c * g.strides[1][d];
      t += c * g.strides[2][d];
    }
)CUDA";

// The new bits of a 1- or 2-byte element `b` (old bits) after adding `v`, as the CPU kernel adds: in the op-math
// type, rounded or wrapped once; bool adds are an or.
std::string smallAccumulate(DType dtype) {
    switch (dtype) {
        case DType::Float16: return "(unsigned)cwb_to_half(cwb_load(cwb_half{(unsigned short)b}) + cwb_load(v)).bits";
        case DType::BFloat16: return "(unsigned)cwb_to_bf16(cwb_load(cwb_bf16{(unsigned short)b}) + cwb_load(v)).bits";
        case DType::Int8: return "(unsigned)(unsigned char)(cwb_i8)((cwb_i8)(unsigned char)b + v)";
        case DType::UInt8: return "(unsigned)(unsigned char)((cwb_u8)b + v)";
        case DType::Int16: return "(unsigned)(unsigned short)(cwb_i16)((cwb_i16)(unsigned short)b + v)";
        case DType::Bool: return "(unsigned)((b != 0u) || v)";
        default: return "";
    }
}

// `*p += v` for one element of dtype: the hardware's atomic add where it has one, else a compare-and-swap loop on
// the aligned 32-bit word that holds the element.
std::string accumulateFunction(DType dtype) {
    const std::string type = cudagen::storageTypeName(dtype);
    std::string body;
    switch (dtype) {
        case DType::Float32:
        case DType::Float64:
        case DType::Int32: body = "  atomicAdd(p, v);\n"; break;
        case DType::Int64: body = "  atomicAdd((unsigned long long*)p, (unsigned long long)v);\n"; break;
        default:
            body = fmt::format(R"CUDA(  const unsigned long long address = (unsigned long long)p;
  unsigned* word = (unsigned*)(address & ~3ULL);
  const unsigned shift = (unsigned)(address & 3ULL) * 8u;
  const unsigned mask = (sizeof({0}) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned old = *word, assumed;
  do {{
    assumed = old;
    const unsigned b = (assumed & mask) >> shift;
    const unsigned next = ({1}) & (mask >> shift);
    old = atomicCAS(word, assumed, (assumed & ~mask) | (next << shift));
  }} while (assumed != old);
)CUDA",
                               type, smallAccumulate(dtype));
    }
    return fmt::format("__device__ __forceinline__ void cwb_accumulate({0}* p, {0} v) {{\n{1}}}\n", type, body);
}

// A table entry an out-of-range index made (indexTablePart): the gather and the scatter leave its element alone, so
// a bad index never reaches memory outside the tensor while its error waits for the next synchronisation.
constexpr const char* kBadPosition = "#define CWB_BAD_POSITION (-9223372036854775807LL - 1)\n";

cudagen::GeneratedKernel gatherKernel(DType dtype) {
    const std::string type = cudagen::storageTypeName(dtype);
    const std::string entry = "cwb_index_gather_" + std::string(dtypeName(dtype));
    std::string code = kBadPosition + fmt::format("extern \"C\" __global__ void {}(CwbGeometry g, long long n, {}* out, const {}* data, const long long* table) {{\n",
                                   entry, type, type);
    code += "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {";
    code += kOffsets;
    code += "    if (table[t] != CWB_BAD_POSITION) out[o] = data[at + table[t]];\n  }\n}\n";
    return {entry, code};
}

cudagen::GeneratedKernel scatterKernel(DType dtype, bool accumulate) {
    const std::string type = cudagen::storageTypeName(dtype);
    const std::string entry = fmt::format("cwb_index_put{}_{}", accumulate ? "_add" : "", dtypeName(dtype));
    std::string code = std::string(kBadPosition) + (accumulate ? accumulateFunction(dtype) : "");
    code += fmt::format("extern \"C\" __global__ void {}(CwbGeometry g, long long n, {}* data, const {}* values, const long long* table) {{\n",
                        entry, type, type);
    code += "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {";
    code += kOffsets;
    code += "    if (table[t] == CWB_BAD_POSITION) continue;\n";
    code += accumulate ? "    cwb_accumulate(data + at + table[t], values[o]);\n" : "    data[at + table[t]] = values[o];\n";
    code += "  }\n}\n";
    return {entry, code};
}

// The geometry over access.sizes (size-1 dims dropped) with the element side's strides first.
cudagen::PointwiseGeometry geometryOf(const IndexedAccess& access, const Shape& elementStrides) {
    cudagen::PointwiseGeometry g;
    for (size_t d = 0; d < access.sizes.size(); ++d) {
        if (access.sizes[d] == 1) continue;
        if (g.ndim == cudagen::kMaxDims)
            fail(ErrorKind::NotImplemented, fmt::format("CUDA indexing kernels support at most {} non-trivial dims", cudagen::kMaxDims));
        const auto k = static_cast<size_t>(g.ndim++);
        g.sizes[k] = access.sizes[d];
        g.strides[0][k] = elementStrides[d];
        g.strides[1][k] = access.dataStrides[d];
        g.strides[2][k] = access.tableStrides[d];
    }
    return g;
}

// Launches kernel(g, n, first, second, table) on the table's device: the gather (scatter false) or the scatter of
// dtype, assigning or adding.
void launch(bool scatter, DType dtype, bool accumulate, int64_t n, cudagen::PointwiseGeometry g, void* first, const void* second,
            const Tensor& table) {
    if (n == 0) return;
    cuda::DeviceContext& context = cuda::DeviceContext::get(normalizeDevice(table.device()).index());
    constexpr int64_t kThreads = 256;
    cuda::LaunchShape shape;
    const int64_t cap = static_cast<int64_t>(context.multiprocessorCount()) * 32;
    shape.gridX = static_cast<unsigned>(std::max<int64_t>(1, std::min((n + kThreads - 1) / kThreads, cap)));
    shape.blockX = kThreads;
    long long count = n;
    const void* tablePointer = table.data();
    void* args[] = {&g, &count, &first, &second, &tablePointer};
    const KernelKey key = KernelKey(context, scatter ? "index_put" : "index_gather").add(dtype).add(int64_t{accumulate});
    auto source = [&] { return cudagen::translationUnit(scatter ? scatterKernel(dtype, accumulate) : gatherKernel(dtype)); };
    launchMemoized(context, key, source, shape, args);
}

void checkAccess(const IndexedAccess& access, const Tensor& data, const Tensor& element, const char* what) {
    if (element.sizes() != access.sizes || element.dtype() != data.dtype() || element.device() != data.device())
        fail(ErrorKind::Runtime, fmt::format("CUDA {}: operands of other sizes, dtypes or devices than the access's", what));
    if (access.table.dtype() != DType::Int64 || !access.table.isContiguous() || access.table.device() != data.device())
        fail(ErrorKind::Runtime, fmt::format("CUDA {}: the position table must be a contiguous int64 tensor on the data's device", what));
}

// table[i] = (or += with add) index[i] wrapped into [0, size), times stride, for i < n; an index outside [lowest,
// size) (lowest -size for indexing, 0 for embedding and gather, which PyTorch does not wrap) makes its entry
// CWB_BAD_POSITION (and keeps it so through later parts) and is recorded in the device's assertion word with dim and
// size. The first bad position is the one named: one block reduces it, or (more than
// kSingleBlockIndices entries) one per block, the first failing block winning.
constexpr int64_t kTableThreads = 1024, kSingleBlockIndices = int64_t{1} << 16;
constexpr const char* kTableKernel = R"CUDA(
extern "C" __global__ void cwb_index_table(long long* table, const long long* index, long long n, long long size, long long stride,
                                           int add, unsigned long long* word, unsigned long long id, long long dim, long long lowest) {
  __shared__ long long first[1024];
  long long mine = n;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    long long v = index[i];
    const bool bad = v < lowest || v >= size;
    if (bad && i < mine) mine = i;
    if (v < 0) v += size;
    const long long before = add ? table[i] : 0;
    table[i] = bad || before == CWB_BAD_POSITION ? CWB_BAD_POSITION : before + v * stride;
  }
  first[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && first[threadIdx.x + s] < first[threadIdx.x]) first[threadIdx.x] = first[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0 && first[0] < n && atomicCAS(word, 0ull, id) == 0ull) {
    volatile unsigned long long* w = (volatile unsigned long long*)word;
    w[1] = (unsigned long long)index[first[0]];
    w[2] = (unsigned long long)dim;
    w[3] = (unsigned long long)size;
    __threadfence_system();
  }
}
)CUDA";

template <ErrorKind kind>
void raiseIndexOutOfBounds(int64_t value, int64_t dim, int64_t size) {
    failIndexOutOfBounds(kind, value, dim, size);
}

void raiseEmbeddingOutOfRange(int64_t, int64_t, int64_t) { fail(ErrorKind::Index, "index out of range in self"); }

uint64_t indexAssertionId(IndexCheck check) {
    static const uint64_t index = cuda::registerDeviceAssertion(&raiseIndexOutOfBounds<ErrorKind::Index>);
    static const uint64_t runtime = cuda::registerDeviceAssertion(&raiseIndexOutOfBounds<ErrorKind::Runtime>);
    static const uint64_t embedding = cuda::registerDeviceAssertion(&raiseEmbeddingOutOfRange);
    switch (check) {
        case IndexCheck::Index: return index;
        case IndexCheck::Gather: return runtime;
        case IndexCheck::Embedding: return embedding;
    }
    return index;
}

}  // namespace

cudagen::GeneratedKernel indexTableKernel() { return {"cwb_index_table", std::string(kBadPosition) + kTableKernel}; }

void indexTablePart(const Tensor& table, const Tensor& index, int64_t size, int64_t stride, int64_t dim, IndexCheck check, bool add) {
    if (index.dtype() != DType::Int64 || !index.isContiguous() || !table.isContiguous() || table.dtype() != DType::Int64 ||
        index.numel() != table.numel() || index.device() != table.device())
        fail(ErrorKind::Runtime, "CUDA index table: the index and the table must be contiguous int64 tensors of one size on one device");
    const int64_t n = index.numel();
    if (n == 0) return;
    cuda::DeviceContext& context = cuda::DeviceContext::get(normalizeDevice(table.device()).index());
    const cuda::AssertionWord word = context.assertionWord();
    cuda::LaunchShape shape;
    shape.blockX = kTableThreads;
    const int64_t cap = static_cast<int64_t>(context.multiprocessorCount()) * 2;
    shape.gridX = n <= kSingleBlockIndices ? 1u : static_cast<unsigned>(std::min((n + kTableThreads - 1) / kTableThreads, cap));
    void* tablePointer = table.data();
    const void* indexPointer = index.data();
    long long count = n, bound = size, step = stride, dimension = dim, lowest = check == IndexCheck::Index ? -size : 0;
    int adding = add ? 1 : 0;
    void* wordPointer = word.device;
    unsigned long long id = indexAssertionId(check);
    void* args[] = {&tablePointer, &indexPointer, &count, &bound, &step, &adding, &wordPointer, &id, &dimension, &lowest};
    const KernelKey key = KernelKey(context, "index_table");
    auto source = [] { return cudagen::translationUnit(indexTableKernel()); };
    launchMemoized(context, key, source, shape, args);
}

void gatherIndexed(const Tensor& out, const Tensor& data, const IndexedAccess& access) {
    checkAccess(access, data, out, "gather");
    launch(false, data.dtype(), false, out.numel(), geometryOf(access, out.strides()), out.data(), data.data(), access.table);
}

void scatterIndexed(const Tensor& data, const Tensor& values, const IndexedAccess& access, bool accumulate) {
    checkAccess(access, data, values, "index_put_");
    launch(true, data.dtype(), accumulate, values.numel(), geometryOf(access, values.strides()), data.data(), values.data(),
           access.table);
}

}  // namespace eng::tensor::cudaops
