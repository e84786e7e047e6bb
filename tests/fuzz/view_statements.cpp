// Statement families of the program generator on views: the view ops of the eager runtime (swapaxes, movedim,
// diagonal, narrow, select, unfold, view_as, expand_as, as_strided, ...) of intermediates and of f's inputs, and
// in-place writes through views of f's inputs, which the caller must see.
#include <algorithm>

#include "generator_state.h"

namespace cwb::fuzz::generator {

namespace {

std::string product(const std::vector<std::string>& dims) {
    if (dims.empty()) return "1";
    std::string all = "(" + dims[0];
    for (size_t i = 1; i < dims.size(); ++i) all += "*" + dims[i];
    return all + ")";
}

std::string smaller(const std::string& a, const std::string& b) {
    if (a == b) return a;
    if (isConst(a) && isConst(b)) return std::to_string(std::min(std::stoi(a), std::stoi(b)));
    return "min(" + a + "," + b + ")";
}

}  // namespace

std::string Generator::writableView(const Var& x, std::vector<std::string>& dims) {
    dims = x.dims;
    const std::string& v = x.name;
    int rank = static_cast<int>(dims.size());
    if (rank == 0) {
        dims = {"1"};
        return v + ".unsqueeze(0)";
    }
    size_t d = static_cast<size_t>(pick(0, rank - 1));
    std::string dimText = std::to_string(chance(0.3) ? static_cast<int>(d) - rank : static_cast<int>(d));
    int smallest = minSize(dims[d]);
    switch (pick(0, 9)) {
        case 0:
            if (smallest < 1) return {};
            dims[d] = "1";
            return fmt::format("{}.narrow({}, 0, 1)", v, dimText);
        case 1:
            if (smallest < 2) return {};
            dims[d] = "(" + dims[d] + "-1)";
            return fmt::format("{0}.narrow({1}, 1, {0}.size({1}) - 1)", v, dimText);
        case 2:
            if (smallest < 1) return {};
            dims.erase(dims.begin() + static_cast<long>(d));
            return fmt::format("{}.select({}, {})", v, dimText, chance(0.5) ? "0" : "-1");
        case 3:
            dims.push_back("1");
            return fmt::format("{}.unfold({}, 1, 1)", v, dimText);
        case 4:
            if (rank < 2) return {};
            std::swap(dims.front(), dims.back());
            return fmt::format(fmt::runtime(choose(std::vector<std::string>{"{}.swapaxes(0, -1)", "{}.swapdims(-1, 0)",
                                                                            "{}.transpose(-1, 0)"})),
                               v);
        case 5:
            if (rank < 2) return {};
            std::rotate(dims.begin(), dims.begin() + 1, dims.end());
            return fmt::format("{}.movedim(0, -1)", v);
        case 6: {
            if (rank < 2) return {};
            std::string diagonal = smaller(dims[static_cast<size_t>(rank - 2)], dims[static_cast<size_t>(rank - 1)]);
            if (chance(0.5)) {
                diagonal = smaller(dims[0], dims[1]);
                dims.erase(dims.begin(), dims.begin() + 2);
                dims.push_back(diagonal);
                return fmt::format("{}.diagonal()", v);
            }
            dims.resize(static_cast<size_t>(rank - 2));
            dims.push_back(diagonal);
            return fmt::format("{}.diagonal(0, -2, -1)", v);
        }
        case 7:
            if (!x.contiguous) return {};
            if (chance(0.5)) return v + ".view_as(" + v + ")";
            dims = {product(x.dims)};
            return v + ".view(-1)";
        case 8: {
            // as_strided addresses the storage, which only a caller's input or a known contiguous tensor pins down.
            if (!x.isInput && !x.contiguous) return {};
            int numel = minNumel(x.dims);
            int count = pick(1, std::max(1, std::min(numel, 3)));
            int stride = pick(1, 2);
            int last = std::max(0, numel - 1 - (count - 1) * stride);
            if (last < 0 || (count - 1) * stride >= numel) return {};
            dims = {std::to_string(count)};
            return fmt::format("{}.as_strided(({},), ({},), {})", v, count, stride, pick(0, last));
        }
        default:
            if (rank < 2) return {};
            dims.erase(dims.begin());
            return v + "[-1]";
    }
}

/// A new variable that is a view: of an intermediate or of an input (then it aliases the input), some of them
/// read-only because their elements overlap (expand_as, an unfold whose windows overlap).
bool Generator::moreViews(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return !v.dims.empty(); });
    if (!x) return false;
    std::vector<std::string> dims;
    std::string expr;
    bool writable = x->writable;
    switch (pick(0, 3)) {
        case 0: {
            const Var* y = anyWhere([&](const Var& w) {
                std::vector<std::string> out;
                return w.name != x->name && broadcast(x->dims, w.dims, out) && out == x->dims;
            });
            if (!y) return false;
            dims = x->dims;
            expr = fmt::format("{}.expand_as({})", y->name, x->name);
            writable = false;
            x = y;  // the result is a view of y
            break;
        }
        case 1: {
            size_t d = static_cast<size_t>(pick(0, static_cast<int>(x->dims.size()) - 1));
            if (minSize(x->dims[d]) < 2) return false;
            dims = x->dims;
            dims[d] = "(" + dims[d] + "-1)";
            dims.push_back("2");
            expr = fmt::format("{}.unfold({}, 2, 1)", x->name, d);
            writable = false;
            break;
        }
        default:
            expr = writableView(*x, dims);
            if (expr.empty()) return false;
    }
    Var out = define(s, dims, x->dtype);
    out.aliasOf = x->isInput ? x->name : x->aliasOf;
    out.writable = writable;
    s.lines.push_back(out.name + " = " + expr);
    vars_.push_back(out);
    return true;
}

/// An in-place write through a view of one of f's inputs (or through a variable that is such a view), or a new
/// variable that is a view of an input and sees later writes to it.
bool Generator::inputViewWrite(Statement& s) {
    const Var* x = anyWhere([](const Var& v) { return (v.isInput || !v.aliasOf.empty()) && v.writable && v.dtype != DType::Bool; });
    if (!x) return false;
    std::string root = x->isInput ? x->name : x->aliasOf;
    std::vector<std::string> dims = x->dims;
    std::string view = chance(0.15) ? x->name : writableView(*x, dims);
    if (view.empty()) return false;
    if (view != x->name && chance(0.35)) {
        Var out = define(s, dims, x->dtype);
        out.aliasOf = root;
        s.lines.push_back(out.name + " = " + view);
        vars_.push_back(out);
        return true;
    }
    std::vector<std::string> updates = isFloat(x->dtype)
        ? std::vector<std::string>{".add_(1.0)", ".mul_(2.0)", ".fill_(0.5)", ".zero_()", ".neg_()", ".clamp_(max=0.3)"}
        : std::vector<std::string>{".add_(1)", ".mul_(2)", ".fill_(3)", ".zero_()", ".neg_()"};
    // copy_ from a tensor that broadcasts into the view and shares no storage with it (copy_ converts its dtype).
    const Var* source = anyWhere([&](const Var& w) {
        std::vector<std::string> out;
        return w.name != root && w.aliasOf != root && broadcast(dims, w.dims, out) && out == dims;
    });
    if (source && chance(0.3)) updates = {".copy_(" + source->name + ")"};
    s.lines.push_back(view + choose(updates));
    s.feature = "input-view";
    return true;
}

}  // namespace cwb::fuzz::generator
