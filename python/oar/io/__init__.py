"""oar.io: datasets, samplers and the DataLoader (Paddle's paddle.io)."""

from .collate import default_collate_fn, default_convert_fn  # noqa: F401
from .dataloader import DataLoader, WorkerInfo, get_worker_info  # noqa: F401
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
