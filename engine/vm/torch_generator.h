// A torch.Generator instance of the VM: the id of its generator in the tensor runtime's table (tensor/random.h);
// passed to an op as generator=, it becomes that table entry (toTensorValue).
#pragma once

#include <cstdint>
#include <memory>

#include "vm/value.h"

namespace eng::vm {

struct TorchGeneratorObject : InstanceObject {
    TorchGeneratorObject(std::shared_ptr<ClassObject> c, int64_t generatorId) : InstanceObject(std::move(c)), id(generatorId) {}
    int64_t id;
};

}  // namespace eng::vm
