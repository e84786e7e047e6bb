// Random programs for differential fuzzing (program_generator.h): the generator's framework, its first statement
// families, and the rendering. Shapes are tracked symbolically ("n", "3", "(n+3)") so that every statement stays
// valid for every size f is called with.
#include "program_generator.h"

#include <algorithm>
#include <cmath>

#include "generator_state.h"

namespace cwb::fuzz::generator {

DType promote(DType a, DType b) {
    if (a == b) return a;
    if (isFloat(a) && isFloat(b)) return DType::F64;
    if (isFloat(a)) return a;
    if (isFloat(b)) return b;
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    return DType::I64;
}

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

namespace {

/// Recursive descent over the size expressions the statements write: numbers, n, + - * /, ceil(...), min(a,b).
struct SizeParser {
    const std::string& text;
    size_t at = 0;
    int n;
    double sum() {
        double value = product();
        while (at < text.size() && (text[at] == '+' || text[at] == '-')) {
            char op = text[at++];
            double rhs = product();
            value = op == '+' ? value + rhs : value - rhs;
        }
        return value;
    }
    double product() {
        double value = atom();
        while (at < text.size() && (text[at] == '*' || text[at] == '/')) {
            char op = text[at++];
            double rhs = atom();
            value = op == '*' ? value * rhs : value / rhs;
        }
        return value;
    }
    double atom() {
        if (text.compare(at, 5, "ceil(") == 0) {
            at += 5;
            double value = std::ceil(sum());
            ++at;  // ')'
            return value;
        }
        if (text.compare(at, 4, "min(") == 0) {
            at += 4;
            double first = sum();
            ++at;  // ','
            double second = sum();
            ++at;  // ')'
            return std::min(first, second);
        }
        if (text[at] == '(') {
            ++at;
            double value = sum();
            ++at;
            return value;
        }
        if (text[at] == 'n') {
            ++at;
            return n;
        }
        size_t end = at;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        if (end == at) throw std::runtime_error("generator: bad size expression '" + text + "'");
        double value = std::stoi(text.substr(at, end - at));
        at = end;
        return value;
    }
};

}  // namespace

int sizeAt(const std::string& dim, int n) {
    SizeParser parser{dim, 0, n};
    return static_cast<int>(parser.sum());
}

int Generator::minSize(const std::string& dim) const {
    int smallest = sizeAt(dim, sizes_.front());
    for (int n : sizes_) smallest = std::min(smallest, sizeAt(dim, n));
    return smallest;
}

int Generator::minNumel(const std::vector<std::string>& dims) const {
    int smallest = -1;
    for (int n : sizes_) {
        int numel = 1;
        for (const std::string& d : dims) numel *= sizeAt(d, n);
        smallest = smallest < 0 ? numel : std::min(smallest, numel);
    }
    return smallest;
}

Program Generator::run(uint64_t seed) {
    Program program;
    program.seed = seed;
    // The sizes come first: a statement that needs a dimension of some size asks minSize.
    int calls = pick(1, on("dynamic") ? 4 : 3);
    for (int i = 0; i < calls; ++i) program.sizes.push_back(on("dynamic") && chance(0.1) ? 1 : pick(2, 6));
    sizes_ = program.sizes;
    if (on("dynamic")) program.dynamic = choose(std::vector<std::string>{"", "", "", "", "True", "False"});
    int inputs = pick(1, 3);
    for (int i = 0; i < inputs; ++i) addInput(program);
    int statements = pick(3, 10);
    for (int i = 0; i < statements * 4 && static_cast<int>(program.body.size()) < statements; ++i) {
        Statement s;
        if (emit(s)) program.body.push_back(std::move(s));
    }
    return program;
}

const Var* Generator::anyWhere(const std::function<bool(const Var&)>& keep) {
    std::vector<const Var*> found;
    for (const Var& v : vars_)
        if (keep(v)) found.push_back(&v);
    return found.empty() ? nullptr : found[static_cast<size_t>(pick(0, static_cast<int>(found.size()) - 1))];
}

Var Generator::define(Statement& s, std::vector<std::string> dims, DType dtype) {
    Var v;
    v.name = fresh();
    v.dims = std::move(dims);
    v.dtype = dtype;
    s.defines.push_back(v.name);
    return v;
}

bool Generator::assign(Statement& s, std::vector<std::string> dims, DType dtype, const std::string& expr) {
    Var v = define(s, std::move(dims), dtype);
    s.lines.push_back(v.name + " = " + expr);
    vars_.push_back(v);
    return true;
}

void Generator::addInput(Program& program) {
    static const char* names[] = {"a", "b", "c"};
    Var v;
    v.name = names[program.params.size()];
    v.isInput = true;
    int rank = pick(0, 3);
    for (int i = 0; i < rank; ++i) v.dims.push_back(choose(std::vector<std::string>{"n", "n", "1", "2", "3", "4", "5"}));
    int kind = pick(0, 10);
    v.dtype = kind < 6 ? DType::F32 : kind < 7 ? DType::F64 : kind < 9 ? DType::I64 : kind < 10 ? DType::Bool : DType::I32;
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
    else if (isInt(v.dtype))
        base = fmt::format("((torch.arange({}, device=device) * 7 + {}) % 11 - 5){}", numel, offset,
                           v.dtype == DType::I32 ? ".to(torch.int32)" : "");
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
        v.contiguous = true;
        program.paramInits.push_back(fmt::format("({}).reshape{}", base, shape));
    }
    program.params.push_back(v.name);
    vars_.push_back(v);
}

