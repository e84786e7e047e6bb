// Random programs for differential fuzzing (program_generator.h). Shapes are tracked symbolically ("n", "3",
// "(n+3)") so that every statement stays valid for every size f is called with.
#include "program_generator.h"

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <random>

namespace cwb::fuzz {
namespace {

enum class DType { F32, F64, I64, Bool };

struct Var {
    std::string name;
    std::vector<std::string> dims;
    DType dtype = DType::F32;
    bool isInput = false;
};

bool isFloat(DType d) { return d == DType::F32 || d == DType::F64; }

/// PyTorch's promotion for two tensors of these categories (bool < int < float; float widths take the wider).
DType promote(DType a, DType b) {
    if (a == b) return a;
    if (isFloat(a) && isFloat(b)) return DType::F64;
    if (isFloat(a)) return a;
    if (isFloat(b)) return b;
    return DType::I64;
}

/// Broadcast of two symbolic shapes, aligned on the right; false when they cannot broadcast.
bool broadcast(const std::vector<std::string>& a, const std::vector<std::string>& b, std::vector<std::string>& out) {
    size_t rank = std::max(a.size(), b.size());
    out.assign(rank, "1");
    for (size_t i = 0; i < rank; ++i) {
        const std::string* x = i < rank - a.size() ? nullptr : &a[i - (rank - a.size())];
        const std::string* y = i < rank - b.size() ? nullptr : &b[i - (rank - b.size())];
        if (!x) out[i] = *y;
        else if (!y) out[i] = *x;
        else if (*x == *y || *y == "1") out[i] = *x;
        else if (*x == "1") out[i] = *y;
        else return false;
    }
    return true;
}

bool isConst(const std::string& dim) { return !dim.empty() && std::all_of(dim.begin(), dim.end(), ::isdigit); }

class Generator {
public:
    Generator(uint64_t seed, const std::set<std::string>& enabled) : rng_(seed), enabled_(enabled) {}

    Program run(uint64_t seed) {
        Program program;
        program.seed = seed;
        int inputs = pick(1, 3);
        for (int i = 0; i < inputs; ++i) addInput(program);
        int statements = pick(3, 10);
        for (int i = 0; i < statements * 4 && static_cast<int>(program.body.size()) < statements; ++i) {
            Statement s;
            if (emit(s)) program.body.push_back(std::move(s));
        }
        int calls = pick(1, 3);
        for (int i = 0; i < calls; ++i) program.sizes.push_back(pick(2, 6));
        return program;
    }

private:
    std::mt19937_64 rng_;
    std::set<std::string> enabled_;
    std::vector<Var> vars_;
    int next_ = 0;
    bool hasScalarArg_ = false;

    bool on(const std::string& feature) const { return enabled_.count(feature) != 0; }
    int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    template <typename T> const T& choose(const std::vector<T>& items) { return items[pick(0, static_cast<int>(items.size()) - 1)]; }
    std::string fresh() { return fmt::format("v{}", next_++); }
    std::string literal() { return choose(std::vector<std::string>{"0.5", "2.0", "-1.5", "3", "0.25", "-2"}); }

    std::vector<const Var*> varsWhere(const std::function<bool(const Var&)>& keep) const {
        std::vector<const Var*> out;
        for (const Var& v : vars_)
            if (keep(v)) out.push_back(&v);
        return out;
    }
    const Var* anyWhere(const std::function<bool(const Var&)>& keep) {
        auto found = varsWhere(keep);
        return found.empty() ? nullptr : found[pick(0, static_cast<int>(found.size()) - 1)];
    }
    Var define(Statement& s, std::vector<std::string> dims, DType dtype) {
        Var v{fresh(), std::move(dims), dtype, false};
        s.defines.push_back(v.name);
        return v;
    }
    /// One statement `vN = expr` defining a new variable.
    bool assign(Statement& s, std::vector<std::string> dims, DType dtype, const std::string& expr) {
        Var v = define(s, std::move(dims), dtype);
        s.lines.push_back(v.name + " = " + expr);
        vars_.push_back(v);
        return true;
    }

