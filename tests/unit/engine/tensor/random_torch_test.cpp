// cwb's CPU random numbers against real PyTorch 2.11's for the same seeds (tests/data/tensor_runtime/torch_rng.json,
// made by make_rng_ground_truth.py beside it): every draw of rand/randn/randint/randperm/bernoulli/dropout/
// exponential/multinomial, the nn.init functions, torch.Generator objects and get/set_rng_state, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/random.h"
#include "tensor/registry.h"

namespace eng::tensor {
namespace {

using nlohmann::json;

const OpRegistry& ops() { return OpRegistry::instance(); }

Value call(std::string_view name, std::vector<Value> args, const KeywordArgs& kwargs = {}) { return ops().call(name, args, kwargs); }

// Floats as their bit patterns (int32 for float32, int64 for float64), integers as they are: PyTorch's JSON form.
json bits(const Value& v) {
    const Tensor t = contiguous(v.toTensor());
    json out = json::array();
    if (t.dtype() == DType::Float32) {
        for (int64_t i = 0; i < t.numel(); ++i) {
            int32_t b = 0;
            std::memcpy(&b, t.dataAs<float>() + i, sizeof b);
            out.push_back(b);
        }
    } else if (t.dtype() == DType::Float64) {
        for (int64_t i = 0; i < t.numel(); ++i) {
            int64_t b = 0;
            std::memcpy(&b, t.dataAs<double>() + i, sizeof b);
            out.push_back(b);
        }
    } else {
        for (int64_t i : toInts(t)) out.push_back(i);
    }
    return out;
}

Value sizes(std::initializer_list<int64_t> dims) {
    ValueList items;
    for (int64_t d : dims) items.emplace_back(d);
    return Value::list(items);
}

Value emptyOf(std::initializer_list<int64_t> dims, DType dtype = DType::Float32) {
    return call("torch.empty", {sizes(dims)}, {{"dtype", Value(dtype)}});
}

DType dtypeNamed(const std::string& name) { return name == "float64" ? DType::Float64 : DType::Float32; }

// The word at `index` of a case name ("randn 17 float32" -> "17").
std::string word(const std::string& name, size_t index) {
    std::istringstream in(name);
    std::string w;
    for (size_t i = 0; i <= index; ++i) in >> w;
    return w;
}

json init(const char* fn, std::initializer_list<int64_t> dims, const KeywordArgs& kwargs = {}) {
    const Value t = emptyOf(dims);
    call(fn, {t}, kwargs);
    return bits(t);
}

// What cwb gives for one case of the ground truth (after torch.manual_seed(seed)); nullopt: the case needs the VM
// (modules), which tests/scripts covers.
std::optional<json> cwbValues(const std::string& name, int64_t seed) {
    const std::string op = word(name, 0);
    const std::string last = name.substr(name.rfind(' ') + 1);
    const DType dtype = dtypeNamed(last);
    const KeywordArgs typed = {{"dtype", Value(dtype)}};
    if (op == "rand" || op == "randn") {
        if (name == "randn mixed") {
            json out = json::array();
            for (DType d : {DType::Float64, DType::Float32, DType::Float64, DType::Float32})
                out.push_back(bits(call("torch.randn", {sizes({1})}, {{"dtype", Value(d)}})));
            return out;
        }
        if (word(name, 1) == "3") {
            json first = bits(call("torch.randn", {sizes({3})}, typed));
            for (const json& v : bits(call("torch.randn", {sizes({3})}, typed))) first.push_back(v);
            return first;
        }
        if (word(name, 1) == "2x2") return bits(call("Tensor.normal_", {call("Tensor.t", {emptyOf({3, 5}, dtype)})}));
        return bits(call("torch." + op, {sizes({std::stoll(word(name, 1))})}, typed));
    }
    if (op == "randint") {
        if (word(name, 2) == "int32") return bits(call("torch.randint", {Value(int64_t{3}), sizes({9})}, {{"dtype", Value(DType::Int32)}}));
        if (word(name, 3) == "float32") return bits(call("torch.randint", {Value(int64_t{0}), Value(int64_t{10}), sizes({5})}, {{"dtype", Value(DType::Float32)}}));
        const int64_t high = word(name, 2) == "2**40" ? int64_t{1} << 40 : std::stoll(word(name, 2));
        return bits(call("torch.randint", {Value(std::stoll(word(name, 1))), Value(high), sizes({std::stoll(word(name, 3))})}));
    }
    if (op == "randperm") return bits(call("torch.randperm", {Value(std::stoll(word(name, 1)))}));
    if (op == "uniform_" && word(name, 1) == "-0.3") return bits(call("Tensor.uniform_", {emptyOf({100}, dtype), Value(-0.3), Value(0.7)}));
    if (op == "normal_" && word(name, 1) == "0.5")
        return bits(call("Tensor.normal_", {emptyOf({std::stoll(word(name, 3))}, dtype), Value(0.5), Value(0.02)}));
    if (op == "exponential_") return bits(call("Tensor.exponential_", {emptyOf({20}, dtype)}));
    if (op == "bernoulli_") return bits(call("Tensor.bernoulli_", {emptyOf({100}, dtype), Value(0.3)}));
    if (op == "bernoulli") return bits(call("torch.bernoulli", {call("torch.linspace", {Value(0.0), Value(1.0), Value(int64_t{20})})}));
    if (op == "dropout") {
        const Value ones = call("torch.ones", {sizes({std::stoll(word(name, 2))})}, typed);
        return bits(call("F.dropout", {ones, Value(std::stod(word(name, 1))), Value(true)}));
    }
    if (op == "random_") {
        if (word(name, 1) == "10") return bits(call("Tensor.random_", {emptyOf({9}, DType::Int64), Value(int64_t{10})}));
        return bits(call("Tensor.random_", {emptyOf({5}, word(name, 1) == "int64" ? DType::Int64 : DType::Float32)}));
    }
    if (op == "multinomial") {
        if (word(name, 1) == "replace") {
            const Value p = call("torch.tensor", {Value::list({Value(0.1), Value(0.2), Value(0.3), Value(0.0), Value(0.4)})});
            return bits(call("torch.multinomial", {p, Value(int64_t{8}), Value(true)}));
        }
        const Value p = call("torch.arange", {Value(1.0), Value(11.0)});
        return bits(call("torch.multinomial", {p, Value(std::stoll(word(name, 1)))}));
    }
    if (op == "kaiming_uniform_") return init("torch.nn.init.kaiming_uniform_", {8, 5}, {{"a", Value(std::sqrt(5.0))}});
    if (op == "kaiming_normal_" && word(name, 1) == "8x5") return init("torch.nn.init.kaiming_normal_", {8, 5});
    if (op == "kaiming_normal_")
        return init("torch.nn.init.kaiming_normal_", {4, 3, 3, 3}, {{"mode", Value("fan_out")}, {"nonlinearity", Value("relu")}});
    if (op == "xavier_uniform_" && word(name, 1) == "gain2") return init("torch.nn.init.xavier_uniform_", {6, 4}, {{"gain", Value(2.0)}});
    if (op == "xavier_uniform_") return init("torch.nn.init.xavier_uniform_", {8, 5});
    if (op == "xavier_normal_") return init("torch.nn.init.xavier_normal_", {8, 5});
    if (op == "trunc_normal_" && word(name, 1) == "default") return init("torch.nn.init.trunc_normal_", {100});
    if (op == "trunc_normal_") return init("torch.nn.init.trunc_normal_", {8, 5}, {{"std", Value(0.02)}});
    if (op == "normal_") return init("torch.nn.init.normal_", {8, 5}, {{"std", Value(0.02)}});
    if (op == "uniform_") return init("torch.nn.init.uniform_", {8, 5}, {{"a", Value(-0.1)}, {"b", Value(0.1)}});
    if (op == "generator") {
        call("torch.manual_seed", {Value(int64_t{7})});
        const Value g = call("torch._cwb_generator_new", {});
        call("torch._cwb_generator_manual_seed", {g, Value(seed)});
        const KeywordArgs with = {{"generator", g}};
        json out = json::array();
        out.push_back(bits(call("torch.rand", {sizes({5})}, with)));
        out.push_back(bits(call("torch.randn", {sizes({17})}, with)));
        out.push_back(bits(call("torch.randn", {sizes({3})}, with)));
        out.push_back(bits(call("torch.randint", {Value(int64_t{0}), Value(int64_t{100}), sizes({6})}, with)));
        out.push_back(bits(call("torch.randperm", {Value(int64_t{8})}, with)));
        out.push_back(bits(call("Tensor.normal_", {emptyOf({4})}, with)));
        out.push_back(bits(call("Tensor.uniform_", {emptyOf({4})}, with)));
        out.push_back(bits(call("torch.rand", {sizes({3})})));
        out.push_back(call("torch._cwb_generator_initial_seed", {g}).toInt());
        return out;
    }
    return std::nullopt;
}

// A nested list (a 2-D tensor's tolist()) as its elements in order.
json flattened(const json& values) {
    if (!values.is_array() || values.empty() || !values[0].is_array()) return values;
    json out = json::array();
    for (const json& row : values)
        for (const json& v : flattened(row)) out.push_back(v);
    return out;
}

json groundTruth() {
    std::ifstream in(std::string(CWB_TEST_DATA_DIR) + "/tensor_runtime/torch_rng.json");
    return json::parse(in);
}

TEST(RandomTorch, EveryCaseDrawsPyTorchsNumbers) {
    const json truth = groundTruth();
    int compared = 0;
    std::map<std::string, int> failures;
    for (const json& c : truth["cases"]) {
        const std::string name = c["name"];
        const int64_t seed = c["seed"];
        call("torch.manual_seed", {Value(seed)});
        const std::optional<json> mine = cwbValues(name, seed);
        if (!mine) continue;
        ++compared;
        const json expected = name == "generator" || name == "randn mixed" ? c["values"] : flattened(c["values"]);
        if (name.starts_with("trunc_normal_")) {
            // erfinv's last rounding: within one float ulp of torch's.
            for (size_t i = 0; i < expected.size(); ++i)
                EXPECT_LE(std::abs(expected[i].get<int64_t>() - (*mine)[i].get<int64_t>()), 1) << name << " seed " << seed << " element " << i;
            continue;
        }
        if (*mine != expected) {
            if (failures[name]++ == 0) ADD_FAILURE() << name << " seed " << seed << "\n torch " << expected.dump().substr(0, 300) << "\n cwb   " << mine->dump().substr(0, 300);
        }
    }
    EXPECT_GT(compared, 350);
    EXPECT_TRUE(failures.empty()) << failures.size() << " cases differ";
}

TEST(RandomTorch, StateBytesAreTorchsLayout) {
    const json states = groundTruth()["states"];
    auto stateOf = [] { return bits(call("torch.get_rng_state", {})); };
    call("torch.manual_seed", {Value(int64_t{42})});
    EXPECT_EQ(stateOf(), states["after_seed42"]);
    const Value seeded = call("torch.get_rng_state", {});
    call("torch.randn", {sizes({3})});
    call("torch.randn", {sizes({1})});
    call("torch.randn", {sizes({1})}, {{"dtype", Value(DType::Float64)}});
    EXPECT_EQ(stateOf(), states["after_draws"]);
    call("torch.set_rng_state", {seeded});
    EXPECT_EQ(bits(call("torch.rand", {sizes({3})})), states["after_restore_rand"]);
    EXPECT_EQ(call("torch.initial_seed", {}).toInt(), states["after_restore_initial_seed"].get<int64_t>());
    call("torch.manual_seed", {Value(int64_t{1} << 40 | 3)});
    EXPECT_EQ(call("torch.initial_seed", {}).toInt(), states["initial_seed_big"].get<int64_t>());
    const Value g = call("torch._cwb_generator_new", {});
    call("torch._cwb_generator_manual_seed", {g, Value(int64_t{5})});
    EXPECT_EQ(bits(call("torch._cwb_generator_get_state", {g})), states["gen_state_after_seed5"]);
    const Value wrongSize = call("torch.zeros", {sizes({10})}, {{"dtype", Value(DType::UInt8)}});
    try {
        call("torch.set_rng_state", {wrongSize});
        ADD_FAILURE() << "a 10-byte state was accepted";
    } catch (const TensorError& e) {
        EXPECT_NE(std::string(e.what()).find("Expected a CPUGeneratorImplState of size 5056"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace eng::tensor
