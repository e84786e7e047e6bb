// torch.nn layers and utilities written in the subset, as PyTorch writes them in Python: the activation modules
// Softmax / LogSoftmax / Softmin / Softplus, Conv1d / Conv2d, BatchNorm1d / BatchNorm2d, AvgPool1d / AvgPool2d (each a thin
// forward over its torch.nn.functional op), and torch.nn.utils' clip_grad_norm_ / clip_grad_value_ /
// parameters_to_vector. Being Python, the capture engine inlines them as Dynamo inlines torch.nn.
#include <map>
#include <string>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kActivation = R"PY(
from torch.nn import Module
import torch.nn.functional as F


class _DimActivation(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def extra_repr(self):
        return "dim=" + str(self.dim)


class Softmax(_DimActivation):
    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_DimActivation):
    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(_DimActivation):
    def forward(self, input):
        return F.softmax(-input, self.dim, _stacklevel=5)


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return "beta={}, threshold={}".format(self.beta, self.threshold)
)PY";

const char* kConv = R"PY(
import math
import torch
from torch.nn import Module, Parameter, init
import torch.nn.functional as F


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return tuple([value] * n)


class _ConvNd(Module):
    def __init__(self, n, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, dtype):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError("padding_mode " + repr(padding_mode) + " is not supported by cwb (only 'zeros')")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(torch.empty((out_channels, in_channels // groups) + self.kernel_size, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{}, {}, kernel_size={}, stride={}".format(self.in_channels, self.out_channels, self.kernel_size, self.stride)
        if self.padding != (0,) * len(self.padding):
            s += ", padding=" + str(self.padding)
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation=" + str(self.dilation)
        if self.groups != 1:
            s += ", groups=" + str(self.groups)
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, dtype)

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, dtype)

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
)PY";

const char* kBatchNorm = R"PY(
import torch
from torch.nn import Module, Parameter
import torch.nn.functional as F


class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(torch.ones(num_features, dtype=dtype))
            self.bias = Parameter(torch.zeros(num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", torch.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:
                    exponential_average_factor = self.momentum
        if not self.training:
            return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                                self.running_mean is None and self.running_var is None, 0.0, self.eps)
        if self.track_running_stats:
            # The running statistics are updated here, in place, rather than inside the batch_norm op: compiled
            # code sees the buffer writes (and writes them back once) instead of an op that mutates its inputs.
            with torch.no_grad():
                dims = [0]
                for d in range(2, input.dim()):
                    dims.append(d)
                count = input.numel() // input.size(1)
                mean = input.mean(dims)
                var = input.var(dims, correction=0) * (count / max(count - 1, 1))
                self.running_mean.mul_(1 - exponential_average_factor).add_(mean * exponential_average_factor)
                self.running_var.mul_(1 - exponential_average_factor).add_(var * exponential_average_factor)
        return F.batch_norm(input, None, None, self.weight, self.bias, True, 0.0, self.eps)

    def extra_repr(self):
        return "{}, eps={}, momentum={}, affine={}, track_running_stats={}".format(
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats)


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError("expected 2D or 3D input (got " + str(input.dim()) + "D input)")


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError("expected 4D input (got " + str(input.dim()) + "D input)")
)PY";

const char* kPooling = R"PY(
from torch.nn import Module
import torch.nn.functional as F


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)

class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}".format(
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class MaxPool1d(_MaxPoolNd):
    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices)


class AdaptiveAvgPool1d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return "output_size={}".format(self.output_size)


class AdaptiveAvgPool2d(AdaptiveAvgPool1d):
    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)
)PY";

const char* kFlatten = R"PY(
from torch.nn import Module


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim={}, end_dim={}".format(self.start_dim, self.end_dim)


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return "dim={}, unflattened_size={}".format(self.dim, self.unflattened_size)
)PY";

const char* kUtils = R"PY(
import torch


def _tensors(parameters):
    if isinstance(parameters, torch.Tensor):
        return [parameters]
    return list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        return torch.tensor(0.0)
    norms = [torch.linalg.vector_norm(g, norm_type) for g in grads]
    total_norm = torch.linalg.vector_norm(torch.stack(norms), norm_type)
    if error_if_nonfinite and (torch.isnan(total_norm) or torch.isinf(total_norm)):
        raise RuntimeError(
            "The total norm of order " + str(norm_type) + " for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`")
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped)
    return total_norm


def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    for p in _tensors(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    return torch.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer = pointer + num_param
)PY";

}  // namespace

/// torch.nn.ParameterList / ParameterDict written in the subset (nn_containers_polyfill.cpp).
const char* nnContainersPolyfillSource();

const std::vector<std::string>& nnLayerModules() {
    static const std::vector<std::string> modules = {"torch.nn.modules.activation", "torch.nn.modules.conv", "torch.nn.modules.batchnorm",
                                                     "torch.nn.modules.pooling", "torch.nn.modules.flatten", "torch.nn.modules.container"};
    return modules;
}

const char* nnPolyfillSource(const std::string& module) {
    static const std::map<std::string, const char*> kSources = {{"torch.nn.modules", "\n"},
                                                                {"torch.nn.modules.activation", kActivation},
                                                                {"torch.nn.modules.conv", kConv},
                                                                {"torch.nn.modules.batchnorm", kBatchNorm},
                                                                {"torch.nn.modules.pooling", kPooling},
                                                                {"torch.nn.modules.flatten", kFlatten},
                                                                {"torch.nn.modules.container", nnContainersPolyfillSource()},
                                                                {"torch.nn.utils", kUtils},
                                                                {"torch.nn.utils.clip_grad", kUtils}};
    auto it = kSources.find(module);
    return it == kSources.end() ? nullptr : it->second;
}

}  // namespace eng::vm