    void addInput(Program& program) {
        static const char* names[] = {"a", "b", "c"};
        Var v;
        v.name = names[program.params.size()];
        v.isInput = true;
        int rank = pick(0, 3);
        for (int i = 0; i < rank; ++i) v.dims.push_back(choose(std::vector<std::string>{"n", "n", "1", "2", "3", "4", "5"}));
        int kind = pick(0, 9);
        v.dtype = kind < 6 ? DType::F32 : kind < 7 ? DType::F64 : kind < 9 ? DType::I64 : DType::Bool;
        std::string numel = "1";
        for (const std::string& d : v.dims) numel += "*" + d;
        std::string shape = "(";
        for (const std::string& d : v.dims) shape += d + ", ";
        shape += ")";
        if (v.dims.empty()) shape = "(())";
        std::string offset = fmt::format("{}", pick(0, 9));
        std::string base;
        if (isFloat(v.dtype))
            base = fmt::format("torch.sin(torch.arange({}, dtype=torch.{}, device=device) * 0.37 + {})", numel,
                               v.dtype == DType::F32 ? "float32" : "float64", offset);
        else if (v.dtype == DType::I64)
            base = fmt::format("(torch.arange({}, device=device) * 7 + {}) % 11 - 5", numel, offset);
        else
            base = fmt::format("(torch.arange({}, device=device) * 5 + {}) % 3 == 0", numel, offset);
        // A transposed input (rank 2 or 3) reaches f with non-contiguous strides.
        if ((rank == 2 || rank == 3) && chance(0.3)) {
            std::vector<std::string> swapped = v.dims;
            std::swap(swapped.front(), swapped.back());
            std::string swappedShape = "(";
            for (const std::string& d : swapped) swappedShape += d + ", ";
            program.paramInits.push_back(fmt::format("({}).reshape{}.transpose(0, -1)", base, swappedShape + ")"));
        } else {
            program.paramInits.push_back(fmt::format("({}).reshape{}", base, shape));
        }
        program.params.push_back(v.name);
        vars_.push_back(v);
    }

    bool emit(Statement& s) {
        static const std::vector<std::pair<std::string, bool (Generator::*)(Statement&)>> families = {
            {"pointwise", &Generator::unary},        {"broadcast", &Generator::binary},
            {"pointwise", &Generator::compare},      {"reduction", &Generator::reduction},
            {"view", &Generator::view},              {"inplace", &Generator::inplace},
            {"inplace-view", &Generator::inplaceView}, {"inplace-input", &Generator::inplaceInput},
            {"matmul", &Generator::matmul},          {"dtype", &Generator::convert},
            {"shape-branch", &Generator::shapeBranch}, {"graph-break", &Generator::graphBreak},
            {"tensor-branch", &Generator::tensorBranch}, {"print", &Generator::print},
            {"cat", &Generator::cat},                {"scalar-arg", &Generator::scalarUse},
            {"broadcast", &Generator::where}};
        const auto& [feature, make] = choose(families);
        if (!on(feature)) return false;
        s.feature = feature;
        if (!(this->*make)(s)) {
            s = Statement{};
            return false;
        }
        return true;
    }

    bool unary(Statement& s) {
        const Var* x = anyWhere([](const Var&) { return true; });
        if (!x) return false;
        std::string expr;
        if (isFloat(x->dtype))
            expr = fmt::format(fmt::runtime(choose(std::vector<std::string>{
                "torch.sin({})", "torch.cos({})", "torch.tanh({})", "torch.sigmoid({})", "torch.relu({})", "{}.abs()",
                "-{}", "torch.exp({}.clamp(-4.0, 4.0))", "torch.sqrt({}.abs() + 0.5)", "torch.nn.functional.gelu({})",
                "{} * {}", "torch.log({}.abs() + 1.0)", "{}.round()", "torch.floor({} * 3.0)", "{} ** 2",
                "torch.rsqrt({}.abs() + 1.0)", "{}.clamp(min=-0.3)"})), x->name, x->name);
        else if (x->dtype == DType::I64)
            expr = fmt::format(fmt::runtime(choose(std::vector<std::string>{"-{}", "{}.abs()", "{} * {}", "{} % 3", "{} // 2",
                                                               "{} + 1", "torch.clamp({}, -2, 2)"})), x->name, x->name);
        else
            expr = fmt::format(fmt::runtime(choose(std::vector<std::string>{"~{}", "{}.logical_not()", "{} & {}"})), x->name, x->name);
        return assign(s, x->dims, x->dtype, expr);
    }

