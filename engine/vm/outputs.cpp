// Tensor summaries for `cwb run --call main`: statistics computed in double over the elements in row-major
// order, non-finite floats as the strings "nan", "inf", "-inf", as the ground-truth files write them.
#include "vm/outputs.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "python/python_repr.h"
#include "tensor/registry.h"

namespace eng::vm {

namespace {

std::string jsonNumber(double x, bool integral) {
    if (std::isnan(x)) return "\"nan\"";
    if (std::isinf(x)) return x < 0 ? "\"-inf\"" : "\"inf\"";
    if (integral) return fmt::format("{}", static_cast<int64_t>(x));
    return python::floatRepr(x);
}

/// A JSON string through the project's JSON library (escapes and invalid UTF-8 as it writes them everywhere else).
std::string jsonString(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string intList(const std::vector<int64_t>& values) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
    return out + "]";
}

/// Every element as double, row-major; a complex element as its real and imaginary parts (view_as_real), as the
/// ground-truth harness writes them.
std::vector<double> elements(const tensor::Tensor& t) {
    const auto& ops = tensor::OpRegistry::instance();
    tensor::ValueList args{tensor::Value(t)};
    const tensor::Tensor parts = tensor::isComplex(t.dtype()) ? ops.call("torch.view_as_real", args).toTensor() : t;
    args = {tensor::Value(parts), tensor::Value(-1)};
    tensor::Value flat = ops.call("Tensor.reshape", args);
    args = {flat, tensor::Value(tensor::DType::Float64)};
    tensor::Value asDouble = ops.call("Tensor.to", args);
    args = {asDouble};
    tensor::Value list = ops.call("Tensor.tolist", args);
    std::vector<double> out;
    for (const tensor::Value& v : list.items()) out.push_back(v.toDouble());
    return out;
}

ValueList returnedItems(const Value& returned) {
    if (returned.is(Kind::List)) return returned.as<ListObject>().items;
    if (returned.is(Kind::Tuple)) return returned.as<TupleObject>().items;
    return {returned};
}

std::string tensorJson(const tensor::Tensor& t) {
    std::vector<double> values = elements(t);
    bool integral = tensor::isIntegral(t.dtype(), true);
    bool isBool = t.dtype() == tensor::DType::Bool;
    double sum = 0, absSum = 0;
    double low = values.empty() ? 0 : values[0], high = low;
    for (double v : values) {
        sum += v;
        absSum += std::fabs(v);
        if (std::isnan(v) || v < low) low = std::isnan(low) ? low : v;
        if (std::isnan(v) || v > high) high = std::isnan(high) ? high : v;
    }
    auto element = [&](double v) { return isBool ? std::string(v != 0 ? "true" : "false") : jsonNumber(v, integral); };
    std::string out = fmt::format(
        "{{\"kind\": \"tensor\", \"shape\": {}, \"dtype\": \"{}\", \"device\": \"{}\", \"numel\": {}, \"stride\": {}, "
        "\"requires_grad\": {}, \"sum\": {}, \"abs_sum\": {}",
        intList(t.sizes()), tensor::dtypeName(t.dtype()), t.device().isCpu() ? "cpu" : "cuda", t.numel(),
        intList(t.strides()), t.requiresGrad() ? "true" : "false", jsonNumber(sum, integral), jsonNumber(absSum, integral));
    if (!values.empty()) out += fmt::format(", \"min\": {}, \"max\": {}", element(low), element(high));
    bool all = static_cast<int64_t>(values.size()) <= kMaxOutputValues;
    out += all ? ", \"values\": [" : ", \"first64\": [";
    size_t count = all ? values.size() : 64;
    for (size_t i = 0; i < count; ++i) out += (i ? ", " : "") + element(values[i]);
    return out + "]}";
}

}  // namespace

std::string outputsJson(Interpreter& vm, const Value& returned) {
    std::string out = "[";
    bool first = true;
    for (const Value& item : returnedItems(returned)) {
        out += first ? "\n  " : ",\n  ";
        first = false;
        if (item.is(Kind::Tensor)) {
            out += tensorJson(item.tensor());
        } else {
            out += fmt::format("{{\"kind\": {}, \"repr\": {}}}", jsonString(vm.classOf(item)->name), jsonString(vm.repr(item)));
        }
    }
    return out + "\n]";
}

std::string outputsText(Interpreter& vm, const Value& returned) {
    std::string out;
    size_t index = 0;
    for (const Value& item : returnedItems(returned)) {
        if (!item.is(Kind::Tensor)) {
            out += fmt::format("output {}: {}\n", index++, vm.repr(item));
            continue;
        }
        const tensor::Tensor& t = item.tensor();
        std::vector<double> values = elements(t);
        double sum = 0;
        for (double v : values) sum += v;
        std::string head;
        for (size_t i = 0; i < std::min<size_t>(values.size(), 8); ++i) head += (i ? ", " : "") + fmt::format("{:.6g}", values[i]);
        out += fmt::format("output {}: shape={} dtype={} sum={:.9g} values=[{}{}]\n", index++, intList(t.sizes()),
                           tensor::dtypeName(t.dtype()), sum, head, values.size() > 8 ? ", ..." : "");
    }
    return out;
}

}  // namespace eng::vm
