// Tensor printing, reimplementing the rules of torch/_tensor_str.py: one formatter is fitted to all (or the
// summarised) values, then nested brackets are laid out with PyTorch's indentation and wrapping.
#include "tensor/printing.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "python/python_repr.h"
#include "tensor/autograd/node.h"
#include "tensor/complex.h"
#include "tensor/conversion.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace {

std::string printfFormat(const char* format, int width, int precision, double value) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, format, width, precision, value);
    return buffer;
}

std::string pythonStr(const Scalar& v) {
    if (v.isBool()) return v.toBool() ? "True" : "False";
    if (v.isIntegral()) return std::to_string(v.toInt());
    return python::floatRepr(v.toDouble());
}

class Formatter {
public:
    Formatter(const std::vector<Scalar>& values, bool floating) : floating_(floating) {
        const PrintOptions& opts = printOptions();
        if (!floating_) {
            for (const Scalar& v : values) maxWidth_ = std::max(maxWidth_, pythonStr(v).size());
            return;
        }
        std::vector<double> finite;
        for (const Scalar& v : values) {
            const double d = v.toDouble();
            if (std::isfinite(d) && d != 0.0) finite.push_back(d);
        }
        if (finite.empty()) {
            if (opts.sciMode) sciMode_ = *opts.sciMode;
            return;
        }
        double minAbs = std::abs(finite.front()), maxAbs = minAbs;
        for (double d : finite) {
            minAbs = std::min(minAbs, std::abs(d));
            maxAbs = std::max(maxAbs, std::abs(d));
            if (d != std::ceil(d)) intMode_ = false;
        }
        const bool wideRange = maxAbs / minAbs > 1000.0 || maxAbs > 1.0e8;
        if (intMode_) {
            if (wideRange) {
                sciMode_ = true;
                for (double d : finite) maxWidth_ = std::max(maxWidth_, printfFormat("%*.*e", 0, opts.precision, d).size());
            } else {
                for (double d : finite) maxWidth_ = std::max(maxWidth_, printfFormat("%*.*f", 0, 0, d).size() + 1);
            }
        } else if (wideRange || minAbs < 1.0e-4) {
            sciMode_ = true;
            for (double d : finite) maxWidth_ = std::max(maxWidth_, printfFormat("%*.*e", 0, opts.precision, d).size());
        } else {
            for (double d : finite) maxWidth_ = std::max(maxWidth_, printfFormat("%*.*f", 0, opts.precision, d).size());
        }
        if (opts.sciMode) sciMode_ = *opts.sciMode;
    }

    size_t width() const { return maxWidth_; }

    std::string format(const Scalar& value) const {
        std::string text;
        if (floating_) {
            const double d = value.toDouble();
            const int precision = printOptions().precision;
            if (sciMode_) {
                text = printfFormat("%*.*e", static_cast<int>(maxWidth_), precision, d);
            } else if (intMode_) {
                text = printfFormat("%*.*f", 0, 0, d);
                if (std::isfinite(d)) text += ".";
            } else {
                text = printfFormat("%*.*f", 0, precision, d);
            }
            // printf may spell NaN "-nan"; Python always says "nan" (padding comes below).
            if (std::isnan(d)) text = "nan";
        } else {
            text = pythonStr(value);
        }
        if (text.size() < maxWidth_) text.insert(0, maxWidth_ - text.size(), ' ');
        return text;
    }

private:
    bool floating_;
    bool intMode_ = true;
    bool sciMode_ = false;
    size_t maxWidth_ = 1;
};

// How one element prints: a real value through one formatter; a complex one as PyTorch's _val_formatter puts its
// real part (first formatter) and imaginary part (second, with "j" and its sign) side by side.
class CellFormat {
public:
    explicit CellFormat(Formatter real, std::optional<Formatter> imaginary = std::nullopt)
        : real_(std::move(real)), imaginary_(std::move(imaginary)) {}

    // Element length for line wrapping, without the ", " between elements.
    size_t width() const { return real_.width() + (imaginary_ ? imaginary_->width() + 1 : 0); }

    std::string cell(const Tensor& t, int64_t i) const {
        if (!imaginary_) return real_.format(elementAt(t, i));
        const Tensor pairs = viewAsReal(t);
        std::string imag = imaginary_->format(elementAt(pairs, 2 * i + 1)) + "j";
        imag.erase(0, imag.find_first_not_of(' '));
        const std::string real = real_.format(elementAt(pairs, 2 * i));
        return imag[0] == '+' || imag[0] == '-' ? real + imag : real + "+" + imag;
    }

private:
    Formatter real_;
    std::optional<Formatter> imaginary_;
};

std::vector<Scalar> elementsOf(const Tensor& t) {
    std::vector<Scalar> out;
    out.reserve(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) out.push_back(elementAt(t, i));
    return out;
}

// The values the formatter sees when summarising: edge items of every dim (get_summarized_data).
void collectSummarized(const Tensor& t, std::vector<Scalar>& out) {
    const int64_t edge = printOptions().edgeitems;
    if (t.dim() == 0) {
        out.push_back(elementAt(t, 0));
        return;
    }
    const int64_t n = t.sizes()[0];
    auto visit = [&](int64_t i) {
        if (t.dim() == 1) out.push_back(elementAt(t, i));
        else collectSummarized(select(t, 0, i), out);
    };
    if (n > 2 * edge) {
        for (int64_t i = 0; i < edge; ++i) visit(i);
        for (int64_t i = n - edge; i < n; ++i) visit(i);
    } else {
        for (int64_t i = 0; i < n; ++i) visit(i);
    }
}