bool Generator::emit(Statement& s) {
    static const std::vector<std::pair<std::string, bool (Generator::*)(Statement&)>> families = {
        {"pointwise", &Generator::unary},        {"broadcast", &Generator::binary},
        {"pointwise", &Generator::compare},      {"reduction", &Generator::reduction},
        {"view", &Generator::view},              {"inplace", &Generator::inplace},
        {"inplace-view", &Generator::inplaceView}, {"inplace-input", &Generator::inplaceInput},
        {"matmul", &Generator::matmul},          {"dtype", &Generator::convert},
        {"shape-branch", &Generator::shapeBranch}, {"graph-break", &Generator::graphBreak},
        {"tensor-branch", &Generator::tensorBranch}, {"print", &Generator::print},
        {"cat", &Generator::cat},                {"scalar-arg", &Generator::scalarUse},
        {"broadcast", &Generator::where},        {"view", &Generator::moreViews},
        {"input-view", &Generator::inputViewWrite}, {"input-view", &Generator::inputViewWrite},
        {"shape-control", &Generator::shapeControl}, {"graph-break", &Generator::breakInCallee},
        {"promotion", &Generator::promotion},    {"promotion", &Generator::promotion}};
    const auto& [feature, make] = choose(families);
    if (!on(feature)) return false;
    s.feature = feature;
    if (!(this->*make)(s)) {
        s = Statement{};
        return false;
    }
    return true;
}

bool Generator::unary(Statement& s) {
    const Var* x = anyWhere([](const Var&) { return true; });
    if (!x) return false;
    std::string expr;
    if (isFloat(x->dtype))
        expr = fmt::format(fmt::runtime(choose(std::vector<std::string>{
            "torch.sin({})", "torch.cos({})", "torch.tanh({})", "torch.sigmoid({})", "torch.relu({})", "{}.abs()",
            "-{}", "torch.exp({}.clamp(-4.0, 4.0))", "torch.sqrt({}.abs() + 0.5)", "torch.nn.functional.gelu({})",
            "{} * {}", "torch.log({}.abs() + 1.0)", "{}.round()", "torch.floor({} * 3.0)", "{} ** 2",
            "torch.rsqrt({}.abs() + 1.0)", "{}.clamp(min=-0.3)"})), x->name, x->name);
    else if (isInt(x->dtype))
        expr = fmt::format(fmt::runtime(choose(std::vector<std::string>{"-{}", "{}.abs()", "{} * {}", "{} % 3", "{} // 2",
                                                           "{} + 1", "torch.clamp({}, -2, 2)"})), x->name, x->name);
    else
        expr = fmt::format(fmt::runtime(choose(std::vector<std::string>{"~{}", "{}.logical_not()", "{} & {}"})), x->name, x->name);
    return assign(s, x->dims, x->dtype, expr);
}

