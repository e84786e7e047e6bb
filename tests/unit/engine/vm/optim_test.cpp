// torch.optim in the VM: SGD (momentum, dampening, Nesterov, weight decay, maximize), Adam and AdamW (amsgrad,
// betas, eps, decoupled weight decay) over three steps, checked against the update rules written out here in
// plain double arithmetic. param_groups, zero_grad, argument errors and a float32 problem PyTorch 2.11 ran are
// tests/scripts/vm/optim/*.py.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "script_support.h"

namespace {

// The loss of every run is sum(0.5 * c * w * w), so the gradient is c * w.
const std::vector<double> kStart = {1.0, -2.0, 0.5};
const std::vector<double> kCoefficients = {1.5, 0.5, -2.0};

struct SgdOptions {
    double lr = 0.1, momentum = 0, dampening = 0, weightDecay = 0;
    bool nesterov = false, maximize = false;
};

std::vector<std::vector<double>> sgdReference(const SgdOptions& o, int steps) {
    std::vector<double> w = kStart, buffer(w.size());
    std::vector<std::vector<double>> history;
    for (int step = 0; step < steps; ++step) {
        for (size_t i = 0; i < w.size(); ++i) {
            double g = kCoefficients[i] * w[i];
            if (o.maximize) g = -g;
            g += o.weightDecay * w[i];
            if (o.momentum != 0) {
                buffer[i] = step == 0 ? g : o.momentum * buffer[i] + (1 - o.dampening) * g;
                g = o.nesterov ? g + o.momentum * buffer[i] : buffer[i];
            }
            w[i] -= o.lr * g;
        }
        history.push_back(w);
    }
    return history;
}

struct AdamOptions {
    double lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0;
    bool decoupled = true, amsgrad = false, maximize = false;
};

std::vector<std::vector<double>> adamReference(const AdamOptions& o, int steps) {
    std::vector<double> w = kStart, m(w.size()), v(w.size()), vMax(w.size());
    std::vector<std::vector<double>> history;
    for (int step = 1; step <= steps; ++step) {
        for (size_t i = 0; i < w.size(); ++i) {
            double g = kCoefficients[i] * w[i];
            if (o.maximize) g = -g;
            if (o.decoupled) w[i] *= 1 - o.lr * o.weightDecay;
            else g += o.weightDecay * w[i];
            m[i] = o.beta1 * m[i] + (1 - o.beta1) * g;
            v[i] = o.beta2 * v[i] + (1 - o.beta2) * g * g;
            vMax[i] = std::max(vMax[i], v[i]);
            const double second = o.amsgrad ? vMax[i] : v[i];
            const double denominator = std::sqrt(second) / std::sqrt(1 - std::pow(o.beta2, step)) + o.eps;
            w[i] -= o.lr / (1 - std::pow(o.beta1, step)) * m[i] / denominator;
        }
        history.push_back(w);
    }
    return history;
}

// Runs three optimizer steps in the VM (float64 parameters) and returns w after each step.
std::vector<std::vector<double>> runInVm(const std::string& constructor) {
    const std::string source = "import torch\n"
                               "w = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)\n"
                               "c = torch.tensor([1.5, 0.5, -2.0], dtype=torch.float64)\n"
                               "opt = " + constructor + "\n"
                               "for _ in range(3):\n"
                               "    opt.zero_grad()\n"
                               "    (0.5 * c * w * w).sum().backward()\n"
                               "    opt.step()\n"
                               "    print(' '.join(repr(v) for v in w.tolist()))\n";
    vmtest::ScriptRun run = vmtest::runScript(source);
    EXPECT_TRUE(run.ok) << run.error;
    std::vector<std::vector<double>> history;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream numbers(line);
        std::vector<double> row;
        for (double v; numbers >> v;) row.push_back(v);
        history.push_back(row);
    }
    return history;
}

void expectHistory(const std::string& constructor, const std::vector<std::vector<double>>& expected) {
    SCOPED_TRACE(constructor);
    const std::vector<std::vector<double>> actual = runInVm(constructor);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t step = 0; step < expected.size(); ++step) {
        ASSERT_EQ(actual[step].size(), expected[step].size());
        for (size_t i = 0; i < expected[step].size(); ++i)
            EXPECT_NEAR(actual[step][i], expected[step][i], 1e-12 + 1e-12 * std::abs(expected[step][i])) << "step " << step + 1 << " element " << i;
    }
}

TEST(VmOptim, SgdMatchesItsUpdateRule) {
    expectHistory("torch.optim.SGD([w], lr=0.1)", sgdReference({}, 3));
    expectHistory("torch.optim.SGD([w], lr=0.05, momentum=0.9)", sgdReference({.lr = 0.05, .momentum = 0.9}, 3));
    expectHistory("torch.optim.SGD([w], lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)",
                  sgdReference({.lr = 0.05, .momentum = 0.9, .weightDecay = 0.01, .nesterov = true}, 3));
    expectHistory("torch.optim.SGD([w], 0.05, 0.5, 0.3, maximize=True)",
                  sgdReference({.lr = 0.05, .momentum = 0.5, .dampening = 0.3, .maximize = true}, 3));
    expectHistory("torch.optim.SGD([w], lr=0.2, weight_decay=0.5)", sgdReference({.lr = 0.2, .weightDecay = 0.5}, 3));
}

TEST(VmOptim, AdamAndAdamWMatchTheirUpdateRules) {
    expectHistory("torch.optim.AdamW([w], lr=0.1)", adamReference({.weightDecay = 0.01}, 3));
    expectHistory("torch.optim.AdamW([w], lr=0.1, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.5, amsgrad=True)",
                  adamReference({.beta1 = 0.8, .beta2 = 0.9, .eps = 1e-6, .weightDecay = 0.5, .amsgrad = true}, 3));
    expectHistory("torch.optim.Adam([w], lr=0.1)", adamReference({.decoupled = false}, 3));
    expectHistory("torch.optim.Adam([w], lr=0.1, weight_decay=0.1, amsgrad=True, maximize=True)",
                  adamReference({.weightDecay = 0.1, .decoupled = false, .amsgrad = true, .maximize = true}, 3));
}

}  // namespace
