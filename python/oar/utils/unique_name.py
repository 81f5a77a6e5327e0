"""oar.utils.unique_name: Paddle's name generator (the names of layers and parameters
come from it: `linear_0`, `linear_0.w_0`, ...).

generate(key) gives key_0, key_1, ... per key, prefixed with the generator's prefix;
guard() runs a with-block with a fresh generator (so names restart), switch() swaps the
generator and returns the old one.
"""

from ..framework.unique_name import UniqueNameGenerator, generate, guard, switch

__all__ = ["generate", "guard", "switch", "UniqueNameGenerator"]