/// A second operand that broadcasts with x: another variable, or a Python scalar.
bool Generator::binary(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
    if (!x) return false;
    std::vector<std::string> dims;
    const Var* y = anyWhere([&](const Var& v) { return v.dtype != DType::Bool && broadcast(x->dims, v.dims, dims); });
    std::string op = choose(std::vector<std::string>{"+", "-", "*", "max", "min", "/"});
    if (!y || chance(0.25)) {
        std::string scalar = literal();
        DType dtype = isInt(x->dtype) && scalar.find('.') != std::string::npos ? DType::F32 : x->dtype;
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

bool Generator::compare(Statement& s) {
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

bool Generator::where(Statement& s) {
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

/// A reduction over one dimension (named from the front or, negative, from the back; kept or dropped), over two,
/// or over all; integer and bool sums give int64, argmax and indices give int64, any/all give bool.
bool Generator::reduction(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return !v.dims.empty(); });
    if (!x) return false;
    int rank = static_cast<int>(x->dims.size());
    int dim = pick(0, rank - 1);
    std::string d = std::to_string(chance(0.4) ? dim - rank : dim);
    bool keep = chance(0.4);
    std::string kd = keep ? ", keepdim=True" : "";
    std::vector<std::string> reduced = x->dims;
    if (keep) reduced[static_cast<size_t>(dim)] = "1";
    else reduced.erase(reduced.begin() + dim);
    const std::string& v = x->name;
    struct Option {
        std::string expr;
        std::vector<std::string> dims;
        DType dtype;
    };
    DType summed = isFloat(x->dtype) ? x->dtype : DType::I64;
    std::vector<Option> options = {
        {fmt::format("{}.sum(dim={}{})", v, d, kd), reduced, summed},
        {fmt::format("{}.sum()", v), {}, summed},
        {fmt::format("torch.sum({}, {}, keepdim={})", v, d, keep ? "True" : "False"), reduced, summed},
    };
    if (rank >= 2) {
        std::vector<std::string> both = x->dims;
        if (keep) both.front() = both.back() = "1";
        else both = std::vector<std::string>(x->dims.begin() + 1, x->dims.end() - 1);
        options.push_back({fmt::format("{}.sum(dim=(0, -1){})", v, kd), both, summed});
    }
    if (x->dtype == DType::Bool) {
        options.push_back({fmt::format("{}.any(dim={}{})", v, d, kd), reduced, DType::Bool});
        options.push_back({fmt::format("{}.all({}{})", v, d, kd), reduced, DType::Bool});
    } else {
        options.push_back({fmt::format("{}.amax(dim={}{})", v, d, kd), reduced, x->dtype});
        options.push_back({fmt::format("{}.amin(dim={}{})", v, d, kd), reduced, x->dtype});
        options.push_back({fmt::format("{}.argmax(dim={}{})", v, d, kd), reduced, DType::I64});
        options.push_back({fmt::format("{}.max(dim={}{}).values", v, d, kd), reduced, x->dtype});
        options.push_back({fmt::format("torch.min({}, {}{})[1]", v, d, kd), reduced, DType::I64});
        options.push_back({fmt::format("{}.prod({}{})", v, d, kd), reduced, summed});
        options.push_back({fmt::format("{}.cumsum({})", v, d), x->dims, summed});
    }
    if (isFloat(x->dtype)) {
        options.push_back({fmt::format("{}.mean(dim={}{})", v, d, kd), reduced, x->dtype});
        options.push_back({fmt::format("torch.softmax({}, dim={})", v, d), x->dims, x->dtype});
        options.push_back({fmt::format("torch.log_softmax({}, {})", v, d), x->dims, x->dtype});
        options.push_back({fmt::format("torch.logsumexp({}, dim={}{})", v, d, kd), reduced, x->dtype});
        options.push_back({fmt::format("{0} - {0}.mean(dim={1}, keepdim=True)", v, d), x->dims, x->dtype});
        options.push_back({fmt::format("{}.var(dim={}{})", v, d, kd), reduced, x->dtype});
        options.push_back({fmt::format("{}.std({}{})", v, d, kd), reduced, x->dtype});
    }
    const Option& chosen = choose(options);
    // var and std of one element divide by zero; reductions to a single value need an element.
    bool needsTwo = chosen.expr.find(".var(") != std::string::npos || chosen.expr.find(".std(") != std::string::npos;
    if (minSize(x->dims[static_cast<size_t>(dim)]) < (needsTwo ? 2 : 1)) return false;
    return assign(s, chosen.dims, chosen.dtype, chosen.expr);
}

bool Generator::view(Statement& s) {
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
bool Generator::inplace(Statement& s) {
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
bool Generator::inplaceView(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return isFloat(v.dtype) && !v.dims.empty(); });
    if (!x) return false;
    Var v = define(s, x->dims, x->dtype);
    s.lines.push_back(fmt::format("{} = {}.clone()", v.name, x->name));
    std::vector<std::string> updates = {"{}[0].mul_(2.0)", "{}[1:].add_(1.0)", "{}.transpose(0, -1).mul_(3.0)",
                                        "{}.unsqueeze(0).sub_(0.5)", "{}[0] = 7.0", "{}[-1:] *= 0.5"};
    if (x->dims.size() >= 2)
        for (const char* u : {"{}[:, 0].fill_(0.5)", "{}[:, ::2].zero_()", "{}[:, 1:] += 1.0"}) updates.push_back(u);
    std::vector<std::string> viewDims;
    std::string view = chance(0.5) ? writableView(v, viewDims) : "";
    s.lines.push_back(view.empty() ? fmt::format(fmt::runtime(choose(updates)), v.name)
                                   : view + choose(std::vector<std::string>{".mul_(2.0)", ".add_(1.0)", ".fill_(0.5)", ".neg_()"}));
    vars_.push_back(v);
    return true;
}

bool Generator::inplaceInput(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return v.isInput && isFloat(v.dtype); });
    if (!x) return false;
    std::vector<std::string> updates = {"{}.add_(1.0)", "{}.mul_(0.5)", "{} += 2", "{}.clamp_(max=0.25)"};
    if (!x->dims.empty()) updates.push_back("{}[0].fill_(2.0)");
    s.lines.push_back(fmt::format(fmt::runtime(choose(updates)), x->name));
    return true;
}

