// linear as one library call that adds the bias and applies its sole reader's activation (Inductor's addmm with a
// fused epilogue): on CUDA cuBLASLt's epilogue (the eager op's own call, tensor::cudaops::linearLt; relu, float32
// tanh-GELU), on the CPU oneDNN's eltwise post-op where oneDNN takes the product (relu, both GELUs). The rest stays
// a generated pointwise kernel after the call. An unaligned CUDA output width is padded (lowering_pad_mm.cpp).
#include <fmt/format.h>

#include "inductor/lowering_context.h"
#include "tensor/cuda_kernels.h"
#include "tensor/linalg.h"

namespace eng::inductor::lowering {

namespace {

bool readsOnly(const fx::Node& user, const fx::Node& producer) {
    return !user.args.empty() && user.args[0].kind == fx::Arg::Kind::NodeRef && user.args[0].node == &producer;
}

const vm::Value* constantArg(const fx::Node& node, size_t position, const std::string& name) {
    const fx::Arg* arg = findArg(node, position, name);
    return arg && arg->kind == fx::Arg::Kind::Constant ? &arg->constant : nullptr;
}

}  // namespace

tensor::LinearActivation chooseLinearEpilogue(const fx::Node& linear, tensor::DType dtype, tensor::DeviceType device,
                                              const fx::Node* soleUser, const fx::Node** absorbed) {
    using tensor::LinearActivation;
    *absorbed = nullptr;
    if (!soleUser || !readsOnly(*soleUser, linear)) return LinearActivation::None;
    const std::string op = nodeOpName(*soleUser);
    LinearActivation chosen = LinearActivation::None;
    if (op == "relu") {
        // F.relu(x, inplace=True) and x.relu_() mutate the linear's output: they keep their own lowering.
        const vm::Value* inplace = constantArg(*soleUser, 1, "inplace");
        if (findArg(*soleUser, 1, "inplace") && !(inplace && inplace->is(vm::Kind::Bool) && !inplace->asBool())) return LinearActivation::None;
        chosen = LinearActivation::Relu;
    } else if (op == "gelu") {
        // approximate: 'none' (the default, the erf form) or 'tanh'; given by keyword or position, never computed.
        const fx::Arg* given = findArg(*soleUser, 1, "approximate");
        const vm::Value* approximate = constantArg(*soleUser, 1, "approximate");
        if (given && !(approximate && approximate->is(vm::Kind::Str))) return LinearActivation::None;
        const std::string form = approximate ? approximate->as<vm::StrObject>().value : "none";
        if (form == "tanh") chosen = LinearActivation::GeluTanh;
        else if (form == "none") chosen = LinearActivation::GeluErf;
        else return LinearActivation::None;
        // cuBLASLt's GELU is the tanh form, and its 16-bit epilogue would skip the rounding eager does before the
        // GELU; oneDNN has both forms, and its bfloat16 result rounds once after the GELU (the one rounding fewer
        // is within bfloat16's tolerance of eager; tests/scripts/inductor/externs/cpu_linear_activations_*).
        if (device == tensor::DeviceType::CUDA && (chosen != LinearActivation::GeluTanh || dtype != tensor::DType::Float32))
            return LinearActivation::None;
    } else {
        return LinearActivation::None;
    }
    if (device != tensor::DeviceType::CUDA && device != tensor::DeviceType::CPU) return LinearActivation::None;
    *absorbed = soleUser;
    return chosen;
}

std::string linearActivationName(tensor::LinearActivation activation) {
    switch (activation) {
        case tensor::LinearActivation::Relu: return "relu";
        case tensor::LinearActivation::GeluTanh: return "gelu(approximate='tanh')";
        case tensor::LinearActivation::GeluErf: return "gelu";
        case tensor::LinearActivation::None: break;
    }
    return "";
}

namespace {

cuda::Epilogue cublasLtEpilogue(bool hasBias, tensor::LinearActivation activation) {
    switch (activation) {
        case tensor::LinearActivation::Relu: return hasBias ? cuda::Epilogue::ReluBias : cuda::Epilogue::Relu;
        case tensor::LinearActivation::GeluTanh: return hasBias ? cuda::Epilogue::GeluTanhBias : cuda::Epilogue::GeluTanh;
        case tensor::LinearActivation::GeluErf:  // chooseLinearEpilogue never gives it for CUDA
        case tensor::LinearActivation::None: break;
    }
    return hasBias ? cuda::Epilogue::Bias : cuda::Epilogue::None;
}

/// What the output code says a library linear computed besides the product: "bias and gelu", "relu", or "".
std::string fusedText(bool hasBias, tensor::LinearActivation activation) {
    const std::string name = linearActivationName(activation);
    if (!hasBias) return name;
    return name.empty() ? "bias" : "bias and " + name;
}

/// Records on the call's buffer what it computed besides the product, and lowers the absorbed reader to `out`.
void recordEpilogue(Lowering& lowering, const fx::Node& node, int product, const LValue& out, bool hasBias,
                    tensor::LinearActivation activation, const fx::Node* absorbed, const std::string& where) {
    ExternCall& call = lowering.buffer(product).extern_;
    const std::string fused = fusedText(hasBias, activation);
    if (absorbed) {
        call.epilogueNodes = {absorbed->name};
        lowering.buffer(product).originNodes.push_back(absorbed->name);
        lowering.absorb(*absorbed, out);
    } else if (hasBias) {
        call.epilogueNodes = {node.name};
    }
    call.epilogue = fused.empty() ? "" : fused + " fused into the " + where;
}

}  // namespace

std::optional<LValue> lowerLinearLt(Lowering& lowering, const fx::Node& node, NodeArgs& args) {
    if (lowering.graph().device.type() != tensor::DeviceType::CUDA) return std::nullopt;
    LValue x = args.tensor(0, "input"), w = args.tensor(1, "weight");
    const bool hasBias = args.has(2, "bias");
    LValue b = hasBias ? args.tensor(2, "bias") : LValue{};
    auto k = constantValue(w.sizes[1]), n = constantValue(w.sizes[0]);
    if (!tensor::cudaops::linearLtSupports(x.dtype) || w.dtype != x.dtype || !k || *k <= 0 || !n) return std::nullopt;
    if (hasBias && (b.dtype != x.dtype || b.dim() != 1 || !sameIndex(b.sizes[0], w.sizes[0]))) return std::nullopt;
    const fx::Node* absorbed = nullptr;
    const tensor::LinearActivation activation =
        chooseLinearEpilogue(node, x.dtype, tensor::DeviceType::CUDA, lowering.soleUser(node), &absorbed);
    const cuda::Epilogue epilogue = cublasLtEpilogue(hasBias, activation);
    std::vector<Index> sizes(x.sizes.begin(), x.sizes.end() - 1);
    sizes.push_back(w.sizes[0]);
    // An unaligned output width: the product runs on a weight (and bias) padded with zero rows and is read in place.
    const int64_t pad = linearOutputPadding(lowering, node, x, w);
    std::vector<Index> paddedSizes = sizes;
    if (pad) paddedSizes.back() = indexConstant(*n + pad);
    std::vector<LValue> inputs{x, pad ? padWithZeros(lowering, w, {{0, pad}}) : w};
    if (hasBias) inputs.push_back(pad ? padWithZeros(lowering, b, {{0, pad}}) : b);
    LValue out = lowering.externCall(hasBias ? "addmm" : "mm", std::move(inputs), paddedSizes, x.dtype, [epilogue, hasBias](const vm::ValueList& t) {
        auto tensorAt = [&](size_t i) { return t.at(i).as<vm::TensorObject>().value; };
        return vm::makeTensor(tensor::cudaops::linearLt(tensorAt(0), tensorAt(1), hasBias ? tensorAt(2) : tensor::Tensor(), epilogue));
    });
    const int product = out.buffer;
    if (pad) {
        out.sizes = sizes;  // the kept columns, at the padded buffer's row stride
        out.buffer = -1;
    }
    recordEpilogue(lowering, node, product, out, hasBias, activation, absorbed, "cuBLASLt matmul epilogue");
    return out;
}

std::optional<LValue> lowerLinearOneDnn(Lowering& lowering, const fx::Node& node, NodeArgs& args) {
    if (lowering.graph().device.type() != tensor::DeviceType::CPU) return std::nullopt;
    LValue x = args.tensor(0, "input"), w = args.tensor(1, "weight");
    const bool hasBias = args.has(2, "bias");
    LValue b = hasBias ? args.tensor(2, "bias") : LValue{};
    if (w.dim() != 2 || x.dim() < 1 || w.dtype != x.dtype) return std::nullopt;
    if (hasBias && (b.dtype != x.dtype || b.dim() != 1 || !sameIndex(b.sizes[0], w.sizes[0]))) return std::nullopt;
    // Symbolic sizes keep the product and the pointwise kernel: the library is chosen by the product's size.
    int64_t m = 1;
    for (size_t i = 0; i + 1 < x.sizes.size(); ++i) {
        auto extent = constantValue(x.sizes[i]);
        if (!extent) return std::nullopt;
        m *= *extent;
    }
    auto k = constantValue(w.sizes[1]), n = constantValue(w.sizes[0]);
    if (!k || !n || !tensor::cpuBiasFusesInProduct(x.dtype, m, *n, *k)) return std::nullopt;
    const fx::Node* absorbed = nullptr;
    tensor::LinearActivation activation = tensor::LinearActivation::None;
    if (tensor::cpuActivationFusesInProduct(x.dtype, m, *n, *k))
        activation = chooseLinearEpilogue(node, x.dtype, tensor::DeviceType::CPU, lowering.soleUser(node), &absorbed);
    if (!hasBias && !absorbed) return std::nullopt;  // a plain product: torch.matmul's extern call
    std::vector<Index> sizes(x.sizes.begin(), x.sizes.end() - 1);
    sizes.push_back(w.sizes[0]);
    std::vector<LValue> inputs{x, w};
    if (hasBias) inputs.push_back(b);
    LValue out = lowering.externCall(hasBias ? "addmm" : "mm", std::move(inputs), sizes, x.dtype, [hasBias, activation](const vm::ValueList& t) {
        auto at = [&](size_t i) { return t.at(i).as<vm::TensorObject>().value; };
        return vm::makeTensor(tensor::linearWithActivation(at(0), at(1), hasBias ? at(2) : tensor::Tensor(), activation));
    });
    recordEpilogue(lowering, node, out.buffer, out, hasBias, activation, absorbed, "oneDNN matmul");
    return out;
}

}  // namespace eng::inductor::lowering
