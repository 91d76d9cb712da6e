"""Benchmark: tessela_pytree against optree and jax.tree_util (C++), side by side.

Shapes: a small mixed tree, a 24-leaf params dict of dicts, and trees of 10,
1k and 100k leaves in five shapes (dict-heavy, list-heavy, namedtuples,
custom nodes, dataclasses). Operations: flatten, unflatten (of a reused
treedef), map, flatten_with_path, leaves and structure.

The three implementations run in this one process (none of them needs
jaxlib's runtime state; nothing here imports tessela_lowering), row by row
and alternating repeat by repeat, so that all three see the same machine
load; each time is the best repeat, in process CPU time (``time.process_time``:
other processes on a shared machine do not inflate it). A column is ``n/a``
where optree or JAX is not installed.

Usage: python benchmarks/bench_pytree.py [--quick] [--repeat N] [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import time
import timeit
from collections.abc import Callable
from typing import Any

import tessela_pytree

Point = collections.namedtuple("Point", "x y")


class Box:
    def __init__(self, children: list[Any]) -> None:
        self.children = children


@dataclasses.dataclass
class Param:
    w: Any
    b: Any
    name: str = dataclasses.field(default="p", metadata={"static": True})


SIZES = (10, 1_000, 100_000)
SHAPES = ("dict", "list", "namedtuple", "custom", "dataclass")
OPS = ("flatten", "unflatten", "map", "flatten_with_path", "leaves", "structure")


def _nest(n: int, group: int, make: Callable[[list[Any]], Any]) -> Any:
    """Groups n leaves into nodes of ``group`` children, level by level."""
    level: list[Any] = [float(i) for i in range(n)]
    while len(level) > 1:
        level = [make(level[i : i + group]) for i in range(0, len(level), group)]
    return level[0]


def build(shape: str, n: int) -> Any:
    if shape == "small":
        return {"a": 1.0, "b": (2.0, 3.0), "c": [4.0, None, Point(5.0, 6.0)]}
    if shape == "params":
        return {
            f"layer{i}": {"w": float(i), "b": float(i), "scale": 1.0, "shift": 0.0}
            for i in range(6)
        }
    if shape == "dict":
        return _nest(n, 10, lambda xs: {f"k{i}": x for i, x in enumerate(xs)})
    if shape == "list":
        return _nest(n, 10, list)
    if shape == "namedtuple":
        return [Point(float(i), float(i + 1)) for i in range(0, n, 2)]
    if shape == "custom":
        return _nest(n, 4, Box)
    return [Param(float(i), float(i + 1)) for i in range(0, n, 2)]


def _ident(x: Any) -> Any:
    return x


class Impl:
    """One implementation's six operations, with the benchmark's types registered."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "optree":
            import optree

            ns = "tessela-bench"
            optree.register_pytree_node(
                Box, lambda b: (b.children, None, None), lambda _, c: Box(list(c)), namespace=ns
            )
            optree.register_pytree_node(
                Param,
                lambda p: ((p.w, p.b), p.name, ("w", "b")),
                lambda name, c: Param(*c, name=name),
                namespace=ns,
            )
            self.flatten = lambda t: optree.tree_flatten(t, namespace=ns)
            self.map = lambda t: optree.tree_map(_ident, t, namespace=ns)
            self.with_path = lambda t: optree.tree_flatten_with_path(t, namespace=ns)
            self.leaves = lambda t: optree.tree_leaves(t, namespace=ns)
            self.structure = lambda t: optree.tree_structure(t, namespace=ns)
            return
        if name == "jax":
            from jax import tree_util as tu
        else:
            tu = tessela_pytree  # type: ignore[assignment]
        tu.register_pytree_node(Box, lambda b: (b.children, None), lambda _, c: Box(list(c)))
        tu.register_dataclass(Param)
        self.flatten = tu.tree_flatten
        self.map = lambda t: tu.tree_map(_ident, t)
        self.with_path = tu.tree_flatten_with_path
        self.leaves = tu.tree_leaves
        self.structure = tu.tree_structure

    def op(self, op: str, tree: Any) -> Callable[[], Any]:
        if op == "unflatten":
            leaves, treedef = self.flatten(tree)
            return lambda: treedef.unflatten(leaves)
        fn = {
            "flatten": self.flatten,
            "map": self.map,
            "flatten_with_path": self.with_path,
            "leaves": self.leaves,
            "structure": self.structure,
        }[op]
        return lambda: fn(tree)


def _impls() -> list[Impl | None]:
    out: list[Impl | None] = [Impl("tessela")]
    for name in ("optree", "jax"):
        try:
            out.append(Impl(name))
        except ImportError:
            out.append(None)
    return out


def _row_times(impls: list[Impl | None], op: str, tree: Any, n: int, repeat: int) -> list[float]:
    """Best time per call (us) of each implementation, alternating repeats."""
    number = max(1, 20_000 // n)
    fns = [None if impl is None else impl.op(op, tree) for impl in impls]
    best = [float("inf")] * len(fns)
    for fn in fns:
        if fn is not None:
            fn()  # warm up (first unflatten, caches)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            if fn is not None:
                t = timeit.timeit(fn, number=number, timer=time.process_time) / number * 1e6
                best[i] = min(best[i], t)
    return best


def _fmt(us: float) -> str:
    if us == float("inf"):
        return "n/a"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.2f} us"


def _ratio(a: float, b: float) -> str:
    return "n/a" if b == float("inf") else f"{a / b:.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 100k-leaf trees")
    parser.add_argument("--repeat", type=int, default=5, help="repeats per row (best kept)")
    parser.add_argument("--only", default="", help="run rows whose 'shape/size/op' has this")
    args = parser.parse_args()
    impls = _impls()
    rows: list[tuple[str, int]] = [("small", 6), ("params", 24)]
    sizes = SIZES[:-1] if args.quick else SIZES
    rows += [(shape, n) for shape in SHAPES for n in sizes]
    header = (
        f"| {'shape':<10} | {'leaves':>7} | {'op':<17} | {'tessela':>10} | {'optree':>10} "
        f"| {'jax':>10} | {'tessela/optree':>14} | {'tessela/jax':>11} |"
    )
    print(header)
    print("|" + "|".join("-" * len(c) for c in header.split("|")[1:-1]) + "|")
    for shape, n in rows:
        tree = build(shape, n)
        for op in OPS:
            if args.only not in f"{shape}/{n}/{op}":
                continue
            repeat = args.repeat if n <= 1000 else max(1, args.repeat // 2)
            t, o, j = _row_times(impls, op, tree, n, repeat)
            print(
                f"| {shape:<10} | {n:>7} | {op:<17} | {_fmt(t):>10} | {_fmt(o):>10} "
                f"| {_fmt(j):>10} | {_ratio(t, o):>14} | {_ratio(t, j):>11} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