bool Generator::matmul(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return isFloat(v.dtype) && v.dims.size() == 2; });
    if (!x) return false;
    const Var* y = anyWhere([&](const Var& v) { return v.dtype == x->dtype && v.dims.size() == 2 && v.dims[0] == x->dims[1]; });
    Var v = y ? define(s, {x->dims[0], y->dims[1]}, x->dtype) : define(s, {x->dims[0], x->dims[0]}, x->dtype);
    s.lines.push_back(y ? fmt::format("{} = {} @ {}", v.name, x->name, y->name)
                        : fmt::format("{} = torch.mm({}, {}.t())", v.name, x->name, x->name));
    vars_.push_back(v);
    return true;
}

bool Generator::convert(Statement& s) {
    const Var* x = anyWhere([](const Var&) { return true; });
    if (!x) return false;
    std::vector<std::pair<std::string, DType>> options = {
        {"{}.float()", DType::F32}, {"{}.double()", DType::F64}, {"{}.to(torch.float64)", DType::F64}};
    if (isFloat(x->dtype)) options.push_back({"({} * 4).long()", DType::I64});
    if (x->dtype != DType::Bool) options.push_back({"({} > 0).to(torch.int64)", DType::I64});
    if (!isFloat(x->dtype)) options.push_back({"{}.int()", DType::I32});
    if (x->dtype != DType::I32) options.push_back({"{}.to(torch.int32)", DType::I32});
    if (isInt(x->dtype)) options.push_back({"{}.bool()", DType::Bool});
    const auto& [pattern, dtype] = choose(options);
    return assign(s, x->dims, dtype, fmt::format(fmt::runtime(pattern), x->name));
}

bool Generator::cat(Statement& s) {
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
bool Generator::scalarUse(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return v.dtype != DType::Bool; });
    if (!x) return false;
    std::string factor = hasScalarArg_ ? "k" : "1";
    if (!x->dims.empty() && chance(0.5)) factor = fmt::format("{}.shape[0]", x->name);
    Var v = define(s, x->dims, x->dtype);
    s.lines.push_back(fmt::format(fmt::runtime(chance(0.5) ? "{} = {} * {}" : "{} = {} + {}"), v.name, x->name, factor));
    vars_.push_back(v);
    return true;
}

}  // namespace cwb::fuzz::generator

namespace cwb::fuzz {

Program generateProgram(uint64_t seed, const std::set<std::string>& enabled) {
    // k exists from the start when the seed's first draw says so; statements may then use it.
    std::mt19937_64 first(seed ^ 0x9e3779b97f4a7c15ull);
    bool scalarArg = enabled.count("scalar-arg") && std::uniform_real_distribution<double>(0, 1)(first) < 0.4;
    generator::Generator generator(seed, enabled, scalarArg);
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
           "    fn = f if backend == \"none\" else torch.compile(f, backend=backend, mode=mode" +
           (program.dynamic.empty() ? "" : ", dynamic=" + program.dynamic) + ")\n"
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
