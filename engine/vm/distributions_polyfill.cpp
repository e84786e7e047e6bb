// torch.distributions written in the subset, as PyTorch writes it in Python: Distribution (batch and event
// shapes, argument validation outside compiled code), Normal (log_prob, sample/rsample, entropy, cdf) and
// Independent (reinterprets batch dims as event dims). Being Python, the capture engine inlines it as Dynamo does.
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

const char* kDistributions = R"PY(
import math
import torch


def broadcast_all(*values):
    # PyTorch's: numbers become tensors of the first tensor's dtype and device (else the default dtype), then
    # torch.broadcast_tensors, which keeps each dtype.
    tensors_only = True
    for v in values:
        if not isinstance(v, (torch.Tensor, int, float)):
            raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects implementing __torch_function__.")
        if not isinstance(v, torch.Tensor):
            tensors_only = False
    if not tensors_only:
        dtype = torch.get_default_dtype()
        device = None
        for v in values:
            if isinstance(v, torch.Tensor):
                dtype = v.dtype
                device = v.device
                break
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype, device=device) for v in values]
    return torch.broadcast_tensors(*values)


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    required_shape = tuple(value.shape[: value.dim() - dim]) + (-1,)
    return value.reshape(required_shape).sum(-1)


class Distribution:
    has_rsample = False
    _validate_args = True

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = torch.Size(batch_shape)
        self._event_shape = torch.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return torch.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _check_positive(self, name, value):
        # Argument checks run eagerly; compiled code skips them, as Dynamo's graphs hold none.
        if self._validate_args and not torch.compiler.is_compiling():
            if not bool((value > 0).all()):
                raise ValueError("Expected parameter " + name + " (" + type(value).__name__ + " of shape " + str(tuple(value.shape)) +
                                 ") of distribution " + repr(self) + " to satisfy the constraint GreaterThan(lower_bound=0.0), but "
                                 "found invalid values:\n" + str(value))

    def sample(self, sample_shape=()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def __repr__(self):
        return type(self).__name__ + "()"


class Normal(Distribution):
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if isinstance(loc, (int, float)) and isinstance(scale, (int, float)) else self.loc.size()
        Distribution.__init__(self, batch_shape, (), validate_args)
        self._check_positive("scale", self.scale)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = torch.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        var = self.scale**2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)

    def __repr__(self):
        return "Normal(loc: " + str(self.loc.size()) + ", scale: " + str(self.scale.size()) + ")"


class Independent(Distribution):
    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual " +
                             str(reinterpreted_batch_ndims) + " vs " + str(len(base_distribution.batch_shape)))
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        Distribution.__init__(self, shape[: len(shape) - event_dim], shape[len(shape) - event_dim:], validate_args)

    @property
    def mean(self):
        return self.base_dist.mean

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return "Independent(" + repr(self.base_dist) + ", " + str(self.reinterpreted_batch_ndims) + ")"
)PY";

}  // namespace

const char* distributionsPolyfillSource() { return kDistributions; }

}  // namespace eng::vm
