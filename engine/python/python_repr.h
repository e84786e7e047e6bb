// Python's repr() of floats and strings, byte for byte: one rule for every layer that prints values the way Python
// does (the AST printer and the disassembler, tensor and scalar printing, the VM's repr and str, the FX printer).
#pragma once

#include <string>
#include <string_view>

namespace eng::python {

/// repr(float): the shortest digits that round-trip, fixed notation for exponents -4..15, otherwise
/// scientific with a two-digit exponent (1e-05, 1e+16); always a '.0' or an exponent; nan, inf, -inf.
std::string floatRepr(double value);

/// repr(str): single quotes unless the text holds a ' and no ", escapes for backslash, the quote,
/// \n \r \t and other ASCII control characters; other UTF-8 text as is.
std::string stringRepr(std::string_view text);

}  // namespace eng::python
