// Tensor.untyped_storage(): torch.UntypedStorage as a small class written in the subset (its byte size, data
// pointer and device, read when the storage is asked for), and torch.distributed.fsdp._flat_param's storage-size
// check over it. Being Python, the capture engine folds their reads as Dynamo folds UntypedStorageVariable.size().
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kStorage = R"PY(
class UntypedStorage:
    def __init__(self, nbytes, data_ptr, device):
        self._nbytes = nbytes
        self._data_ptr = data_ptr
        self.device = device

    def size(self):
        return self._nbytes

    def nbytes(self):
        return self._nbytes

    def __len__(self):
        return self._nbytes

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._data_ptr

    def __repr__(self):
        return "torch.storage.UntypedStorage(device=" + str(self.device) + ") of size " + str(self._nbytes) + "]"
)PY";

// FSDP's flat parameters: the one helper of torch.distributed.fsdp._flat_param that works without a process group.
const char* kFlatParam = R"PY(
def _same_storage_size(a, b):
    return a.untyped_storage().size() // a.element_size() == b
)PY";

}  // namespace

const char* tensorStoragePolyfillSource(const std::string& module) {
    if (module == "torch.storage") return kStorage;
    if (module == "torch.distributed.fsdp") return "\n";
    if (module == "torch.distributed.fsdp._flat_param") return kFlatParam;
    return nullptr;
}

Value untypedStorage(Interpreter& vm, const Value& tensorValue, CallArgs& args) {
    if (!args.positional.empty() || !args.keywords.empty()) typeError("untyped_storage() takes no arguments");
    const tensor::Tensor& t = tensorValue.tensor();
    Value cls = vm.getAttr(vm.importModule("torch.storage"), "UntypedStorage");
    const auto nbytes = static_cast<int64_t>(t.storage()->bytes());
    const auto pointer = static_cast<int64_t>(reinterpret_cast<intptr_t>(t.storage()->data()));
    return vm.call(cls, {Value(nbytes), Value(pointer), vm.getAttr(tensorValue, "device")});
}

}  // namespace eng::vm
