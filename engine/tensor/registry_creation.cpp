// Registry entries for factories and global settings: torch.tensor/zeros/ones/full/arange/linspace/eye/rand*, multinomial,
// the *_like and Tensor.new_* variants, the CPU thread count, print options and dtype/device queries.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/pointwise.h"
#include "tensor/printing.h"
#include "tensor/random.h"
#include "tensor/registry_support.h"
#include "tensor/worker_pool.h"

namespace eng::tensor {

namespace {

std::string withTail(std::string_view head) {
    const bool hasStar = head.find('*') != std::string_view::npos;
    return fmt::format("{}{}{}{})", head, head.back() == '(' ? "" : ", ", hasStar ? "" : "*, ", kFactoryTail);
}

// *_like options: dtype/device default to the source tensor's.
TensorOptions likeOptions(const Args& a, const Tensor& source, size_t dtypeIndex) {
    TensorOptions options = factoryOptions(a, dtypeIndex);
    if (!options.dtype) options.dtype = source.dtype();
    if (a.isNone(dtypeIndex + 2)) options.device = source.device();
    return options;
}

Tensor withGrad(Tensor t, bool requiresGrad) {
    if (requiresGrad) t.setRequiresGrad(true);
    return t;
}

}  // namespace

void registerCreationOps(OpRegistry& r) {
    r.def({"torch.tensor"},
          "tensor(Any data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False)",
          [](const Args& a) {
              return Value(withGrad(tensorFromData(a[0], a.optDType(1), a.optDevice(2).value_or(kCpu)), a.boolean(3)));
          });
    r.def({"torch.as_tensor"}, "as_tensor(Any data, ScalarType? dtype=None, Device? device=None)", [](const Args& a) {
        if (a[0].isTensor()) return Value(to(a.tensor(0), a.optDType(1), a.optDevice(2)));
        return Value(tensorFromData(a[0], a.optDType(1), a.optDevice(2).value_or(kCpu)));
    });
    r.def({"torch.zeros"}, withTail("zeros(int[] size"), [](const Args& a) { return Value(zeros(a.intList(0), factoryOptions(a, 1))); });
    r.def({"torch.ones"}, withTail("ones(int[] size"), [](const Args& a) { return Value(ones(a.intList(0), factoryOptions(a, 1))); });
    r.def({"torch.empty"}, withTail("empty(int[] size"), [](const Args& a) {
        const TensorOptions o = factoryOptions(a, 1);
        return Value(withGrad(to(empty(a.intList(0), o.dtype.value_or(kDefaultFloat)), std::nullopt, o.device), o.requiresGrad));
    });
    r.def({"torch.full"}, withTail("full(int[] size, Scalar fill_value"),
          [](const Args& a) { return Value(full(a.intList(0), a.scalar(1), factoryOptions(a, 2))); });
    r.def({"torch.arange"}, withTail("arange(Scalar end"), [](const Args& a) { return Value(arange(a.scalar(0), factoryOptions(a, 1))); });
    r.def({"torch.arange"}, withTail("arange(Scalar start, Scalar end, Scalar step=1"),
          [](const Args& a) { return Value(arange(a.scalar(0), a.scalar(1), a.scalar(2), factoryOptions(a, 3))); });
    r.def({"torch.linspace"}, withTail("linspace(Scalar start, Scalar end, int steps"),
          [](const Args& a) { return Value(linspace(a.scalar(0), a.scalar(1), a.integer(2), factoryOptions(a, 3))); });
    r.def({"torch.eye"}, withTail("eye(int n, int? m=None"),
          [](const Args& a) { return Value(eye(a.integer(0), a.optInteger(1), factoryOptions(a, 2))); });
    r.def({"torch.rand"}, withTail("rand(int[] size, *, Generator? generator=None"),
          [](const Args& a) { return Value(rand(a.intList(0), factoryOptions(a, 2), &generatorFrom(a[1]))); });
    r.def({"torch.randn"}, withTail("randn(int[] size, *, Generator? generator=None"),
          [](const Args& a) { return Value(randn(a.intList(0), factoryOptions(a, 2), &generatorFrom(a[1]))); });
    r.def({"torch.randint"}, withTail("randint(int high, int[] size, *, Generator? generator=None"),
          [](const Args& a) { return Value(randint(0, a.integer(0), a.intList(1), factoryOptions(a, 3), &generatorFrom(a[2]))); });
    r.def({"torch.randint"}, withTail("randint(int low, int high, int[] size, *, Generator? generator=None"),
          [](const Args& a) { return Value(randint(a.integer(0), a.integer(1), a.intList(2), factoryOptions(a, 4), &generatorFrom(a[3]))); });
    r.def({"torch.randperm"}, withTail("randperm(int n, *, Generator? generator=None"),
          [](const Args& a) { return Value(randperm(a.integer(0), factoryOptions(a, 2), &generatorFrom(a[1]))); });
    r.def({"torch.multinomial", "Tensor.multinomial"}, "multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None)",
          [](const Args& a) { return Value(multinomial(a.tensor(0), a.integer(1), a.boolean(2), &generatorFrom(a[3]))); });

    const std::string likeTail = ", *, " + std::string(kFactoryTail) + ", MemoryFormat? memory_format=None)";
    r.def({"torch.zeros_like"}, "zeros_like(Tensor self" + likeTail,
          [](const Args& a) { return Value(withGrad(zerosLike(a.tensor(0), likeOptions(a, a.tensor(0), 1)), a.boolean(5))); });
    r.def({"torch.ones_like"}, "ones_like(Tensor self" + likeTail,
          [](const Args& a) { return Value(withGrad(onesLike(a.tensor(0), likeOptions(a, a.tensor(0), 1)), a.boolean(5))); });
    r.def({"torch.empty_like"}, "empty_like(Tensor self" + likeTail,
          [](const Args& a) { return Value(withGrad(zerosLike(a.tensor(0), likeOptions(a, a.tensor(0), 1)), a.boolean(5))); });
    r.def({"torch.full_like"}, "full_like(Tensor self, Scalar fill_value" + likeTail, [](const Args& a) {
        return Value(withGrad(fullLike(a.tensor(0), a.scalar(1), likeOptions(a, a.tensor(0), 2)), a.boolean(6)));
    });
    r.def({"torch.rand_like"}, "rand_like(Tensor self" + likeTail, [](const Args& a) {
        return Value(rand(a.tensor(0).sizes(), likeOptions(a, a.tensor(0), 1)));
    });
    r.def({"torch.randn_like"}, "randn_like(Tensor self" + likeTail, [](const Args& a) {
        return Value(randn(a.tensor(0).sizes(), likeOptions(a, a.tensor(0), 1)));
    });

    // Tensor.new_*: dtype and device default to self's.
    const std::string newTail = ", *, " + std::string(kFactoryTail) + ")";
    r.def({"Tensor.new_zeros"}, "new_zeros(Tensor self, int[] size" + newTail, [](const Args& a) {
        return Value(zeros(a.intList(1), likeOptions(a, a.tensor(0), 2)));
    });
    r.def({"Tensor.new_ones"}, "new_ones(Tensor self, int[] size" + newTail, [](const Args& a) {
        return Value(ones(a.intList(1), likeOptions(a, a.tensor(0), 2)));
    });
    r.def({"Tensor.new_empty"}, "new_empty(Tensor self, int[] size" + newTail, [](const Args& a) {
        return Value(zeros(a.intList(1), likeOptions(a, a.tensor(0), 2)));
    });
    r.def({"Tensor.new_full"}, "new_full(Tensor self, int[] size, Scalar fill_value" + newTail, [](const Args& a) {
        return Value(full(a.intList(1), a.scalar(2), likeOptions(a, a.tensor(0), 3)));
    });
    r.def({"Tensor.new_tensor"}, "new_tensor(Tensor self, Any data" + newTail, [](const Args& a) {
        const TensorOptions o = likeOptions(a, a.tensor(0), 2);
        return Value(withGrad(tensorFromData(a[1], o.dtype, o.device.value_or(kCpu)), o.requiresGrad));
    });

    r.def({"torch.set_num_threads"}, "set_num_threads(int nthreads)", [](const Args& a) {
        if (a.integer(0) <= 0) fail(ErrorKind::Runtime, "set_num_threads expects a positive integer");
        setWorkerThreadCount(static_cast<int>(std::min<int64_t>(a.integer(0), std::numeric_limits<int>::max())));
        return noneValue();
    });
    r.def({"torch.get_num_threads"}, "get_num_threads()", [](const Args&) { return Value(int64_t{workerThreadCount()}); });
    r.def({"torch.get_default_dtype"}, "get_default_dtype()", [](const Args&) { return Value(kDefaultFloat); });
    r.def({"torch.is_tensor"}, "is_tensor(Any obj)", [](const Args& a) { return Value(a[0].isTensor()); });
    r.def({"torch.is_floating_point", "Tensor.is_floating_point"}, "is_floating_point(Tensor self)",
          [](const Args& a) { return Value(isFloating(a.tensor(0).dtype())); });
    r.def({"torch.numel", "Tensor.numel", "Tensor.nelement"}, "numel(Tensor self)", [](const Args& a) { return Value(a.tensor(0).numel()); });
    r.def({"torch.promote_types"}, "promote_types(ScalarType type1, ScalarType type2)",
          [](const Args& a) { return Value(promoteTypes(a[0].toDType(), a[1].toDType())); });
    r.def({"torch.can_cast"}, "can_cast(ScalarType from_, ScalarType to)",
          [](const Args& a) { return Value(canCast(a[0].toDType(), a[1].toDType())); });
    r.def({"torch.result_type"}, "result_type(Any tensor, Any other)", [](const Args& a) {
        auto operand = [](const Value& v) { return v.isTensor() ? Operand(v.toTensor()) : Operand(v.toScalar()); };
        return Value(resultType(operand(a[0]), operand(a[1])));
    });
    r.def({"torch.device"}, "device(Any type, int? index=None)", [](const Args& a) {
        if (a[0].kind() == Value::Kind::Device) return a[0];
        Device d = a[0].toDevice();
        if (a.optInteger(1)) d = Device(d.type(), static_cast<int>(a.integer(1)));
        return Value(d);
    });
    r.def({"torch.cuda.is_available"}, "is_available()", [](const Args&) { return Value(isDeviceAvailable(DeviceType::CUDA)); });
    r.def({"torch.cuda.device_count"}, "device_count()", [](const Args&) { return Value(int64_t{deviceCount(DeviceType::CUDA)}); });
    r.def({"torch.set_printoptions"},
          "set_printoptions(int? precision=None, int? threshold=None, int? edgeitems=None, int? linewidth=None, "
          "str? profile=None, bool? sci_mode=None)",
          [](const Args& a) {
              PrintOptions& o = printOptions();
              if (a.optStr(4) && a.str(4) == "default") o = PrintOptions{};
              if (a.optInteger(0)) o.precision = static_cast<int>(a.integer(0));
              if (a.optInteger(1)) o.threshold = a.integer(1);
              if (a.optInteger(2)) o.edgeitems = a.integer(2);
              if (a.optInteger(3)) o.linewidth = a.integer(3);
              o.sciMode = a.optBoolean(5);
              return noneValue();
          });
}

}  // namespace eng::tensor
