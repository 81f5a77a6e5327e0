"""oar.nn.functional with Paddle's names, signatures and defaults. One module per
group, as in Paddle; each lists its public functions in __all__, which the
star imports below bring in."""

from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .flash_attention import *  # noqa: F401,F403
from ._flash_variants import *  # noqa: F401,F403
from ._moe import *  # noqa: F401,F403
