"""Benchmark: tessela_pytree against jax.tree_util (C++) and optree.

Trees of 10, 1k and 100k leaves in five shapes (dict-heavy, list-heavy,
namedtuple, custom nodes, dataclasses); operations flatten, unflatten, map
and flatten_with_path. tessela_pytree and optree run in this process;
jax.tree_util runs in a subprocess (``sys.executable``), never imported here.

Usage: python benchmarks/bench_pytree.py [--quick]
"""

from __future__ import annotations

import collections
import dataclasses
import json
import subprocess
import sys
import timeit
from collections.abc import Callable
from typing import Any

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
OPS = ("flatten", "unflatten", "map", "flatten_with_path")


def _nest(n: int, group: int, make: Callable[[list[Any]], Any]) -> Any:
    """Groups n leaves into nodes of ``group`` children, level by level."""
    level: list[Any] = [float(i) for i in range(n)]
    while len(level) > 1:
        level = [make(level[i : i + group]) for i in range(0, len(level), group)]
    return level[0]


def build(shape: str, n: int) -> Any:
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


def _time(fn: Callable[[], Any], n_leaves: int) -> float:
    number = max(1, 20_000 // n_leaves)
    repeat = 5 if n_leaves <= 1000 else 3
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def measure(impl: str) -> dict[str, float]:
    if impl == "jax":
        from jax import tree_util as tu
    else:
        import tessela_pytree as tu  # type: ignore[no-redef]
    tu.register_pytree_node(Box, lambda b: (b.children, None), lambda _, c: Box(list(c)))
    tu.register_dataclass(Param)
    out: dict[str, float] = {}
    for shape in SHAPES:
        for n in SIZES:
            tree = build(shape, n)
            leaves, treedef = tu.tree_flatten(tree)
            ops = {
                "flatten": lambda t=tree: tu.tree_flatten(t),
                "unflatten": lambda td=treedef, lv=leaves: td.unflatten(lv),
                "map": lambda t=tree: tu.tree_map(_ident, t),
                "flatten_with_path": lambda t=tree: tu.tree_flatten_with_path(t),
            }
            for op, fn in ops.items():
                out[f"{shape}/{n}/{op}"] = _time(fn, n)
    return out


def measure_optree() -> dict[str, float]:
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
    out: dict[str, float] = {}
    for shape in SHAPES:
        for n in SIZES:
            tree = build(shape, n)
            leaves, treedef = optree.tree_flatten(tree, namespace=ns)
            ops = {
                "flatten": lambda t=tree: optree.tree_flatten(t, namespace=ns),
                "unflatten": lambda td=treedef, lv=leaves: td.unflatten(lv),
                "map": lambda t=tree: optree.tree_map(_ident, t, namespace=ns),
                "flatten_with_path": lambda t=tree: optree.tree_flatten_with_path(t, namespace=ns),
            }
            for op, fn in ops.items():
                out[f"{shape}/{n}/{op}"] = _time(fn, n)
    return out


def _jax_subprocess() -> dict[str, float] | None:
    proc = subprocess.run(
        [sys.executable, __file__, "--impl", "jax"], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        print(f"(jax.tree_util unavailable: {proc.stderr.strip().splitlines()[-1:]})")
        return None
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _fmt(us: float | None) -> str:
    if us is None:
        return "n/a"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.2f} us"


def main() -> None:
    if "--impl" in sys.argv:
        print(json.dumps(measure(sys.argv[sys.argv.index("--impl") + 1])))
        return
    ours = measure("tessela")
    jax_times = _jax_subprocess()
    try:
        opt: dict[str, float] | None = measure_optree()
    except ImportError:
        opt = None
    header = (
        f"| {'shape':<10} | {'leaves':>7} | {'op':<17} | {'tessela':>10} | {'jax':>10} "
        f"| {'optree':>10} | {'tessela/jax':>11} | {'tessela/optree':>14} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for key, t in ours.items():
        shape, n, op = key.split("/")
        j = jax_times.get(key) if jax_times else None
        o = opt.get(key) if opt else None
        rj = f"{t / j:.2f}x" if j else "n/a"
        ro = f"{t / o:.2f}x" if o else "n/a"
        print(
            f"| {shape:<10} | {int(n):>7} | {op:<17} | {_fmt(t):>10} | {_fmt(j):>10} "
            f"| {_fmt(o):>10} | {rj:>11} | {ro:>14} |"
        )


if __name__ == "__main__":
    main()
