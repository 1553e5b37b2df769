"""Observation and action spaces in the shape of Gymnasium's (Box, Discrete, MultiDiscrete)
without needing Gymnasium: each has shape and dtype, sample(seed) and contains(x)."""
import numpy as np


class Box:
    """Arrays of `shape` and `dtype` with every entry in [low, high]."""

    def __init__(self, low, high, shape, dtype=np.float32):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.low = np.full(self.shape, low, dtype=self.dtype)
        self.high = np.full(self.shape, high, dtype=self.dtype)

    def sample(self, seed=None):
        """A uniformly random point (seed: an int or a numpy Generator)."""
        rng = np.random.default_rng(seed)
        return rng.uniform(self.low, self.high).astype(self.dtype)

    def contains(self, x):
        """Whether x has the shape and lies within the bounds."""
        x = np.asarray(x)
        return bool(
            x.shape == self.shape and np.all(x >= self.low) and np.all(x <= self.high)
        )

    __contains__ = contains

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


class Discrete:
    """The integers 0..n-1 (an action index)."""

    shape = ()
    dtype = np.dtype(np.int64)

    def __init__(self, n):
        self.n = int(n)

    def sample(self, seed=None, mask=None):
        """A uniformly random element, among those mask allows when given."""
        rng = np.random.default_rng(seed)
        if mask is None:
            return int(rng.integers(self.n))
        allowed = np.flatnonzero(np.asarray(mask))
        if allowed.size == 0:
            raise ValueError("the mask allows no action")
        return int(rng.choice(allowed))

    def contains(self, x):
        """Whether x is an integer in 0..n-1."""
        return isinstance(x, (int, np.integer)) and 0 <= int(x) < self.n

    __contains__ = contains

    def __repr__(self):
        return f"Discrete({self.n})"


class MultiDiscrete:
    """One integer in 0..nvec[i]-1 per entry (a vector environment's actions)."""

    dtype = np.dtype(np.int64)

    def __init__(self, nvec):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        self.shape = self.nvec.shape

    def sample(self, seed=None, mask=None):
        """Uniformly random entries, each among those its mask row allows when given."""
        rng = np.random.default_rng(seed)
        if mask is None:
            return rng.integers(self.nvec)
        return np.array([Discrete(n).sample(rng, m) for n, m in zip(self.nvec, mask)])

    def contains(self, x):
        """Whether x has the shape and every entry is in range."""
        x = np.asarray(x)
        return bool(
            x.shape == self.shape
            and np.issubdtype(x.dtype, np.integer)
            and np.all(x >= 0)
            and np.all(x < self.nvec)
        )

    __contains__ = contains

    def __repr__(self):
        return f"MultiDiscrete({self.nvec.tolist()})"