    /// A second operand that broadcasts with x: another variable, or a Python scalar.
    bool binary(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
        if (!x) return false;
        std::vector<std::string> dims;
        const Var* y = anyWhere([&](const Var& v) { return v.dtype != DType::Bool && broadcast(x->dims, v.dims, dims); });
        std::string op = choose(std::vector<std::string>{"+", "-", "*", "max", "min", "/"});
        if (!y || chance(0.25)) {
            std::string scalar = literal();
            DType dtype = x->dtype == DType::I64 && scalar.find('.') != std::string::npos ? DType::F32 : x->dtype;
            if (op == "/" || op == "max" || op == "min") op = "*";
            Var v = define(s, x->dims, dtype);
            s.lines.push_back(fmt::format(fmt::runtime(chance(0.5) ? "{0} = {1} {2} {3}" : "{0} = {3} {2} {1}"), v.name, x->name, op, scalar));
            vars_.push_back(v);
            return true;
        }
        broadcast(x->dims, y->dims, dims);
        DType dtype = promote(x->dtype, y->dtype);
        std::string expr;
        if (op == "max" || op == "min") expr = fmt::format("torch.{}imum({}, {})", op, x->name, y->name);
        else if (op == "/") {
            expr = fmt::format("{} / ({}.abs() + 1)", x->name, y->name);
            if (!isFloat(dtype)) dtype = DType::F32;
        } else expr = fmt::format("{} {} {}", x->name, op, y->name);
        return assign(s, dims, dtype, expr);
    }

    bool compare(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
        if (!x) return false;
        std::vector<std::string> dims = x->dims;
        const Var* y = anyWhere([&](const Var& v) { return v.dtype != DType::Bool && broadcast(x->dims, v.dims, dims); });
        std::string op = choose(std::vector<std::string>{">", "<", ">=", "==", "!="});
        std::string other = y && chance(0.5) ? y->name : "0";
        if (other == "0") dims = x->dims;
        else broadcast(x->dims, y->dims, dims);
        Var v = define(s, dims, DType::Bool);
        s.lines.push_back(fmt::format("{} = {} {} {}", v.name, x->name, op, other));
        vars_.push_back(v);
        return true;
    }

    bool where(Statement& s) {
        const Var* c = anyWhere([](const Var& v) { return v.dtype == DType::Bool; });
        if (!c) return false;
        std::vector<std::string> dims;
        const Var* x = anyWhere([&](const Var& v) { return v.dtype != DType::Bool && broadcast(c->dims, v.dims, dims); });
        if (!x) return false;
        broadcast(c->dims, x->dims, dims);
        std::string other = isFloat(x->dtype) ? "0.0" : "0";
        Var v = define(s, dims, x->dtype);
        s.lines.push_back(fmt::format(fmt::runtime(chance(0.5) ? "{0} = torch.where({1}, {2}, {3})" : "{0} = torch.where({1}, {3}, {2})"),
                                      v.name, c->name, x->name, other));
        vars_.push_back(v);
        return true;
    }

    bool reduction(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return !v.dims.empty(); });
        if (!x) return false;
        int rank = static_cast<int>(x->dims.size());
        int dim = pick(0, rank - 1);
        std::vector<std::string> kept = x->dims, dropped = x->dims;
        kept[dim] = "1";
        dropped.erase(dropped.begin() + dim);
        std::vector<std::pair<std::string, std::vector<std::string>>> options;
        DType dtype = x->dtype == DType::Bool ? DType::I64 : x->dtype;
        options.push_back({fmt::format("{}.sum(dim={})", x->name, dim), dropped});
        options.push_back({fmt::format("{}.sum()", x->name), {}});
        options.push_back({fmt::format("{}.sum(dim={}, keepdim=True)", x->name, dim), kept});
        if (x->dtype != DType::Bool) {
            options.push_back({fmt::format("{}.amax(dim={})", x->name, dim), dropped});
            options.push_back({fmt::format("{}.amin(dim={}, keepdim=True)", x->name, dim), kept});
        }
        if (isFloat(x->dtype)) {
            options.push_back({fmt::format("{}.mean(dim={})", x->name, dim), dropped});
            options.push_back({fmt::format("torch.softmax({}, dim={})", x->name, dim), x->dims});
            options.push_back({fmt::format("torch.logsumexp({}, dim={})", x->name, dim), dropped});
            options.push_back({fmt::format("{}.cumsum({})", x->name, dim), x->dims});
            options.push_back({fmt::format("{} - {}.mean(dim={}, keepdim=True)", x->name, x->name, dim), x->dims});
            options.push_back({fmt::format("{}.var(dim={})", x->name, dim), dropped});
        }
        const auto& [expr, dims] = choose(options);
        if (expr.find(".var(") != std::string::npos && x->dims[dim] == "1") return false;
        return assign(s, dims, dtype, expr);
    }

