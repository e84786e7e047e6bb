// The few standard-library modules such programs import: math (functions and constants), copy
// (copy/deepcopy of containers; tensors are cloned by deepcopy, as torch does), time and resource (clocks and the
// process's CPU time and page faults, for benchmarks) and _types (the native half of the types polyfill).
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <map>
#include <utility>

#include "ops/operators.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

double number(Interpreter& vm, CallArgs& args, size_t i) {
    if (i >= args.positional.size()) typeError("math function expected an argument");
    const Value& v = args.positional[i];
    if (v.isNumber()) return v.asFloat();
    if (v.is(Kind::Tensor)) return callOp("Tensor.__float__", {v}).asFloat();
    typeError("must be real number, not " + vm.classOf(v)->name);
}

Value deepCopy(const Value& v) {
    switch (v.kind()) {
        case Kind::List: {
            ValueList items;
            for (const Value& item : v.as<ListObject>().items) items.push_back(deepCopy(item));
            return makeList(std::move(items));
        }
        case Kind::Tuple: {
            auto tuple = std::make_shared<TupleObject>(v.as<TupleObject>());
            for (Value& item : tuple->items) item = deepCopy(item);
            return Value(tuple);
        }
        case Kind::Dict: {
            auto dict = std::make_shared<DictObject>();
            dict->cls = v.as<DictObject>().cls;
            dict->defaultFactory = v.as<DictObject>().defaultFactory;
            for (auto& [key, value] : v.as<DictObject>().entries()) dict->set(key, deepCopy(value));
            return Value(dict);
        }
        case Kind::Set: return Value(std::make_shared<SetObject>(v.as<SetObject>()));
        case Kind::Tensor: return callOp("Tensor.clone", {v});
        default: return v;
    }
}

}  // namespace

