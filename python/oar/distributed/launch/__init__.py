"""python -m oar.distributed.launch: starts one process per rank (see main.py)."""

from .main import launch  # noqa: F401
