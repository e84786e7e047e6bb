// Statement families of the program generator on control flow and dtypes: branches and loops on shapes (guards,
// recompiles), graph breaks in f and in a function f calls, printing, and integer/bool arithmetic with PyTorch's
// type promotion.
#include "generator_state.h"

namespace cwb::fuzz::generator {

/// Control flow on a shape: a guard (and a recompile when the sizes cross it), never a graph break.
bool Generator::shapeBranch(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return !v.dims.empty() && v.dtype != DType::Bool; });
    if (!x) return false;
    return branch(s, *x, fmt::format("{}.shape[0] > {}", x->name, pick(2, 5)), "{} * 2", "{} - 1");
}

/// `if condition:` / `else:`, each branch defining the same new variable from x (the patterns' `{}`).
bool Generator::branch(Statement& s, const Var& x, const std::string& condition, const char* thenPattern, const char* elsePattern) {
    Var v = define(s, x.dims, x.dtype);
    s.lines.push_back("if " + condition + ":");
    s.lines.push_back("    " + v.name + " = " + fmt::format(fmt::runtime(thenPattern), x.name));
    s.lines.push_back("else:");
    s.lines.push_back("    " + v.name + " = " + fmt::format(fmt::runtime(elsePattern), x.name));
    vars_.push_back(v);
    return true;
}

bool Generator::graphBreak(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
    if (!x || chance(0.4)) {
        s.lines.push_back("torch._dynamo.graph_break()");
        return true;
    }
    // .item() ends the graph; the Python number it gives feeds the next graph.
    const Var* y = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
    Var v = define(s, y->dims, isFloat(x->dtype) ? promote(y->dtype, DType::F32) : y->dtype);
    s.lines.push_back(fmt::format("s{} = {}.sum().item()", next_, x->name));
    s.lines.push_back(fmt::format("{} = {} * s{}", v.name, y->name, next_));
    vars_.push_back(v);
    return true;
}

bool Generator::tensorBranch(Statement& s) {
    const Var* c = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
    const Var* x = anyWhere([](const Var& v) { return isFloat(v.dtype); });
    if (!c || !x) return false;
    // A float sum is rounded first: sums that are 0 in exact arithmetic (x beside -x) come out as 0 or as a few
    // ulps either side depending on the order of the additions, which eager and a kernel may choose differently.
    const std::string sum = c->name + (isFloat(c->dtype) ? ".sum().round()" : ".sum()");
    return branch(s, *x, sum + " > 0", "{} + 1.0", "{} * -1.0");
}

bool Generator::print(Statement& s) {
    const Var* x = anyWhere([](const Var&) { return true; });
    if (!x) return false;
    s.lines.push_back(fmt::format(fmt::runtime(choose(std::vector<std::string>{"print({0}.shape)", "print({0}.dtype, {0}.dim())"})), x->name));
    return true;
}


/// Shapes as Python numbers driving control flow and sizes: a loop over a shape (unrolled, one guard per trip
/// count), branches on numel/ndim/size(-1), and tensors created or reshaped from shape values.
bool Generator::shapeControl(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return !v.dims.empty() && v.dtype != DType::Bool; });
    if (!x) return false;
    const std::string& v = x->name;
    int rank = static_cast<int>(x->dims.size());
    switch (pick(0, 5)) {
        case 0: {
            Var out = define(s, x->dims, x->dtype);
            s.lines.push_back(fmt::format("{} = {} * 1", out.name, v));
            s.lines.push_back(fmt::format(fmt::runtime(choose(std::vector<std::string>{
                                              "for i in range({}.shape[0] % 3 + 1):", "for i in range({}.dim()):",
                                              "for i in range(len({}) // 2):", "for i in range({}.size(-1) - 1):"})),
                                          v));
            s.lines.push_back(fmt::format("    {0} = {0} + i", out.name));
            vars_.push_back(out);
            return true;
        }
        case 1:
            return branch(s, *x,
                          choose(std::vector<std::string>{fmt::format("{}.numel() % 2 == 0", v),
                                                          fmt::format("{}.ndim == {}", v, rank),
                                                          fmt::format("{}.size(-1) >= {}", v, pick(2, 5)),
                                                          fmt::format("len({}) < 4 and {}.shape[-1] > 1", v, v)}),
                          "{} + 1", "{} - 2");
        case 2:
            return assign(s, {x->dims[0]}, DType::I64,
                          fmt::format("torch.arange({0}.shape[0], device={0}.device) + {0}.shape[0]", v));
        case 3:
            return assign(s, {x->dims.back(), "2"}, DType::F32,
                          fmt::format("torch.ones({0}.size(-1), 2, device={0}.device) * {0}.dim()", v));
        case 4: {
            if (rank < 2) return false;
            std::string rest = "(" + x->dims[1];
            for (int i = 2; i < rank; ++i) rest += "*" + x->dims[static_cast<size_t>(i)];
            return assign(s, {x->dims[0], rest + ")"}, x->dtype,
                          fmt::format(fmt::runtime(x->contiguous && chance(0.5) ? "{0}.view({0}.shape[0], -1)"
                                                                                 : "{0}.reshape({0}.size(0), -1)"),
                                      v));
        }
        default:
            return assign(s, x->dims, x->dtype, fmt::format("{0}.new_zeros({0}.shape) + {0}", v));
    }
}