    bool view(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return !v.dims.empty(); });
        if (!x) return false;
        std::vector<std::string> dims = x->dims;
        int rank = static_cast<int>(dims.size());
        std::string expr;
        switch (pick(0, 8)) {
            case 0:
                if (rank < 2) return false;
                std::swap(dims.front(), dims.back());
                expr = fmt::format("{}.transpose(0, -1)", x->name);
                break;
            case 1: {
                int at = pick(0, rank);
                dims.insert(dims.begin() + at, "1");
                expr = fmt::format("{}.unsqueeze({})", x->name, at);
                break;
            }
            case 2: {
                std::string all = "(" + dims[0];
                for (int i = 1; i < rank; ++i) all += "*" + dims[i];
                dims = {all + ")"};
                expr = fmt::format(fmt::runtime(chance(0.5) ? "{}.reshape(-1)" : "{}.flatten()"), x->name);
                break;
            }
            case 3:
                if (dims[0] == "1") return false;
                dims[0] = isConst(dims[0]) ? std::to_string(std::stoi(dims[0]) - 1) : "(" + dims[0] + "-1)";
                expr = fmt::format("{}[1:]", x->name);
                break;
            case 4:
                if (rank < 2) return false;
                dims[1] = isConst(dims[1]) ? std::to_string((std::stoi(dims[1]) + 1) / 2) : "ceil(" + dims[1] + "/2)";
                expr = fmt::format("{}[:, ::2]", x->name);
                break;
            case 5:
                if (rank < 2) return false;
                dims.erase(dims.begin());
                expr = fmt::format("{}[0]", x->name);
                break;
            case 6: {
                auto one = std::find(dims.begin(), dims.end(), "1");
                if (one == dims.end()) return false;
                std::string sizes;
                for (size_t i = 0; i < dims.size(); ++i) sizes += (i ? ", " : "") + std::string(dims.begin() + i == one ? "3" : "-1");
                *one = "3";
                expr = fmt::format("{}.expand({})", x->name, sizes);
                break;
            }
            case 7: {
                if (rank != 3) return false;
                std::vector<int> order = {0, 1, 2};
                std::shuffle(order.begin(), order.end(), rng_);
                dims = {x->dims[order[0]], x->dims[order[1]], x->dims[order[2]]};
                expr = fmt::format("{}.permute({}, {}, {})", x->name, order[0], order[1], order[2]);
                break;
            }
            default:
                expr = fmt::format(fmt::runtime(chance(0.5) ? "{}.contiguous()" : "{}.clone()"), x->name);
                break;
        }
        return assign(s, dims, x->dtype, expr);
    }

    /// An in-place update of a fresh clone, with an operand that broadcasts into its shape.
    bool inplace(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return isFloat(v.dtype); });
        if (!x) return false;
        std::vector<std::string> dims;
        const Var* y = anyWhere([&](const Var& v) { return v.dtype != DType::Bool && broadcast(x->dims, v.dims, dims) && dims == x->dims; });
        Var v = define(s, x->dims, x->dtype);
        s.lines.push_back(fmt::format("{} = {}.clone()", v.name, x->name));
        std::string update = y && chance(0.6)
            ? fmt::format(fmt::runtime(choose(std::vector<std::string>{"{}.add_({})", "{}.mul_({})", "{} += {}", "{} -= {}", "{}.sub_({}, alpha=0.5)"})), v.name, y->name)
            : fmt::format(fmt::runtime(choose(std::vector<std::string>{"{}.mul_(2.5)", "{}.relu_()", "{}.clamp_(min=-0.5, max=0.5)",
                                                          "{0}.masked_fill_({0} > 0.2, 0.0)", "{} *= 3", "{}.neg_()", "{}.sigmoid_()",
                                                          "{}.zero_()", "{}.fill_(1.5)"})), v.name);
        s.lines.push_back(update);
        vars_.push_back(v);
        return true;
    }

    /// An in-place update through a view of a fresh clone: the clone must see it.
    bool inplaceView(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return isFloat(v.dtype) && !v.dims.empty(); });
        if (!x) return false;
        Var v = define(s, x->dims, x->dtype);
        s.lines.push_back(fmt::format("{} = {}.clone()", v.name, x->name));
        std::vector<std::string> updates = {"{}[0].mul_(2.0)", "{}[1:].add_(1.0)", "{}.transpose(0, -1).mul_(3.0)",
                                            "{}.unsqueeze(0).sub_(0.5)", "{}[0] = 7.0", "{}[-1:] *= 0.5"};
        if (x->dims.size() >= 2)
            for (const char* u : {"{}[:, 0].fill_(0.5)", "{}[:, ::2].zero_()", "{}[:, 1:] += 1.0"}) updates.push_back(u);
        s.lines.push_back(fmt::format(fmt::runtime(choose(updates)), v.name));
        vars_.push_back(v);
        return true;
    }

    bool inplaceInput(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return v.isInput && isFloat(v.dtype); });
        if (!x) return false;
        std::vector<std::string> updates = {"{}.add_(1.0)", "{}.mul_(0.5)", "{} += 2", "{}.clamp_(max=0.25)"};
        if (!x->dims.empty()) updates.push_back("{}[0].fill_(2.0)");
        s.lines.push_back(fmt::format(fmt::runtime(choose(updates)), x->name));
        return true;
    }

    bool matmul(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return isFloat(v.dtype) && v.dims.size() == 2; });
        if (!x) return false;
        const Var* y = anyWhere([&](const Var& v) { return v.dtype == x->dtype && v.dims.size() == 2 && v.dims[0] == x->dims[1]; });
        Var v = y ? define(s, {x->dims[0], y->dims[1]}, x->dtype) : define(s, {x->dims[0], x->dims[0]}, x->dtype);
        s.lines.push_back(y ? fmt::format("{} = {} @ {}", v.name, x->name, y->name)
                            : fmt::format("{} = torch.mm({}, {}.t())", v.name, x->name, x->name));
        vars_.push_back(v);
        return true;
    }

    bool convert(Statement& s) {
        const Var* x = anyWhere([](const Var&) { return true; });
        if (!x) return false;
        std::vector<std::pair<std::string, DType>> options = {
            {"{}.float()", DType::F32}, {"{}.double()", DType::F64}, {"{}.to(torch.float64)", DType::F64}};
        if (isFloat(x->dtype)) options.push_back({"({} * 4).long()", DType::I64});
        if (x->dtype != DType::Bool) options.push_back({"({} > 0).to(torch.int64)", DType::I64});
        const auto& [pattern, dtype] = choose(options);
        return assign(s, x->dims, dtype, fmt::format(fmt::runtime(pattern), x->name));
    }

    /// Control flow on a shape: a guard (and a recompile when the sizes cross it), never a graph break.
    bool shapeBranch(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return !v.dims.empty() && v.dtype != DType::Bool; });
        if (!x) return false;
        return branch(s, *x, fmt::format("{}.shape[0] > {}", x->name, pick(2, 5)), "{} * 2", "{} - 1");
    }

    /// `if condition:` / `else:`, each branch defining the same new variable from x (the patterns' `{}`).
    bool branch(Statement& s, const Var& x, const std::string& condition, const char* thenPattern, const char* elsePattern) {
        Var v = define(s, x.dims, x.dtype);
        s.lines.push_back("if " + condition + ":");
        s.lines.push_back("    " + v.name + " = " + fmt::format(fmt::runtime(thenPattern), x.name));
        s.lines.push_back("else:");
        s.lines.push_back("    " + v.name + " = " + fmt::format(fmt::runtime(elsePattern), x.name));
        vars_.push_back(v);
        return true;
    }

    bool graphBreak(Statement& s) {
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

    bool tensorBranch(Statement& s) {
        const Var* c = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
        const Var* x = anyWhere([](const Var& v) { return isFloat(v.dtype); });
        if (!c || !x) return false;
        return branch(s, *x, c->name + ".sum() > 0", "{} + 1.0", "{} * -1.0");
    }

    bool print(Statement& s) {
        const Var* x = anyWhere([](const Var&) { return true; });
        if (!x) return false;
        s.lines.push_back(fmt::format(fmt::runtime(choose(std::vector<std::string>{"print({0}.shape)", "print({0}.dtype, {0}.dim())"})), x->name));
        return true;
    }

    bool cat(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return !v.dims.empty(); });
        if (!x) return false;
        int dim = pick(0, static_cast<int>(x->dims.size()) - 1);
        const Var* y = anyWhere([&](const Var& v) {
            if (v.dims.size() != x->dims.size() || v.dtype != x->dtype) return false;
            for (size_t i = 0; i < v.dims.size(); ++i)
                if (static_cast<int>(i) != dim && v.dims[i] != x->dims[i]) return false;
            return true;
        });
        std::vector<std::string> dims = x->dims;
        if (chance(0.3) && y->dims == x->dims) {
            dims.insert(dims.begin(), "2");
            Var v = define(s, dims, x->dtype);
            s.lines.push_back(fmt::format("{} = torch.stack([{}, {}])", v.name, x->name, y->name));
            vars_.push_back(v);
            return true;
        }
        dims[dim] = "(" + x->dims[dim] + "+" + y->dims[dim] + ")";
        Var v = define(s, dims, x->dtype);
        s.lines.push_back(fmt::format("{} = torch.cat([{}, {}], dim={})", v.name, x->name, y->name, dim));
        vars_.push_back(v);
        return true;
    }

    /// The int argument k, and sizes read from shapes, as Python numbers in tensor arithmetic.
    bool scalarUse(Statement& s) {
        const Var* x = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
        if (!x) return false;
        std::string factor = hasScalarArgument() ? "k" : "1";
        if (!x->dims.empty() && chance(0.5)) factor = fmt::format("{}.shape[0]", x->name);
        Var v = define(s, x->dims, x->dtype);
        s.lines.push_back(fmt::format(fmt::runtime(chance(0.5) ? "{} = {} * {}" : "{} = {} + {}"), v.name, x->name, factor));
        vars_.push_back(v);
        return true;
    }
    bool hasScalarArgument() const { return hasScalarArg_; }

