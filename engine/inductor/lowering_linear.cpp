// linear on CUDA: one cuBLASLt extern call (the eager op's own, tensor::cudaops::linearLt) whose epilogue adds the
// bias and, when the linear's only reader is relu or (float32) tanh-GELU, applies that activation too (Inductor's
// addmm with a fused epilogue). Exact GELU is not cuBLASLt's (its GELU is the tanh form), so it stays a generated
// pointwise kernel after the call. An unaligned output width is padded (shape_padding, lowering_pad_mm.cpp).
#include <fmt/format.h>

#include "inductor/lowering_context.h"
#include "tensor/cuda_kernels.h"

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

cuda::Epilogue chooseLinearEpilogue(const fx::Node& linear, bool hasBias, tensor::DType dtype, const fx::Node* soleUser,
                                    const fx::Node** absorbed) {
    *absorbed = nullptr;
    const cuda::Epilogue plain = hasBias ? cuda::Epilogue::Bias : cuda::Epilogue::None;
    if (!soleUser || !readsOnly(*soleUser, linear)) return plain;
    const std::string op = nodeOpName(*soleUser);
    if (op == "relu") {
        // F.relu(x, inplace=True) and x.relu_() mutate the linear's output: they keep their own lowering.
        const vm::Value* inplace = constantArg(*soleUser, 1, "inplace");
        if (findArg(*soleUser, 1, "inplace") && !(inplace && inplace->is(vm::Kind::Bool) && !inplace->asBool())) return plain;
        *absorbed = soleUser;
        return hasBias ? cuda::Epilogue::ReluBias : cuda::Epilogue::Relu;
    }
    if (op == "gelu" && dtype == tensor::DType::Float32) {
        const vm::Value* approximate = constantArg(*soleUser, 1, "approximate");
        if (!approximate || !approximate->is(vm::Kind::Str) || approximate->as<vm::StrObject>().value != "tanh") return plain;
        *absorbed = soleUser;
        return hasBias ? cuda::Epilogue::GeluTanhBias : cuda::Epilogue::GeluTanh;
    }
    return plain;
}

std::optional<LValue> lowerLinearLt(Lowering& lowering, const fx::Node& node, NodeArgs& args) {
    if (lowering.graph().device.type() != tensor::DeviceType::CUDA) return std::nullopt;
    LValue x = args.tensor(0, "input"), w = args.tensor(1, "weight");
    const bool hasBias = args.has(2, "bias");
    LValue b = hasBias ? args.tensor(2, "bias") : LValue{};
    auto k = constantValue(w.sizes[1]), n = constantValue(w.sizes[0]);
    if (!tensor::cudaops::linearLtSupports(x.dtype) || w.dtype != x.dtype || !k || *k <= 0 || !n) return std::nullopt;
    if (hasBias && (b.dtype != x.dtype || b.dim() != 1 || !sameIndex(b.sizes[0], w.sizes[0]))) return std::nullopt;
    const fx::Node* absorbed = nullptr;
    const cuda::Epilogue epilogue = chooseLinearEpilogue(node, hasBias, x.dtype, lowering.soleUser(node), &absorbed);
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
    ExternCall& call = lowering.buffer(product).extern_;
    if (pad) {
        out.sizes = sizes;  // the kept columns, at the padded buffer's row stride
        out.buffer = -1;
    }
    std::string fused = hasBias ? "bias" : "";
    if (absorbed) {
        const std::string activation = nodeOpName(*absorbed) == "relu" ? "relu" : "gelu(approximate='tanh')";
        fused += (fused.empty() ? "" : " and ") + activation;
        call.epilogueNodes = {absorbed->name};
        lowering.buffer(product).originNodes.push_back(absorbed->name);
        lowering.absorb(*absorbed, out);
    } else if (hasBias) {
        call.epilogueNodes = {node.name};
    }
    call.epilogue = fused.empty() ? "" : fused + " fused into the cuBLASLt matmul epilogue";
    return out;
}

}  // namespace eng::inductor::lowering