/// A graph break inside a function f calls (a nested def), or inside a loop: the frame is split mid-function and
/// the rest of the callee and of f run in graphs of their own.
bool Generator::breakInCallee(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
    if (!x) return false;
    std::string breaker = choose(std::vector<std::string>{"torch._dynamo.graph_break()", "print(\"mid\")"});
    if (chance(0.5)) {
        Var out = define(s, x->dims, promote(x->dtype, DType::F32));
        s.lines.push_back(fmt::format("{} = {} * 1.0", out.name, x->name));
        s.lines.push_back("for i in range(2):");
        s.lines.push_back(fmt::format("    {0} = {0} * 0.5 + i", out.name));
        s.lines.push_back("    " + breaker);
        vars_.push_back(out);
        return true;
    }
    std::string helper = "h" + std::to_string(next_);
    Var out = define(s, x->dims, x->dtype);
    s.lines.push_back(fmt::format("def {}(t):", helper));
    s.lines.push_back("    u = t * 2");
    s.lines.push_back("    " + breaker);
    s.lines.push_back(x->dims.empty() || chance(0.5) ? "    return u - t" : "    return u + t.shape[0]");
    s.lines.push_back(fmt::format("{} = {}({})", out.name, helper, x->name));
    vars_.push_back(out);
    return true;
}

/// Integer and bool arithmetic and mixed dtypes: floor/trunc division and remainders of negative numbers, bitwise
/// ops and shifts, int32 with int64, ints with Python floats, math functions of ints (float results).
bool Generator::promotion(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return !isFloat(v.dtype); });
    if (!x) return false;
    const std::string& v = x->name;
    std::vector<std::string> dims;
    const Var* y = anyWhere([&](const Var& w) { return w.name != v && broadcast(x->dims, w.dims, dims); });
    if (y && chance(0.4)) {
        broadcast(x->dims, y->dims, dims);
        DType both = promote(x->dtype, y->dtype);
        if (x->dtype == DType::Bool && y->dtype == DType::Bool)
            return assign(s, dims, DType::Bool, fmt::format(fmt::runtime(choose(std::vector<std::string>{
                                                                "{} | {}", "{} ^ {}", "torch.logical_and({}, {})"})),
                                                            v, y->name));
        if (isInt(both) && !isFloat(y->dtype) && chance(0.5))
            return assign(s, dims, both, fmt::format(fmt::runtime(choose(std::vector<std::string>{
                                                         "{} & {}", "{} | {}", "{} ^ {}",
                                                         "torch.div({}, {}.abs() + 1, rounding_mode=\"floor\")",
                                                         "torch.div({}, {}.abs() + 1, rounding_mode=\"trunc\")",
                                                         "torch.remainder({}, {}.abs() + 1)", "{} // ({}.abs() + 1)"})),
                                                     v, y->name));
        DType result = both == DType::Bool ? DType::I64 : both;
        return assign(s, dims, result, fmt::format("{} * 3 + {}", v, y->name));
    }
    std::vector<std::pair<std::string, DType>> options = {
        {"{} * 0.5", DType::F32},       {"{} + 1.5", DType::F32},       {"{} / 2", DType::F32},
        {"torch.sqrt({}.abs())", DType::F32}, {"torch.sin({})", DType::F32}, {"torch.exp({} * 0.25)", DType::F32},
        {"torch.where({0} > 0, {0}, 0.5)", DType::F32}, {"{} > 0.5", DType::Bool}, {"torch.clamp({}, min=-1.5, max=2.5)", DType::F32},
        {"torch.maximum({0}, torch.tensor(0.25, device={0}.device))", DType::F32}};
    if (x->dtype == DType::Bool) {
        options.push_back({"{} * 2", DType::I64});
        options.push_back({"{} + {}", DType::Bool});
        options.push_back({"{}.sum() + {}", DType::I64});
    } else {
        for (const char* p : {"{} // -2", "{} % -3", "torch.fmod({}, 3)", "torch.remainder({}, -4)", "{} << 1",
                              "{} >> 1", "torch.bitwise_not({})", "{}.sign()", "{} * 2 - 7", "-{} // 3"})
            options.push_back({p, x->dtype});
        options.push_back({"{}.int() * 3 + 1", DType::I32});
        options.push_back({"{0}.to(torch.int32) + {0}", x->dtype == DType::I32 ? DType::I32 : DType::I64});
    }
    const auto& [pattern, dtype] = choose(options);
    return assign(s, x->dims, dtype, fmt::format(fmt::runtime(pattern), v, v));
}

}  // namespace cwb::fuzz::generator
