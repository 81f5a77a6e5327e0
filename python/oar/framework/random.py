"""The default generator as Paddle's Generator class (oar.Generator, what oar.seed returns)
and its state as Paddle's GeneratorState objects: shared by
oar.device.get_rng_state/set_rng_state (and the top-level ones)."""

from __future__ import annotations

import secrets

from .check import is_int
from .. import _C
from typing import Any
from typing import Sequence
from .check import _cpu_device
from .dtype import float64
from .place import _to_place


class GeneratorState:
    """A snapshot of a random generator: restoring it (set_rng_state) makes the random
    ops that follow draw the same numbers again."""

    __slots__ = ("_seed", "_counter")

    def __init__(self, seed, counter):
        self._seed, self._counter = int(seed), int(counter)

    def current_seed(self):
        """The seed the generator was last seeded with."""
        return self._seed

    def __eq__(self, other):
        return isinstance(other, GeneratorState) and (self._seed, self._counter) == (
            other._seed,
            other._counter,
        )

    def __hash__(self):
        return hash((self._seed, self._counter))

    def __repr__(self):
        return f"GeneratorState(seed={self._seed}, offset={self._counter})"


def get_state() -> GeneratorState:
    """The default (CPU) generator's state."""
    return GeneratorState(*_C._get_rng_state())


def set_state(state: GeneratorState, api: str = "set_rng_state") -> None:
    """Restores the default (CPU) generator from a GeneratorState."""
    if not isinstance(state, GeneratorState):
        raise TypeError(
            f"{api}(): expected a GeneratorState (from get_rng_state()), but got "
            f"{type(state).__name__}"
        )
    _C._set_rng_state(state._seed, state._counter)


class Generator:
    """Paddle's random generator: oar.Generator(device) and oar.seed both give the one
    default CPU generator, which every oar random op draws from (Paddle's Generator(place)
    likewise returns the place's default generator, not a new one).

    Besides seeding and snapshots it keeps Paddle's numbered states: register_state_index
    adds a state and switches to it, set_state_index switches between them, and the random
    ops draw from (and advance) the current one.

    Examples:
        >>> import oar
        >>> g = oar.Generator()
        >>> g is oar.seed(7), g.initial_seed()
        (True, 7)
        >>> state = g.get_state()
        >>> a = oar.rand([2])
        >>> g.set_state(state)
        >>> bool((oar.rand([2]) == a).all())
        True
    """

    def __new__(cls, device=None):
        _generator_device(device)
        return DEFAULT_GENERATOR

    def __init__(self, device=None):
        pass  # the default generator keeps its state: construction only looks it up

    def _setup(self):
        self._states = [None]  # the current index's state lives in the C++ generator
        self._index = 0

    def manual_seed(self, seed):
        """Seeds the generator (as oar.seed) and returns it."""
        _C.seed(seed)
        return self

    def seed(self):
        """Seeds the generator with a fresh non-deterministic seed and returns that seed."""
        s = secrets.randbits(63)
        _C.seed(s)
        return s

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        return _C._get_rng_state()[0]

    def get_state(self):
        """The generator's state (a GeneratorState)."""
        return get_state()

    def set_state(self, state):
        """Restores a state get_state returned."""
        set_state(state, "Generator.set_state")

    def random(self):
        """A uniform random 64-bit unsigned integer drawn from the generator (advancing
        it, as any random op does)."""
        u = _C.floor(_C.uniform([2], float64, 0.0, float(2**32), 0))  # oar.randint's way
        hi, lo = (int(v) for v in u.numpy())
        return (hi << 32) | lo

    def get_state_index(self):
        """The index of the state the random ops draw from (0 until another is chosen)."""
        return self._index

    def register_state_index(self, state):
        """Adds `state` (a GeneratorState) as a new numbered state, makes it the current
        one, as Paddle does, and returns its index."""
        if not isinstance(state, GeneratorState):
            raise TypeError(
                f"Generator.register_state_index(): argument 'state' must be a "
                f"GeneratorState (from get_state()), but got "
                f"{type(state).__name__}"
            )
        self._states[self._index] = get_state()
        self._states.append(state)
        self._index = len(self._states) - 1
        set_state(state)
        return self._index

    def set_state_index(self, index):
        """Makes the numbered state `index` the current one; the state left keeps its
        position in its stream for a later switch back."""
        if not is_int(index):
            raise TypeError(
                f"Generator.set_state_index(): argument 'index' must be an int, "
                f"but got {type(index).__name__}"
            )
        if not 0 <= index < len(self._states):
            # Paddle accepts any index here and fails at the next random op instead
            raise ValueError(
                f"Generator.set_state_index(): argument 'index' ({index}) must "
                f"be in [0, {len(self._states)}): register_state_index returns "
                f"the valid ones"
            )
        if index != self._index:
            self._states[self._index] = get_state()
            self._index = index
            set_state(self._states[index])

    def __repr__(self):
        return f"oar.Generator(initial_seed={self.initial_seed()})"


def _generator_device(device):
    """Checks Generator's device argument: the CPU (None, 'cpu', a CPUPlace, or 0, the
    only index Paddle's CPU build accepts)."""
    if device is None or (isinstance(device, int) and not isinstance(device, bool) and device == 0):
        return
    if isinstance(device, int) and not isinstance(device, bool):
        raise ValueError(
            f"Generator(): argument 'device' is {device}, but the CPU, oar's "
            f"only device, has index 0 alone"
        )
    _to_place(device, "Generator()")


DEFAULT_GENERATOR = object.__new__(Generator)
DEFAULT_GENERATOR._setup()


def get_rng_state(device: Any = None) -> list[GeneratorState]:
    """The state of the random generator of `device` (only the CPU's), as a one-element list.

    Examples:
        >>> import oar
        >>> state = oar.get_rng_state()
        >>> a = oar.rand([3])
        >>> oar.set_rng_state(state)
        >>> print(bool((oar.rand([3]) == a).all()))
        True
    """
    _cpu_device("get_rng_state", device)
    return [GeneratorState(*_C._get_rng_state())]


def set_rng_state(state_list: Sequence[GeneratorState], device: Any = None) -> None:
    """Restores a state get_rng_state returned."""
    _cpu_device("set_rng_state", device)
    if isinstance(state_list, GeneratorState):
        state_list = [state_list]
    if (
        not isinstance(state_list, (list, tuple))
        or len(state_list) != 1
        or not isinstance(state_list[0], GeneratorState)
    ):
        raise TypeError(
            f"set_rng_state(): argument 'state_list' must be the one-element list "
            f"get_rng_state() returns, but got {state_list!r}"
        )
    s = state_list[0]
    _C._set_rng_state(s._seed, s._counter)


def get_cuda_rng_state() -> list[GeneratorState]:
    """The states of the CUDA generators: none in oar (a CPU build), so an empty list, as
    Paddle's CPU build answers."""
    return []


def set_cuda_rng_state(state_list: Sequence[GeneratorState]) -> None:
    """Restores the CUDA generators' states: only the empty list of a CPU build is valid."""
    if not isinstance(state_list, (list, tuple)):
        raise TypeError(
            f"set_cuda_rng_state(): argument 'state_list' must be a list, but got "
            f"{type(state_list).__name__}"
        )
    if len(state_list):
        raise ValueError(
            "set_cuda_rng_state(): oar is built for the CPU only and has no CUDA "
            "generators; the only valid state list is []"
        )
