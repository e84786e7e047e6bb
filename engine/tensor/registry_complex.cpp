// Registry entries for complex tensors: torch.complex, torch.polar, view_as_real/view_as_complex, the real/imag
// views, conj, angle and is_complex (complex.h; arithmetic and sum/mean reach their complex forms from the
// generic ops).
#include "tensor/complex.h"
#include "tensor/registry_support.h"

namespace eng::tensor {

void registerComplexOps(OpRegistry& r) {
    r.def({"torch.is_complex", "Tensor.is_complex"}, "is_complex(Tensor self)", [](const Args& a) { return Value(isComplex(a.tensor(0).dtype())); });
    r.def({"torch.view_as_real"}, "view_as_real(Tensor self)", [](const Args& a) { return Value(viewAsReal(a.tensor(0))); });
    r.def({"torch.view_as_complex"}, "view_as_complex(Tensor self)", [](const Args& a) { return Value(viewAsComplex(a.tensor(0))); });
    r.def({"torch.complex"}, "complex(Tensor real, Tensor imag)", [](const Args& a) { return Value(complexFromParts(a.tensor(0), a.tensor(1))); });
    r.def({"torch.polar"}, "polar(Tensor abs, Tensor angle)", [](const Args& a) { return Value(polar(a.tensor(0), a.tensor(1))); });
    r.def({"torch.real", "Tensor.real"}, "real(Tensor self)", [](const Args& a) { return Value(realPart(a.tensor(0))); });
    r.def({"torch.imag", "Tensor.imag"}, "imag(Tensor self)", [](const Args& a) { return Value(imagPart(a.tensor(0))); });
    r.def({"torch.conj", "Tensor.conj", "torch.conj_physical", "Tensor.conj_physical"}, "conj(Tensor self)",
          [](const Args& a) { return Value(conj(a.tensor(0))); });
    // cwb materializes conjugates, so no tensor carries PyTorch's lazy conjugate bit.
    r.def({"torch.resolve_conj", "Tensor.resolve_conj"}, "resolve_conj(Tensor self)", [](const Args& a) { return a[0]; });
    r.def({"torch.is_conj", "Tensor.is_conj"}, "is_conj(Tensor self)", [](const Args&) { return Value(false); });
    r.def({"torch.angle", "Tensor.angle"}, "angle(Tensor self)", [](const Args& a) { return Value(angle(a.tensor(0))); });
}

}  // namespace eng::tensor
