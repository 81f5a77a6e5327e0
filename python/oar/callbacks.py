"""oar.callbacks (Paddle's paddle.callbacks)."""

from .hapi.callbacks import (
    Callback,
    EarlyStopping,
    LRScheduler,
    ModelCheckpoint,  # noqa: F401
    ProgBarLogger,
    ReduceLROnPlateau,
    VisualDL,
    WandbCallback,
)
