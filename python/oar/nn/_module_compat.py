"""PyTorch's container names in oar.nn, as Paddle 3.3 has them: paddle.nn.Module is
paddle.nn.Layer itself, ModuleDict is LayerDict and ModuleList is LayerList (the same
class objects, not subclasses), so isinstance checks and subclassing agree across
both spellings."""

from .layer.container import LayerDict as ModuleDict, LayerList as ModuleList  # noqa: F401
from .layer.layers import Layer as Module  # noqa: F401

__all__ = ["Module", "ModuleDict", "ModuleList"]
