"""``jax.debug``'s sharding views: ``inspect_array_sharding`` and the text pictures.

``visualize_sharding(shape, sharding)`` prints the grid of a 1-D or 2-D
array's shards: one box per distinct block, labelled with the platform and
the ids of the devices holding it, sized as JAX sizes it (``scale``,
``min_width``, ``max_width``). JAX draws it with the ``rich`` package; the
text here is the one ``rich`` prints without colors (square box characters,
each label centered in its cell), produced without that dependency.
``inspect_array_sharding`` calls back with each array's sharding; inside
``jit`` (one device) it calls back while tracing, with the device the
computation runs on.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import tessela_lowering
from tessela_pytree import tree_leaves
from tessela_tracer import Tracer, get_aval
from tessela_tracer.typing import ArrayLike

__all__ = ["inspect_array_sharding", "visualize_array_sharding", "visualize_sharding"]


def _as_slice(index: Any) -> slice:
    return slice(index, index + 1) if isinstance(index, int) else index


def _chunk_index(size: int, index: slice) -> int:
    if index.start is None and index.stop is None:
        return 0
    return int(index.start) // (int(index.stop) - int(index.start))


def _extent(index: slice, size: int) -> int:
    return size if index.stop is None else int(index.stop) - int(index.start or 0)


def _grid(
    shape: Sequence[int], sharding: Any
) -> tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any]]:
    # For each block (row, column): the device ids holding it, its height and width as
    # fractions of the array (height None for 1-D arrays).
    ids: dict[tuple[int, int], set[int]] = {}
    heights: dict[tuple[int, int], float | None] = {}
    widths: dict[tuple[int, int], float] = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        slices = tuple(_as_slice(i) for i in index)
        chunk = tuple(_chunk_index(s, i) for s, i in zip(shape, slices, strict=True))
        if len(slices) == 2:
            key = (chunk[0], chunk[1])
            heights[key] = _extent(slices[0], shape[0]) / shape[0]
            widths[key] = _extent(slices[1], shape[1]) / shape[1]
        else:
            key = (0, chunk[0])
            heights[key] = None
            widths[key] = _extent(slices[0], shape[0]) / shape[0]
        ids.setdefault(key, set()).add(int(device.id))
    return ids, heights, widths


Cell = tuple[str, tuple[int, int, int, int]]  # label, (top, right, bottom, left) padding


def _wrap(label: str, width: int) -> list[str]:
    # rich's Text.wrap as a table cell runs it (overflow "ellipsis", justify
    # "left"): break before a word that would overflow, cut a line still too
    # long to ``width - 1`` cells and an ellipsis, pad each line to ``width``.
    breaks, offset = [], 0
    for word in re.finditer(r"\s*\S+\s*", label):
        start, text = word.start(), word.group(0)
        if width - offset >= len(text.rstrip()):
            offset += len(text)
        elif start and (offset or len(text.rstrip()) > width):
            breaks.append(start)
            offset = len(text)
        else:
            offset = len(text)
    lines = []
    for a, b in itertools.pairwise([0, *breaks, len(label)]):
        line = label[a:b]
        if len(line) > width:
            trailing = len(line) - len(line.rstrip())
            line = line[: len(line) - min(trailing, len(line) - width)]
        if len(line) > width:
            line = line[: width - 1] + "…"
        lines.append(line.ljust(width))
    return lines


def _measure(cell: Cell, max_width: int) -> tuple[int, int]:
    # rich's Measurement of Padding(Align(label)) within ``max_width`` cells.
    if max_width < 1:
        return 0, 0
    label, (_, right, _, left) = cell
    extra = left + right
    if max_width - extra < 1:
        return max_width, max_width
    inner = max_width - extra
    low = min(max(len(w) for w in label.split()), len(label))
    low, high = min(low, inner), min(len(label), inner)
    return min(low + extra, max_width), min(high + extra, max_width)


def _cell_lines(cell: Cell, width: int) -> list[str]:
    label, (top, right, bottom, left) = cell
    inner = width - left - right
    body = []
    if inner >= 1:
        block = min(len(label), inner)
        excess = inner - block
        for line in _wrap(label, block):
            text = " " * (excess // 2) + line + " " * (excess - excess // 2)
            body.append(" " * left + text + " " * right)
    return [" " * width] * top + body + [" " * width] * bottom


def _ratio_reduce(
    total: int, ratios: list[int], maximums: list[int], values: list[int]
) -> list[int]:
    ratios = [r if m else 0 for r, m in zip(ratios, maximums, strict=True)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return values[:]
    out = []
    for ratio, maximum, value in zip(ratios, maximums, values, strict=True):
        if ratio and total_ratio > 0:
            share = min(maximum, round(ratio * total / total_ratio))
            out.append(value - share)
            total -= share
            total_ratio -= ratio
        else:
            out.append(value)
    return out


def _column_widths(rows: list[list[Cell]], max_width: int) -> list[int]:
    # rich's Table._calculate_column_widths (columns may wrap, none expands).
    ncols = len(rows[0])

    def column_max(j: int, limit: int) -> int:
        if limit < 1:
            return 0
        return min(max(_measure(r[j], limit)[1] for r in rows), limit)

    widths = [column_max(j, max_width) or 1 for j in range(ncols)]
    if sum(widths) > max_width:
        excess = sum(widths) - max_width
        while sum(widths) and excess > 0:
            top = max(widths)
            second = max((w for w in widths if w != top), default=0)
            if not top - second:
                break
            ratios = [1 if w == top else 0 for w in widths]
            widths = _ratio_reduce(excess, ratios, [min(excess, top - second)] * ncols, widths)
            excess = sum(widths) - max_width
        if sum(widths) > max_width:
            widths = _ratio_reduce(sum(widths) - max_width, [1] * ncols, widths, widths)
        widths = [column_max(j, w) for j, w in enumerate(widths)]
    return widths


def _render(rows: list[list[Cell]], console_width: int) -> str:
    # rich's Table(box=SQUARE, show_lines=True, padding=0, pad_edge=False) in a
    # console ``console_width`` cells wide, each cell a Padding of a centered label.
    widths = _column_widths(rows, console_width - 2 - (len(rows[0]) - 1))
    lines = ["┌" + "┬".join("─" * w for w in widths) + "┐"]
    for i, row in enumerate(rows):
        cells = [_cell_lines(cell, w) for cell, w in zip(row, widths, strict=True)]
        height = max(1, *(len(c) for c in cells))
        cells = [c + [" " * w] * (height - len(c)) for c, w in zip(cells, widths, strict=True)]
        lines += ["│" + "│".join(c[k] for c in cells) + "│" for k in range(height)]
        if i < len(rows) - 1:
            lines.append("├" + "┼".join("─" * w for w in widths) + "┤")
    lines.append("└" + "┴".join("─" * w for w in widths) + "┘")
    return "\n".join(lines)


def visualize_sharding(
    shape: Sequence[int],
    sharding: Any,
    *,
    use_color: bool = True,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
    color_map: Any = None,
) -> None:
    """Print the layout of an array of ``shape`` split by ``sharding``, as ``jax.debug`` does.

    Args:
        shape: a 1-D or 2-D shape.
        sharding: a sharding (``devices_indices_map`` and ``device_set``).
        use_color: accepted; the picture is printed without colors (as JAX's
            ``rich`` output to a file or pipe).
        scale: the size of the picture (10 lines per unit of height).
        min_width: the narrowest block.
        max_width: the widest block.
        color_map: accepted and unused (colors are not printed).

    Returns:
        None (the picture goes to standard output).

    Raises:
        ValueError: a shape of another rank.

    Example:
        >>> import tessela as tx
        >>> x = tx.numpy.arange(4.0)
        >>> visualize_sharding(x.shape, x.sharding)
        ┌───────┐
        │ CPU 0 │
        └───────┘
    """
    del use_color, color_map
    if len(shape) not in (1, 2):
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    base_height = int(10 * scale)
    aspect_ratio = (shape[1] if len(shape) == 2 else 1) / shape[0]
    base_width = int(base_height * aspect_ratio)
    kind = str(next(iter(sharding.device_set)).platform).upper()
    ids, heights, widths = _grid(shape, sharding)
    nrows = max(r for r, _ in ids) + 1
    ncols = max(c for _, c in ids) + 1
    rows = []
    for i in range(nrows):
        row = []
        for j in range(ncols):
            label = f"{kind} " + ",".join(str(d) for d in sorted(ids[i, j]))
            width = int(widths[i, j] * base_width * 2.5)
            frac = heights[i, j]
            height = 1 if frac is None else int(frac * base_height)
            width = min(max(width, min_width), max_width)
            left, extra = divmod(width - len(label) - 2, 2)
            top, extra_v = divmod(height - 2, 2)
            padding = (max(top, 0), max(left + extra, 0), max(top + extra_v, 0), max(left, 0))
            row.append((label, padding))
        rows.append(row)
    sys.stdout.write(_render(rows, max_width) + "\n")


def _sharding_of(x: Any) -> Any:
    if isinstance(x, Tracer):
        aval = get_aval(x)
        mesh = getattr(getattr(aval, "sharding", None), "mesh", None)
        if mesh is not None and not getattr(mesh, "empty", True):
            raise NotImplementedError(
                "inspect_array_sharding of a value sharded over a mesh inside jit is not "
                "provided by Tessela; call it on the array outside jit."
            )
        return tessela_lowering.SingleDeviceSharding(tessela_lowering.get_default_device())
    return x.sharding


def inspect_array_sharding(value: Any, *, callback: Callable[[Any], None]) -> None:
    """Call ``callback`` with the sharding of each array of the pytree ``value``.

    Args:
        value: a pytree of arrays (or tracers, inside ``jit``).
        callback: called once per array with its sharding; inside ``jit`` while
            tracing (JAX calls it while compiling), with the device the
            program runs on.

    Returns:
        None.

    Raises:
        NotImplementedError: a tracer sharded over a mesh inside ``jit``.

    Example:
        >>> import tessela as tx
        >>> inspect_array_sharding(tx.numpy.ones(2), callback=print)
        SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=unpinned_host)
    """
    for leaf in tree_leaves(value):
        callback(_sharding_of(leaf))


def visualize_array_sharding(arr: ArrayLike, **kwargs: Any) -> None:
    """Print the layout of ``arr`` over its devices (:func:`visualize_sharding` of its sharding).

    Args:
        arr: a 1-D or 2-D array (or tracer, inside ``jit``).
        **kwargs: options of :func:`visualize_sharding`.

    Returns:
        None.

    Example:
        >>> import tessela as tx
        >>> visualize_array_sharding(tx.numpy.ones(3))
        ┌───────┐
        │ CPU 0 │
        └───────┘
    """
    shape = tuple(get_aval(arr).shape)
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(shape, s, **kwargs))
