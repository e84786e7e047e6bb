// The option tables of registered backends (see backend_options.h), read by the VM's torch.compile and
// torch._inductor through the backend catalog.
#include "fx/backend_options.h"

#include <map>

#include "fx/backend.h"

namespace eng::fx {

namespace {

std::map<std::string, BackendOptionTable>& optionTables() {
    static std::map<std::string, BackendOptionTable> tables;
    return tables;
}

}  // namespace

const BackendOptionTable* backendOptionTable(const std::string& backend) {
    auto found = optionTables().find(backend);
    return found == optionTables().end() ? nullptr : &found->second;
}

void checkNamedBackendOptions(const vm::CompileOptions& options) {
    const BackendOptionTable* table = backendOptionTable(options.backend);
    if (table && table->check) table->check(options.backendOptions);
}

void registerBackendOptions(const std::string& backend, BackendOptionTable table) {
    optionTables()[backend] = std::move(table);
    installBackendCatalog();
}

}  // namespace eng::fx
