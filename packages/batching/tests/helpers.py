"""vmap against a Python loop that stacks per-example results."""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_batching import vmap
from tessela_pytree import tree_flatten


def loop(f: Any, in_axes: Any, args: tuple[Any, ...], out_axes: int = 0) -> list[np.ndarray]:
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes, strict=False) if ax is not None)
    per = []
    for i in range(size):
        ex = [
            a if ax is None else np.take(np.asarray(a), i, axis=ax)
            for a, ax in zip(args, axes, strict=False)
        ]
        per.append([np.asarray(o) for o in tree_flatten(f(*ex))[0]])
    return [np.stack(list(col), axis=out_axes) for col in zip(*per, strict=False)]


def check(f: Any, in_axes: Any, *args: Any, out_axes: int = 0, rtol: float = 1e-5) -> None:
    got = [np.asarray(o) for o in tree_flatten(vmap(f, in_axes, out_axes)(*args))[0]]
    want = loop(f, in_axes, args, out_axes)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=False):
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)