std::string vectorStr(const Tensor& t, int64_t indent, bool summarize, const CellFormat& formatter) {
    const PrintOptions& opts = printOptions();
    const int64_t elementLength = static_cast<int64_t>(formatter.width()) + 2;
    const int64_t perLine = std::max<int64_t>(1, (opts.linewidth - indent) / elementLength);
    std::vector<std::string> data;
    const int64_t n = t.sizes()[0];
    if (summarize && n > 2 * opts.edgeitems) {
        for (int64_t i = 0; i < opts.edgeitems; ++i) data.push_back(formatter.cell(t, i));
        data.emplace_back(" ...");
        for (int64_t i = n - opts.edgeitems; i < n; ++i) data.push_back(formatter.cell(t, i));
    } else {
        for (int64_t i = 0; i < n; ++i) data.push_back(formatter.cell(t, i));
    }
    std::string out = "[";
    for (size_t i = 0; i < data.size(); ++i) {
        if (i > 0) out += (i % static_cast<size_t>(perLine) == 0) ? ",\n" + std::string(static_cast<size_t>(indent) + 1, ' ') : ", ";
        out += data[i];
    }
    return out + "]";
}

std::string tensorStr(const Tensor& t, int64_t indent, bool summarize, const CellFormat& formatter) {
    if (t.dim() == 0) return formatter.cell(t, 0);
    if (t.dim() == 1) return vectorStr(t, indent, summarize, formatter);
    const int64_t edge = printOptions().edgeitems;
    const int64_t n = t.sizes()[0];
    std::vector<std::string> slices;
    if (summarize && n > 2 * edge) {
        for (int64_t i = 0; i < edge; ++i) slices.push_back(tensorStr(select(t, 0, i), indent + 1, summarize, formatter));
        slices.emplace_back("...");
        for (int64_t i = n - edge; i < n; ++i) slices.push_back(tensorStr(select(t, 0, i), indent + 1, summarize, formatter));
    } else {
        for (int64_t i = 0; i < n; ++i) slices.push_back(tensorStr(select(t, 0, i), indent + 1, summarize, formatter));
    }
    const std::string separator = "," + std::string(static_cast<size_t>(t.dim() - 1), '\n') + std::string(static_cast<size_t>(indent) + 1, ' ');
    std::string out = "[";
    for (size_t i = 0; i < slices.size(); ++i) {
        if (i > 0) out += separator;
        out += slices[i];
    }
    return out + "]";
}

std::string shapeTuple(const Shape& sizes) {
    if (sizes.size() == 1) return fmt::format("({},)", sizes[0]);
    return fmt::format("({})", fmt::join(sizes, ", "));
}

}  // namespace

PrintOptions& printOptions() {
    static PrintOptions options;
    return options;
}

std::string repr(const Tensor& t, const std::optional<std::string>& gradFnName) {
    const std::string prefix = "tensor(";
    const auto indent = static_cast<int64_t>(prefix.size());
    std::vector<std::string> suffixes;
    if (!t.device().isCpu()) suffixes.push_back(fmt::format("device='{}'", normalizeDevice(t.device()).str()));
    const Tensor host = t.device().isCpu() ? t : to(t, std::nullopt, kCpu);
    // complex64 is the default complex type while float32 is the default float type.
    const bool defaultDType = t.dtype() == kDefaultFloat || t.dtype() == DType::Int64 || t.dtype() == DType::Bool || t.dtype() == DType::Complex64;
    std::string body;
    if (t.numel() == 0) {
        if (t.dim() != 1) suffixes.push_back("size=" + shapeTuple(t.sizes()));
        if (t.dtype() != kDefaultFloat) suffixes.push_back(fmt::format("dtype=torch.{}", dtypeName(t.dtype())));
        body = "[]";
    } else {
        if (!defaultDType) suffixes.push_back(fmt::format("dtype=torch.{}", dtypeName(t.dtype())));
        // 16-bit floats print through float32, as PyTorch converts them first.
        const Tensor shown = isReducedFloat(host.dtype()) ? to(host, DType::Float32) : host;
        const bool summarize = shown.numel() > printOptions().threshold;
        auto formatterOf = [&](const Tensor& part) {
            std::vector<Scalar> values;
            if (summarize) collectSummarized(part, values);
            else values = elementsOf(part);
            return Formatter(values, isFloating(part.dtype()) || isComplex(shown.dtype()));
        };
        const CellFormat formatter = isComplex(shown.dtype()) ? CellFormat(formatterOf(realPart(shown)), formatterOf(imagPart(shown)))
                                                              : CellFormat(formatterOf(shown));
        body = tensorStr(shown, indent, summarize, formatter);
    }
    const std::optional<std::string> shownGradFn = gradFnName ? gradFnName : autograd::gradFnName(t);
    if (shownGradFn) suffixes.push_back(fmt::format("grad_fn=<{}>", *shownGradFn));
    else if (t.requiresGrad()) suffixes.emplace_back("requires_grad=True");

    // _add_suffixes: wrap a suffix onto its own line when it would pass the line width.
    std::string out = prefix + body;
    const size_t lastNewline = out.rfind('\n');
    int64_t lastLineLength = static_cast<int64_t>(out.size()) -
                             (lastNewline == std::string::npos ? -1 : static_cast<int64_t>(lastNewline)) + 1;
    for (const std::string& suffix : suffixes) {
        const auto length = static_cast<int64_t>(suffix.size());
        if (lastLineLength + length + 2 > printOptions().linewidth) {
            out += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
            lastLineLength = indent + length;
        } else {
            out += ", " + suffix;
            lastLineLength += length + 2;
        }
    }
    return out + ")";
}

}  // namespace eng::tensor