void installStdlib(Interpreter& vm) {
    auto math = std::make_shared<ModuleObject>("math");
    vm.modules()["math"] = Value(math);
    math->attributes["pi"] = Value(M_PI);
    math->attributes["e"] = Value(M_E);
    math->attributes["inf"] = Value(HUGE_VAL);
    math->attributes["nan"] = Value(std::nan(""));
    using UnaryFn = double (*)(double);
    for (auto [name, fn] : {std::pair<const char*, UnaryFn>{"sqrt", std::sqrt}, {"exp", std::exp}, {"log", std::log},
                            {"sin", std::sin}, {"cos", std::cos}, {"tan", std::tan}, {"tanh", std::tanh}, {"fabs", std::fabs},
                            {"log2", std::log2}, {"log10", std::log10}, {"erf", std::erf}, {"erfc", std::erfc},
                            {"asin", std::asin}, {"acos", std::acos}, {"atan", std::atan}, {"sinh", std::sinh},
                            {"cosh", std::cosh}, {"asinh", std::asinh}, {"acosh", std::acosh}, {"atanh", std::atanh},
                            {"log1p", std::log1p}, {"expm1", std::expm1},
                            {"radians", [](double degrees) { return degrees * (M_PI / 180.0); }},
                            {"degrees", [](double radians) { return radians * (180.0 / M_PI); }}})
        math->attributes[name] = makeNative(name, [fn](Interpreter& m, CallArgs& a) { return Value(fn(number(m, a, 0))); });
    math->attributes["floor"] = makeNative("floor", [](Interpreter& m, CallArgs& a) { return Value(static_cast<int64_t>(std::floor(number(m, a, 0)))); });
    math->attributes["ceil"] = makeNative("ceil", [](Interpreter& m, CallArgs& a) { return Value(static_cast<int64_t>(std::ceil(number(m, a, 0)))); });
    math->attributes["pow"] = makeNative("pow", [](Interpreter& m, CallArgs& a) { return Value(std::pow(number(m, a, 0), number(m, a, 1))); });
    math->attributes["isnan"] = makeNative("isnan", [](Interpreter& m, CallArgs& a) { return Value(std::isnan(number(m, a, 0))); });
    math->attributes["isfinite"] = makeNative("isfinite", [](Interpreter& m, CallArgs& a) { return Value(std::isfinite(number(m, a, 0))); });
    math->attributes["atan2"] = makeNative("atan2", [](Interpreter& m, CallArgs& a) { return Value(std::atan2(number(m, a, 0), number(m, a, 1))); });
    math->attributes["isinf"] = makeNative("isinf", [](Interpreter& m, CallArgs& a) { return Value(std::isinf(number(m, a, 0))); });
    math->attributes["isqrt"] = makeNative("isqrt", [](Interpreter&, CallArgs& a) {
        const Value& v = a.positional.at(0);
        if (!v.is(Kind::Int) && !v.is(Kind::Bool)) typeError("'float' object cannot be interpreted as an integer");
        const int64_t n = v.asInt();
        if (n < 0) raise("ValueError", "isqrt() argument must be nonnegative");
        auto root = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
        while (root * root > n) --root;  // the double's root can be one off either way for large n
        while ((root + 1) * (root + 1) <= n) ++root;
        return Value(root);
    });
    math->attributes["gcd"] = makeNative("gcd", [](Interpreter&, CallArgs& a) {
        int64_t g = 0;
        for (const Value& v : a.positional) {
            if (!v.is(Kind::Int) && !v.is(Kind::Bool)) typeError("'float' object cannot be interpreted as an integer");
            int64_t n = std::abs(v.asInt());
            while (n != 0) g = std::exchange(n, g % n);
        }
        return Value(g);
    });
    // CPython's rule: |a-b| <= max(rel_tol * max(|a|, |b|), abs_tol), rel_tol 1e-09 and abs_tol 0 by default.
    math->attributes["isclose"] = makeNative("isclose", [](Interpreter& m, CallArgs& a) {
        const double x = number(m, a, 0), y = number(m, a, 1);
        double relTol = 1e-09, absTol = 0.0;
        for (auto& [name, value] : a.keywords) {
            if (name == "rel_tol") relTol = value.asFloat();
            else if (name == "abs_tol") absTol = value.asFloat();
            else typeError("isclose() got an unexpected keyword argument '" + name + "'");
        }
        if (x == y) return Value(true);
        if (std::isinf(x) || std::isinf(y)) return Value(false);
        const double diff = std::fabs(y - x);
        return Value(diff <= std::fabs(relTol * y) || diff <= std::fabs(relTol * x) || diff <= absTol);
    });
    math->attributes["prod"] = makeNative("prod", [](Interpreter& m, CallArgs& a) {
        Value total(1);
        constexpr uint32_t kMultiply = ops::binaryOpArg(ops::BinaryOperator::Multiply, false);
        for (const Value& v : m.toList(a.positional.at(0))) total = m.binaryOp(kMultiply, total, v);
        return total;
    });

    // The native half of the types polyfill: an object's attributes as sorted (name, value) pairs, which is what
    // SimpleNamespace's == compares (dict equality ignores order) and its repr shows.
    auto types = std::make_shared<ModuleObject>("_types");
    vm.modules()["_types"] = Value(types);
    types->attributes["_instance_items"] = makeNative("_instance_items", [](Interpreter&, CallArgs& a) {
        const Value& object = a.positional.at(0);
        if (!object.is(Kind::Instance)) typeError("_instance_items expects an object");
        std::map<std::string, Value> sorted(object.as<InstanceObject>().attributes.begin(), object.as<InstanceObject>().attributes.end());
        ValueList items;
        for (auto& [name, value] : sorted) items.push_back(makeTuple({makeStr(name), value}));
        return makeList(std::move(items));
    });

    auto copy = std::make_shared<ModuleObject>("copy");
    vm.modules()["copy"] = Value(copy);
    copy->attributes["deepcopy"] = makeNative("deepcopy", [](Interpreter&, CallArgs& a) { return deepCopy(a.positional.at(0)); });
    copy->attributes["copy"] = makeNative("copy", [](Interpreter&, CallArgs& a) {
        const Value& v = a.positional.at(0);
        if (v.is(Kind::List)) return makeList(v.as<ListObject>().items);
        if (v.is(Kind::Dict)) return Value(std::make_shared<DictObject>(v.as<DictObject>()));
        return v;
    });

    // Benchmarks written in the subset time themselves with these, as they would under CPython.
    auto time = std::make_shared<ModuleObject>("time");
    vm.modules()["time"] = Value(time);
    auto secondsSince = [](auto now) { return std::chrono::duration<double>(now.time_since_epoch()).count(); };
    auto nanosSince = [](auto now) {
        return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count());
    };
    time->attributes["perf_counter"] = makeNative("perf_counter", [secondsSince](Interpreter&, CallArgs&) {
        return Value(secondsSince(std::chrono::steady_clock::now()));
    });
    time->attributes["monotonic"] = time->attributes["perf_counter"];
    time->attributes["perf_counter_ns"] = makeNative("perf_counter_ns", [nanosSince](Interpreter&, CallArgs&) {
        return Value(nanosSince(std::chrono::steady_clock::now()));
    });
    time->attributes["time"] = makeNative("time", [secondsSince](Interpreter&, CallArgs&) {
        return Value(secondsSince(std::chrono::system_clock::now()));
    });
    time->attributes["process_time"] = makeNative("process_time", [](Interpreter&, CallArgs&) {
        timespec now{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
        return Value(static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec));
    });

    // resource.getrusage(RUSAGE_SELF | RUSAGE_THREAD): CPython's struct_rusage fields (times in seconds, ru_maxrss in
    // KiB), so that a benchmark can count the page faults and system time of what it times.
    auto resource = std::make_shared<ModuleObject>("resource");
    vm.modules()["resource"] = Value(resource);
    resource->attributes["RUSAGE_SELF"] = Value(int64_t{RUSAGE_SELF});
    resource->attributes["RUSAGE_THREAD"] = Value(int64_t{RUSAGE_THREAD});
    auto rusageClass = std::make_shared<ClassObject>("struct_rusage", vm.builtinClass("object"));
    rusageClass->module = "resource";
    resource->attributes["getrusage"] = makeNative("getrusage", [rusageClass](Interpreter&, CallArgs& a) {
        const int64_t who = a.positional.empty() ? int64_t{RUSAGE_SELF} : a.positional[0].asInt();
        if (who != RUSAGE_SELF && who != RUSAGE_THREAD) raise("ValueError", "invalid who parameter");
        rusage usage{};
        getrusage(static_cast<int>(who), &usage);
        auto seconds = [](const timeval& t) { return Value(static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec)); };
        auto result = std::make_shared<InstanceObject>(rusageClass);
        result->attributes["ru_utime"] = seconds(usage.ru_utime);
        result->attributes["ru_stime"] = seconds(usage.ru_stime);
        result->attributes["ru_maxrss"] = Value(static_cast<int64_t>(usage.ru_maxrss));
        result->attributes["ru_minflt"] = Value(static_cast<int64_t>(usage.ru_minflt));
        result->attributes["ru_majflt"] = Value(static_cast<int64_t>(usage.ru_majflt));
        result->attributes["ru_nvcsw"] = Value(static_cast<int64_t>(usage.ru_nvcsw));
        result->attributes["ru_nivcsw"] = Value(static_cast<int64_t>(usage.ru_nivcsw));
        return Value(result);
    });
}

}  // namespace eng::vm
