"""``vectorize`` and ``apply_along_axis``: NumPy's looping helpers, built on ``vmap``.

They live in the umbrella because they need the batching package, which
tessela-numpy does not depend on; ``tessela.numpy`` exports them with the
rest of the NumPy names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["apply_along_axis", "vectorize"]

_DIM = r"\w+"
_CORE = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARG = rf"\({_CORE}\)"
_ARGS = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")

Core = tuple[str, ...]


def _parse_signature(signature: str) -> tuple[list[Core], list[Core]]:
    text = signature.replace(" ", "")
    if not _SIGNATURE.match(text):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = text.split("->")

    def cores(part: str) -> list[Core]:
        return [tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARG, part)]

    return cores(ins), cores(outs)


def _bind_core(sizes: dict[str, int], core: Core, shape: tuple[int, ...], where: str) -> None:
    for name, size in zip(core, shape[len(shape) - len(core) :], strict=True):
        known = sizes.setdefault(name, size)
        if known != size:
            raise ValueError(
                f"inconsistent size for core dimension {name!r}: {known} vs {size}{where}"
            )


def vectorize(
    pyfunc: Callable[..., Any],
    *,
    excluded: Collection[int | str] = frozenset(),
    signature: str | None = None,
) -> Callable[..., Any]:
    """Map ``pyfunc`` over the leading (loop) axes of its arguments, with ``vmap``.

    As ``numpy.vectorize``, but the loop is a ``vmap``, so it is traced once and
    runs as one batched program. Loop axes broadcast against each other.

    Args:
      pyfunc: the function of one element (or of core sub-arrays).
      excluded: positions and keyword names passed to ``pyfunc`` unchanged.
      signature: a generalised-ufunc signature such as ``"(n,m),(m)->(n)"``
        naming the trailing core axes of each argument and output; by default
        every argument and output is a scalar.

    Returns:
      The vectorized function.

    Raises:
      ValueError: an invalid signature, arguments without their core axes,
        inconsistent core sizes, or outputs that do not match the signature.

    Example:
        >>> import numpy as np
        >>> import tessela.numpy as tnp
        >>> matvec = tnp.vectorize(lambda a, b: a @ b, signature="(n,m),(m)->(n)")
        >>> matvec(np.ones((3, 2, 4)), np.ones(4)).shape
        (3, 2)
    """
    excluded = frozenset(excluded)
    cores = _parse_signature(signature) if signature is not None else None
    where = f" on vectorized function with excluded={excluded!r} and signature={signature!r}"

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        positions = [i for i in range(len(args)) if i not in excluded]
        fixed_kwargs = dict(kwargs)

        def call(*vec_args: Array) -> Any:
            full = list(args)
            for i, value in zip(positions, vec_args, strict=True):
                full[i] = value
            return pyfunc(*full, **fixed_kwargs)

        vec_args = [tnp.asarray(args[i]) for i in positions]
        in_cores, out_cores = cores if cores is not None else ([()] * len(vec_args), None)
        if len(in_cores) != len(vec_args):
            raise TypeError(
                f"wrong number of positional arguments: expected {len(in_cores)}, "
                f"got {len(vec_args)}{where}"
            )
        sizes: dict[str, int] = {}
        loops = []
        for x, core in zip(vec_args, in_cores, strict=True):
            if x.ndim < len(core):
                raise ValueError(
                    f"input with shape {x.shape} does not have enough dimensions for all "
                    f"core dimensions {core}{where}"
                )
            _bind_core(sizes, core, x.shape, where)
            loops.append(x.shape[: x.ndim - len(core)])
        loop_shape = np.broadcast_shapes(*loops) if loops else ()

        def core_fn(*xs: Array) -> Any:
            out = call(*xs)
            if out_cores is not None:
                _check_outputs(out, out_cores, dict(sizes), where)
            return out

        return _loop(core_fn, vec_args, loops, tuple(loop_shape))

    return wrapped


def _check_outputs(out: Any, out_cores: list[Core], sizes: dict[str, int], where: str) -> None:
    outs = out if len(out_cores) > 1 else (out,)
    if len(out_cores) > 1 and (not isinstance(out, tuple) or len(out) != len(out_cores)):
        got = len(out) if isinstance(out, tuple) else 1
        raise ValueError(
            f"wrong number of outputs from pyfunc: expected {len(out_cores)}, got {got}{where}"
        )
    for y, core in zip(outs, out_cores, strict=True):
        shape = tuple(np.shape(y))
        if len(shape) != len(core):
            raise ValueError(f"output shape {shape} does not match core dimensions {core}{where}")
        _bind_core(sizes, core, shape, where)


def _loop(
    core_fn: Callable[..., Any],
    args: Sequence[Any],
    loops: Sequence[tuple[int, ...]],
    loop_shape: tuple[int, ...],
) -> Any:
    # Left-pad every argument's loop axes to the common rank; an axis of size 1
    # that broadcasts is squeezed away and mapped with in_axes None.
    rank = len(loop_shape)
    prepared: list[Any] = []
    axes_per_level: list[list[int | None]] = [[] for _ in range(rank)]
    for x, loop in zip(args, loops, strict=True):
        padded = (1,) * (rank - len(loop)) + tuple(loop)
        x = tnp.reshape(x, padded + x.shape[len(loop) :])
        squeeze = []
        for level, (size, total) in enumerate(zip(padded, loop_shape, strict=True)):
            mapped = size == total
            axes_per_level[level].append(0 if mapped else None)
            if not mapped:
                squeeze.append(level)
        prepared.append(tnp.squeeze(x, tuple(squeeze)) if squeeze else x)
    fn = core_fn
    for level in reversed(range(rank)):
        fn = vmap(fn, in_axes=tuple(axes_per_level[level]))
    return fn(*prepared)


def apply_along_axis(
    func1d: Callable[..., ArrayLike], axis: int, arr: ArrayLike, *args: Any, **kwargs: Any
) -> Array:
    """Apply ``func1d`` to every 1-D slice of ``arr`` along ``axis``, with ``vmap``.

    Args:
      func1d: a function of a 1-D array (and ``args``/``kwargs``).
      axis: the axis whose slices are passed.
      arr: the array.
      *args: more positional arguments of ``func1d``.
      **kwargs: keyword arguments of ``func1d``.

    Returns:
      ``func1d``'s results, whose axes replace ``axis`` in ``arr``'s shape.

    Example:
        >>> import numpy as np
        >>> import tessela.numpy as tnp
        >>> tnp.apply_along_axis(tnp.sum, 1, np.ones((2, 3))).tolist()
        [3.0, 3.0]
    """
    array = tnp.asarray(arr)
    ndim = array.ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis %= ndim

    def fn(x: Array) -> ArrayLike:
        return func1d(x, *args, **kwargs)

    for i in range(1, ndim - axis):
        fn = vmap(fn, in_axes=i, out_axes=-1)
    for _ in range(axis):
        fn = vmap(fn, in_axes=0, out_axes=0)
    return cast(Array, fn(array))