public:
    void setScalarArg(bool on) { hasScalarArg_ = on; }
};

}  // namespace

Program generateProgram(uint64_t seed, const std::set<std::string>& enabled) {
    Generator generator(seed, enabled);
    // k exists from the start when the seed's first draw says so; statements may then use it.
    std::mt19937_64 first(seed ^ 0x9e3779b97f4a7c15ull);
    bool scalarArg = enabled.count("scalar-arg") && std::uniform_real_distribution<double>(0, 1)(first) < 0.4;
    generator.setScalarArg(scalarArg);
    Program program = generator.run(seed);
    program.scalarArg = scalarArg;
    return program;
}

std::string renderProgram(const Program& program) {
    std::string params;
    for (const std::string& p : program.params) params += (params.empty() ? "" : ", ") + p;
    if (program.scalarArg) params += ", k";
    std::string out = fmt::format(
        "# Differential fuzzing program (seed {}): eager and every compiled configuration must agree.\n"
        "import torch\n\n\ndef f({}):\n", program.seed, params);
    std::string returned;
    for (const Statement& s : program.body) {
        for (const std::string& line : s.lines) out += "    " + line + "\n";
        for (const std::string& d : s.defines) returned += (returned.empty() ? "" : ", ") + d;
    }
    out += "    return [" + returned + "]\n\n\n";
    out += "def run(device, backend, mode):\n"
           "    fn = f if backend == \"none\" else torch.compile(f, backend=backend, mode=mode)\n"
           "    outs = []\n";
    std::string sizes;
    for (int n : program.sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(n);
    out += "    for n in [" + sizes + "]:\n";
    std::string args;
    for (size_t i = 0; i < program.params.size(); ++i) {
        out += fmt::format("        {} = {}\n", program.params[i], program.paramInits[i]);
        args += (args.empty() ? "" : ", ") + program.params[i];
    }
    if (program.scalarArg) args += ", n + 1";
    // CUDA graphs hand out the same output memory on the next call, as PyTorch's do: keep copies under them.
    out += fmt::format("        res = fn({})\n", args);
    out += "        if mode in (\"reduce-overhead\", \"max-autotune\"):\n"
           "            res = [r.clone() for r in res]\n"
           "        outs.extend(res)\n";
    out += fmt::format("        outs.extend([{}])\n", args.substr(0, args.find(", n + 1")));
    out += "    return outs\n\n\ndef main(device):\n    return run(device, \"inductor\", \"default\")\n";
    return out;
}

}  // namespace cwb::fuzz
