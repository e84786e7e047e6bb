// torch.optim in the VM: SGD (momentum, dampening, Nesterov, weight decay, maximize), Adam and AdamW (amsgrad,
// betas, eps, decoupled weight decay) over three steps, checked against the update rules written out here in
// plain double arithmetic; plus param_groups, zero_grad and PyTorch's argument errors.
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

TEST(VmOptim, ParamGroupsStateAndZeroGrad) {
    vmtest::ScriptRun run = vmtest::runScript(R"(import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
print(len(opt.param_groups), opt.param_groups[0]["lr"], opt.param_groups[1]["lr"], opt.param_groups[1]["momentum"])
(a.sum() + 2 * b.sum()).backward()
opt.step()
print(a.tolist(), b.tolist(), opt.state[a]["momentum_buffer"].tolist())
opt.param_groups[0]["lr"] = 1.0
opt.zero_grad(set_to_none=False)
print(a.grad, b.grad)
opt.zero_grad()
print(a.grad, b.grad)
print(isinstance(opt, torch.optim.Optimizer), type(opt).__name__)
)");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "2 0.1 0.5 0.9\n"
                       "[0.8999999761581421, 1.899999976158142] [2.0] [1.0, 1.0]\n"
                       "tensor([0., 0.]) tensor([0.])\n"
                       "None None\n"
                       "True SGD\n");
}

TEST(VmOptim, ArgumentErrorsUsePyTorchsWording) {
    vmtest::ScriptRun run = vmtest::runScript(R"(import torch
for make in [lambda: torch.optim.SGD([torch.zeros(1)], lr=-1.0),
             lambda: torch.optim.SGD([torch.zeros(1)], lr=0.1, momentum=-0.5),
             lambda: torch.optim.SGD([torch.zeros(1)], lr=0.1, nesterov=True),
             lambda: torch.optim.SGD([torch.zeros(1)], lr=0.1, weight_decay=-1.0),
             lambda: torch.optim.Adam([torch.zeros(1)], betas=(1.0, 0.9)),
             lambda: torch.optim.AdamW([torch.zeros(1)], eps=-1.0),
             lambda: torch.optim.AdamW([], lr=0.1)]:
    try:
        make()
    except ValueError as e:
        print("ValueError:", e)
)");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "ValueError: Invalid learning rate: -1.0\n"
                       "ValueError: Invalid momentum value: -0.5\n"
                       "ValueError: Nesterov momentum requires a momentum and zero dampening\n"
                       "ValueError: Invalid weight_decay value: -1.0\n"
                       "ValueError: Invalid beta parameter at index 0: 1.0\n"
                       "ValueError: Invalid epsilon value: -1.0\n"
                       "ValueError: optimizer got an empty parameter list\n");
}

// The same toy problem PyTorch 2.11 ran (float32): the VM's parameters after three steps, to 5 decimals.
TEST(VmOptim, MatchesPyTorchOnAFloat32Problem) {
    vmtest::ScriptRun run = vmtest::runScript(R"(import torch


def run(make_opt, steps=3):
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = torch.tensor([0.5], requires_grad=True)
    opt = make_opt([w, b])
    for i in range(steps):
        opt.zero_grad()
        loss = ((w * torch.tensor([1.0, 2.0, -1.0]) + b) ** 2).sum() + (w ** 3).sum() * 0.1
        loss.backward()
        opt.step()
    print([f"{v:.5f}" for v in w.tolist()], [f"{v:.5f}" for v in b.tolist()])


run(lambda p: torch.optim.SGD(p, lr=0.1))
run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))
run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01))
run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.5, dampening=0.3, maximize=True))
run(lambda p: torch.optim.Adam(p, lr=0.1))
run(lambda p: torch.optim.Adam(p, lr=0.1, weight_decay=0.1, amsgrad=True))
run(lambda p: torch.optim.AdamW(p, lr=0.1))
run(lambda p: torch.optim.AdamW(p, lr=0.1, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.5, amsgrad=True))
run(lambda p: torch.optim.AdamW([{'params': [p[0]]}, {'params': [p[1]], 'lr': 0.01}], lr=0.1))
)");
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, "['-0.03974', '-0.62344', '1.65386'] ['1.08628']\n"
                       "['-0.01164', '0.23024', '1.33750'] ['1.81874']\n"
                       "['-0.46445', '-0.14108', '1.11806'] ['1.27222']\n"
                       "['1.50276', '-5.08086', '4.69012'] ['-1.89162']\n"
                       "['0.70017', '-1.70125', '2.70105'] ['0.79815']\n"
                       "['0.70020', '-1.70124', '2.70102'] ['0.79810']\n"
                       "['0.69749', '-1.69558', '2.69238'] ['0.79632']\n"
                       "['0.57312', '-1.43198', '2.28958'] ['0.71049']\n"
                       "['0.69830', '-1.69505', '2.69197'] ['0.52978']\n");
}

}  // namespace
