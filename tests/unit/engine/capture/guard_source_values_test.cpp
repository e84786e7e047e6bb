// The guard tree's per-call source values (SourceValues): an optimizer-shaped frame whose state dict is keyed by
// the parameters reads every source path once per check (the guards, the aliasing guard over every tensor and the
// graph inputs share the reads), and a state tensor replaced by another of another size fails its guard.
#include <gtest/gtest.h>

#include <sstream>

#include "capture/guards.h"
#include "tensor/creation.h"

namespace {

using eng::capture::GuardKind;
using eng::capture::GuardSpec;
using eng::capture::GuardTree;
using eng::capture::Source;
using eng::capture::SourceRef;
using eng::capture::SourceValues;
namespace vm = eng::vm;
namespace tensor = eng::tensor;

GuardSpec tensorMatch(SourceRef source, const tensor::Tensor& t) {
    GuardSpec g;
    g.kind = GuardKind::TensorMatch;
    g.source = std::move(source);
    g.dtype = t.dtype();
    g.device = t.device();
    g.sizes = t.sizes();
    g.strides = t.strides();
    g.dynamicDims.assign(t.sizes().size(), false);
    return g;
}

struct OptimizerFrame {
    vm::ValueList params, exps;
    vm::Value state = vm::Value(std::make_shared<vm::DictObject>());
    vm::ValueList locals;
    vm::Namespace globals;
    std::vector<SourceRef> paramSources, expSources;

    explicit OptimizerFrame(int count) {
        SourceRef paramList = Source::local("params", 0);
        SourceRef stateDict = Source::local("state", 1);
        for (int i = 0; i < count; ++i) {
            params.push_back(vm::makeTensor(tensor::zeros({3, 2})));
            exps.push_back(vm::makeTensor(tensor::zeros({3, 2})));
            auto perParam = std::make_shared<vm::DictObject>();
            perParam->set(vm::makeStr("exp_avg"), exps.back());
            state.as<vm::DictObject>().set(params.back(), vm::Value(perParam));
            paramSources.push_back(Source::item(paramList, i));
            expSources.push_back(Source::dictItem(Source::dictItemAt(stateDict, paramSources.back()), vm::makeStr("exp_avg")));
        }
        locals = {vm::makeList(params), state};
    }

    std::vector<GuardSpec> guards() const {
        std::vector<GuardSpec> out;
        GuardSpec aliasing;
        aliasing.kind = GuardKind::NoTensorAliasing;
        aliasing.source = paramSources.front();
        for (size_t i = 0; i < params.size(); ++i) {
            out.push_back(tensorMatch(paramSources[i], params[i].tensor()));
            out.push_back(tensorMatch(expSources[i], exps[i].tensor()));
            aliasing.related.push_back(paramSources[i]);
            aliasing.related.push_back(expSources[i]);
        }
        out.push_back(aliasing);
        return out;
    }
};

TEST(GuardSourceValues, EverySourcePathIsReadOncePerCheck) {
    std::ostringstream out;
    vm::Interpreter interpreter(out);
    OptimizerFrame frame(4);
    GuardTree tree(frame.guards());
    // The graph's inputs (each parameter and its exp_avg) are read through the guards' own accessors.
    std::vector<int> inputs;
    for (size_t i = 0; i < frame.params.size(); ++i) {
        inputs.push_back(tree.accessor(frame.paramSources[i]));
        inputs.push_back(tree.accessor(frame.expSources[i]));
    }
    SourceValues values(tree, interpreter, frame.locals, frame.globals);
    ASSERT_TRUE(tree.check(values));
    // L['params'], L['state'], and per parameter: L['params'][i], L['state'][L['params'][i]], ...['exp_avg'].
    EXPECT_EQ(values.reads(), 2 + 3 * 4);
    for (size_t i = 0; i < frame.params.size(); ++i) {
        EXPECT_TRUE(values.at(inputs[2 * i])->identical(frame.params[i]));
        EXPECT_TRUE(values.at(inputs[2 * i + 1])->identical(frame.exps[i]));
    }
    EXPECT_EQ(values.reads(), 2 + 3 * 4);  // the inputs took no read of their own
}

TEST(GuardSourceValues, AReplacedStateTensorIsReadAfreshAndFailsItsGuard) {
    std::ostringstream out;
    vm::Interpreter interpreter(out);
    OptimizerFrame frame(3);
    GuardTree tree(frame.guards());
    ASSERT_TRUE(tree.check(interpreter, frame.locals, frame.globals));
    // Another tensor of the same layout holds; the next call's values are the new tensor's.
    vm::Value same = vm::makeTensor(tensor::zeros({3, 2}));
    *frame.state.as<vm::DictObject>().find(frame.params[1])->as<vm::DictObject>().find(vm::makeStr("exp_avg")) = same;
    SourceValues values(tree, interpreter, frame.locals, frame.globals);
    ASSERT_TRUE(tree.check(values));
    EXPECT_TRUE(values.at(tree.accessor(frame.expSources[1]))->identical(same));
    // Another size fails, in Dynamo's words.
    *frame.state.as<vm::DictObject>().find(frame.params[2])->as<vm::DictObject>().find(vm::makeStr("exp_avg")) =
        vm::makeTensor(tensor::zeros({2, 3}));
    EXPECT_FALSE(tree.check(interpreter, frame.locals, frame.globals));
    auto failure = tree.explainFailure(interpreter, frame.locals, frame.globals);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->reason, "tensor 'state[params[2]]['exp_avg']' size mismatch at index 0. expected 3, actual 2");
    // One tensor as two parameters' state: the aliasing guard names both sources.
    *frame.state.as<vm::DictObject>().find(frame.params[2])->as<vm::DictObject>().find(vm::makeStr("exp_avg")) = frame.exps[0];
    failure = tree.explainFailure(interpreter, frame.locals, frame.globals);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->reason, "Duplicate tensors found: [\"state[params[0]]['exp_avg']\", \"state[params[2]]['exp_avg']\"]");
}

}  // namespace
