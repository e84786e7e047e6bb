// Random programs in the cwb Python subset for differential fuzzing: a function `f` of tensors built from
// random pointwise, broadcasting, view, in-place, reduction, matmul and control-flow statements, called
// eagerly and compiled with several input sizes (recompiles, automatic dynamic shapes).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace cwb::fuzz {

/// Families of statements the generator may use; a run can leave some out (`--without NAME`).
inline const std::vector<std::string>& featureNames() {
    static const std::vector<std::string> names = {
        "pointwise", "broadcast", "reduction", "view", "inplace", "inplace-view", "inplace-input",
        "matmul", "dtype", "shape-branch", "graph-break", "tensor-branch", "print", "cat", "scalar-arg",
        "input-view", "shape-control", "promotion", "dynamic"};
    return names;
}

/// One statement of f's body: its source lines (unindented) and the tensor variables it defines.
struct Statement {
    std::vector<std::string> lines;
    std::vector<std::string> defines;
    std::string feature;
};

/// A generated program: f's parameters with how run() builds them for size n, f's body, and the sizes.
struct Program {
    uint64_t seed = 0;
    std::vector<std::string> params;      ///< f's tensor parameters, in order
    std::vector<std::string> paramInits;  ///< the expression run() uses for each, in terms of n and device
    bool scalarArg = false;               ///< f also takes the Python int k (= n + 1)
    std::vector<Statement> body;
    std::vector<int> sizes;               ///< the values of n, one call of f each
    std::string dynamic;                  ///< torch.compile's dynamic= ("True", "False"); empty: not passed
};

/// A random program for `seed`, using only the features in `enabled`.
Program generateProgram(uint64_t seed, const std::set<std::string>& enabled);

/// The program as a Python script: f, run(device, backend, mode) and main(device).
std::string renderProgram(const Program& program);

}  // namespace cwb::fuzz
