// Replays op calls recorded from real PyTorch 2.11 (tests/data/tensor_runtime/torch_ground_truth.json, made by
// make_ground_truth.py beside it) through the op registry, and compares values, dtypes, shapes, strides,
// storage sharing, printed reprs and raised exception classes/messages.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/printing.h"
#include "tensor/registry.h"

namespace eng::tensor {
namespace {

using nlohmann::json;

double jsonNumber(const json& j) {
    if (j.is_string()) {
        const std::string s = j.get<std::string>();
        if (s == "nan") return std::nan("");
        return s == "inf" ? INFINITY : -INFINITY;
    }
    if (j.is_boolean()) return j.get<bool>() ? 1.0 : 0.0;
    return j.get<double>();
}

Value decode(const json& j) {
    if (j.is_null()) return Value();
    if (j.is_boolean()) return Value(j.get<bool>());
    if (j.is_number_integer()) return Value(j.get<int64_t>());
    if (j.is_number_float()) return Value(j.get<double>());
    if (j.is_string()) return Value(j.get<std::string>());
    if (j.contains("tensor")) {
        std::vector<double> values;
        for (const json& v : j["tensor"]) values.push_back(jsonNumber(v));
        const DType dtype = *parseDType(j["dtype"].get<std::string>());
        const Shape shape = j["shape"].get<Shape>();
        Tensor t = fromDoubles(values, shape, dtype);
        if (j.contains("stride")) {
            // Rebuild the recorded non-contiguous layout (e.g. a transposed view) around the same values.
            const Shape strides = j["stride"].get<Shape>();
            Tensor strided = emptyStrided(shape, strides, dtype);
            copyInto(strided, t);
            return Value(strided);
        }
        return Value(t);
    }
    if (j.contains("dtype")) return Value(*parseDType(j["dtype"].get<std::string>()));
    if (j.contains("size")) return Value::size(j["size"].get<Shape>());
    if (j.contains("float")) return Value(jsonNumber(j["float"]));
    if (j.contains("ellipsis")) return Value(EllipsisTag{});
    if (j.contains("slice")) {
        auto part = [](const json& p) { return p.is_null() ? std::optional<int64_t>() : std::optional<int64_t>(p.get<int64_t>()); };
        return Value(Slice{part(j["slice"][0]), part(j["slice"][1]), part(j["slice"][2])});
    }
    ValueList items;
    const json& seq = j.contains("tuple") ? j["tuple"] : j["list"];
    for (const json& item : seq) items.push_back(decode(item));
    return j.contains("tuple") ? Value::tuple(std::move(items)) : Value::list(std::move(items));
}

bool close(double expected, double actual, DType dtype) {
    if (std::isnan(expected)) return std::isnan(actual);
    if (std::isinf(expected)) return expected == actual;
    const double rtol = dtype == DType::BFloat16 ? 1e-2 : dtype == DType::Float16 ? 2e-3 : dtype == DType::Float32 ? 2e-5 : 1e-9;
    const double atol = isFloating(dtype) ? rtol * 0.1 : 0.0;
    return std::abs(expected - actual) <= atol + rtol * std::abs(expected);
}

// Returns "" when the value matches the recorded result, else what differs. approximatesDifferently: PyTorch's
// vectorised kernel uses its own approximation (GELU's erf), so tiny values agree to atol but may print apart.
std::string compare(const json& expected, const Value& actual, const std::vector<Value>& args, bool approximatesDifferently = false) {
    if (expected.is_object() && expected.contains("tensor")) {
        if (!actual.isTensor()) return "expected a tensor, got " + actual.typeName();
        const Tensor& t = actual.toTensor();
        std::ostringstream out;
        if (dtypeName(t.dtype()) != expected["dtype"].get<std::string>())
            out << "dtype " << dtypeName(t.dtype()) << " != " << expected["dtype"].get<std::string>() << "; ";
        if (t.sizes() != expected["shape"].get<Shape>()) out << "shape " << shapeStr(t.sizes()) << "; ";
        if (!out.str().empty()) return out.str();
        if (expected.contains("offset") && t.strides() != expected["stride"].get<Shape>())
            out << "stride " << shapeStr(t.strides()) << " != " << expected["stride"].dump() << "; ";
        const std::vector<double> values = toDoubles(t);
        for (size_t i = 0; i < values.size(); ++i)
            if (!close(jsonNumber(expected["tensor"][i]), values[i], t.dtype())) {
                out << "value[" << i << "] " << values[i] << " != " << expected["tensor"][i].dump() << "; ";
                break;
            }
        if (expected.contains("repr") && repr(t) != expected["repr"].get<std::string>() && !approximatesDifferently)
            out << "repr\n" << repr(t) << "\n!= torch's\n" << expected["repr"].get<std::string>() << "\n";
        if (expected.contains("shares") && t.numel() > 0)
            for (size_t i = 0; i < args.size(); ++i) {
                if (!args[i].isTensor()) continue;
                const bool torchShares = std::find(expected["shares"].begin(), expected["shares"].end(), json(i)) != expected["shares"].end();
                if (torchShares != t.sharesStorageWith(args[i].toTensor())) out << "storage sharing with arg " << i << " differs; ";
            }
        return out.str();
    }
    if (expected.is_object() && (expected.contains("tuple") || expected.contains("list"))) {
        const json& seq = expected.contains("tuple") ? expected["tuple"] : expected["list"];
        if (!actual.isSequence() || actual.items().size() != seq.size()) return "expected a sequence of " + std::to_string(seq.size());
        if (expected.contains("names") && actual.sequence().fieldNames != expected["names"].get<std::vector<std::string>>())
            return "named tuple fields differ";
        for (size_t i = 0; i < seq.size(); ++i)
            if (std::string d = compare(seq[i], actual.items()[i], args); !d.empty()) return "item " + std::to_string(i) + ": " + d;
        return "";
    }
    if (expected.is_object() && expected.contains("size")) {
        if (!actual.isSequence() || actual.sequence().typeName != "torch.Size") return "expected torch.Size";
        Shape sizes;
        for (const Value& v : actual.items()) sizes.push_back(v.toInt());
        return sizes == expected["size"].get<Shape>() ? "" : "size differs";
    }
    if (expected.is_object() && expected.contains("dtype"))
        return actual.kind() == Value::Kind::DType && dtypeName(actual.toDType()) == expected["dtype"].get<std::string>() ? "" : "dtype differs";
    if (expected.is_object() && expected.contains("float"))
        return actual.isFloat() && close(jsonNumber(expected["float"]), actual.toDouble(), DType::Float64) ? "" : "float differs: " + actual.repr();
    if (expected.is_null()) return actual.isNone() ? "" : "expected None, got " + actual.repr();
    if (expected.is_boolean()) return actual.isBool() && actual.toBool() == expected.get<bool>() ? "" : "bool differs: " + actual.repr();
    if (expected.is_number_integer()) return actual.isInt() && actual.toInt() == expected.get<int64_t>() ? "" : "int differs: " + actual.repr();
    if (expected.is_string()) return actual.isString() && actual.toStr() == expected.get<std::string>() ? "" : "str differs";
    return "unhandled expectation " + expected.dump();
}

TEST(TorchConformance, RegistryCallsReproduceRecordedPyTorchResults) {
    std::ifstream file(std::string(CWB_TEST_DATA_DIR) + "/tensor_runtime/torch_ground_truth.json");
    ASSERT_TRUE(file.good());
    const json truth = json::parse(file);
    const OpRegistry& registry = OpRegistry::instance();
    int checked = 0;
    for (const json& c : truth["cases"]) {
        std::vector<Value> args;
        for (const json& a : c["args"]) args.push_back(decode(a));
        KeywordArgs kwargs;
        for (const auto& [name, v] : c["kwargs"].items()) kwargs.emplace_back(name, decode(v));
        const std::string label = c["op"].get<std::string>() + " " + c["args"].dump().substr(0, 160) + " " + c["kwargs"].dump();
        SCOPED_TRACE(label);
        ++checked;
        if (c.contains("error")) {
            try {
                const Value unexpected = registry.call(c["op"].get<std::string>(), args, kwargs);
                ADD_FAILURE() << "expected " << c["error"].get<std::string>() << ": " << c["message"].get<std::string>()
                              << "\ngot " << unexpected.repr();
            } catch (const TensorError& e) {
                EXPECT_EQ(e.pythonClass(), c["error"].get<std::string>()) << e.what();
                EXPECT_EQ(std::string(e.what()).substr(0, c["message"].get<std::string>().size()), c["message"].get<std::string>());
            }
            continue;
        }
        try {
            const Value result = registry.call(c["op"].get<std::string>(), args, kwargs);
            EXPECT_EQ(compare(c["result"], result, args, c["op"] == "F.gelu"), "");
            if (c.contains("self_after")) {
                EXPECT_EQ(compare(c["self_after"], args[0], {}), "") << "(self after the call)";
            }
        } catch (const TensorError& e) {
            ADD_FAILURE() << e.pythonClass() << ": " << e.what();
        }
    }
    EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace eng::tensor
