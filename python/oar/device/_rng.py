"""The default generator's state as Paddle's GeneratorState objects: shared by
oar.device.get_rng_state/set_rng_state (and the top-level ones)."""
from __future__ import annotations

from .. import _C


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
        return isinstance(other, GeneratorState) and \
            (self._seed, self._counter) == (other._seed, other._counter)

    def __hash__(self):
        return hash((self._seed, self._counter))

    def __repr__(self):
        return f"GeneratorState(seed={self._seed}, offset={self._counter})"


def get_state():
    """The default (CPU) generator's state."""
    return GeneratorState(*_C._get_rng_state())


def set_state(state, api="set_rng_state"):
    """Restores the default (CPU) generator from a GeneratorState."""
    if not isinstance(state, GeneratorState):
        raise TypeError(f"{api}(): expected a GeneratorState (from get_rng_state()), but got "
                        f"{type(state).__name__}")
    _C._set_rng_state(state._seed, state._counter)


class Generator:
    """The default (CPU) random generator as Paddle's Generator object: what oar.seed
    returns. Every oar random op draws from it; there is one per process."""

    def manual_seed(self, seed):
        """Seeds the generator (as oar.seed) and returns it."""
        _C.seed(seed)
        return self

    def seed(self):
        """Seeds the generator with a fresh non-deterministic seed and returns that seed."""
        import secrets
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
        from .._creation import randint  # late: _creation imports this package's parent
        hi, lo = (int(v) for v in randint(0, 2 ** 32, [2]).numpy())
        return (hi << 32) | lo

    def __repr__(self):
        return f"oar.Generator(initial_seed={self.initial_seed()})"


DEFAULT_GENERATOR = Generator()
