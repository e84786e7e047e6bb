// The program generator's state, shared by the files that hold its statement families: the variables of f with
// symbolic shapes ("n", "3", "(n+3)"), dtypes and aliasing, the random draws, and how a statement defines a variable.
#pragma once

#include <fmt/core.h>

#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "program_generator.h"

namespace cwb::fuzz::generator {

enum class DType { F32, F64, I32, I64, Bool };

inline bool isFloat(DType d) { return d == DType::F32 || d == DType::F64; }
inline bool isInt(DType d) { return d == DType::I32 || d == DType::I64; }

/// PyTorch's promotion for two tensors of these categories (bool < int < float; the wider of two widths).
DType promote(DType a, DType b);

/// Broadcast of two symbolic shapes, aligned on the right; false when they cannot broadcast.
bool broadcast(const std::vector<std::string>& a, const std::vector<std::string>& b, std::vector<std::string>& out);

bool isConst(const std::string& dim);

/// The value of a symbolic size ("(n-1)", "ceil(n/2)", "min(n,3)", "(n*4)") for one value of n.
int sizeAt(const std::string& dim, int n);

struct Var {
    std::string name;
    std::vector<std::string> dims;
    DType dtype = DType::F32;
    bool isInput = false;
    bool contiguous = false;  ///< known contiguous whoever computes it (a caller's input, a .contiguous() result)
    std::string aliasOf;      ///< the input whose storage this view shares; empty when it owns its storage
    bool writable = true;     ///< false for views whose elements overlap (expand, overlapping unfold)
};

class Generator {
public:
    Generator(uint64_t seed, const std::set<std::string>& enabled, bool scalarArg)
        : rng_(seed), enabled_(enabled), hasScalarArg_(scalarArg) {}
    Program run(uint64_t seed);

private:
    std::mt19937_64 rng_;
    std::set<std::string> enabled_;
    std::vector<Var> vars_;
    std::vector<int> sizes_;
    int next_ = 0;
    bool hasScalarArg_ = false;

    bool on(const std::string& feature) const { return enabled_.count(feature) != 0; }
    int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    template <typename T> const T& choose(const std::vector<T>& items) {
        return items[static_cast<size_t>(pick(0, static_cast<int>(items.size()) - 1))];
    }
    std::string fresh() { return fmt::format("v{}", next_++); }
    std::string literal() { return choose(std::vector<std::string>{"0.5", "2.0", "-1.5", "3", "0.25", "-2"}); }
    /// The smallest value `dim` takes over the sizes f is called with.
    int minSize(const std::string& dim) const;
    int minNumel(const std::vector<std::string>& dims) const;

    const Var* anyWhere(const std::function<bool(const Var&)>& keep);
    Var define(Statement& s, std::vector<std::string> dims, DType dtype);
    /// One statement `vN = expr` defining a new variable.
    bool assign(Statement& s, std::vector<std::string> dims, DType dtype, const std::string& expr);
    void addInput(Program& program);
    bool emit(Statement& s);

    // program_generator.cpp
    bool unary(Statement& s);
    bool binary(Statement& s);
    bool compare(Statement& s);
    bool where(Statement& s);
    bool reduction(Statement& s);
    bool view(Statement& s);
    bool inplace(Statement& s);
    bool inplaceView(Statement& s);
    bool inplaceInput(Statement& s);
    bool matmul(Statement& s);
    bool convert(Statement& s);
    bool shapeBranch(Statement& s);
    bool branch(Statement& s, const Var& x, const std::string& condition, const char* thenPattern, const char* elsePattern);
    bool graphBreak(Statement& s);
    bool tensorBranch(Statement& s);
    bool print(Statement& s);
    bool cat(Statement& s);
    bool scalarUse(Statement& s);

    // view_statements.cpp
    /// A view of x whose elements do not overlap (so that it may be written), with its dims; empty when x has none.
    std::string writableView(const Var& x, std::vector<std::string>& dims);
    bool moreViews(Statement& s);
    bool inputViewWrite(Statement& s);

    // control_statements.cpp
    bool shapeControl(Statement& s);
    bool breakInCallee(Statement& s);
    bool promotion(Statement& s);
};

}  // namespace cwb::fuzz::generator
