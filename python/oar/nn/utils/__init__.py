"""oar.nn.utils (Paddle's paddle.nn.utils): weight and spectral normalisation as
forward-pre-hooks on a layer, flattening parameters to a vector and back, and clipping
the stored gradients of a list of parameters in place."""

from .norm_hooks import remove_weight_norm, spectral_norm, weight_norm  # noqa: F401
from .params import (
    clip_grad_norm_,
    clip_grad_value_,
    parameters_to_vector,  # noqa: F401
    vector_to_parameters,
)

__all__ = [
    "weight_norm",
    "remove_weight_norm",
    "spectral_norm",
    "parameters_to_vector",
    "vector_to_parameters",
    "clip_grad_norm_",
    "clip_grad_value_",
]
