"""Print Tessela's coverage of JAX 0.10.2's public names, per module.

Reads ``jax_api.json`` (written by ``list_jax_api.py`` under JAX) and looks
each name up through Tessela's ``jax`` alias, so ``jax.numpy.shape`` counts
when ``import jax.numpy`` under the alias has ``shape``. Run with Tessela
installed (never with JAX)::

    python packages/umbrella/tools/api_coverage.py [--missing] [--markdown]
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
from typing import Any

import tessela

tessela.install_jax_alias()

import jax  # noqa: E402  (Tessela's, through the alias)
import jax.numpy as jnp  # noqa: E402


def _lookup(module_name: str) -> Any:
    if module_name == "jax.Array":
        return jnp.ones(3)
    if module_name == "tracer":
        seen: list[Any] = []
        jax.jit(lambda x: seen.append(x) or x)(jnp.ones(3))
        return seen[0]
    try:
        return importlib.import_module(module_name)
    except ImportError:
        return None


def coverage(api: dict[str, list[str]]) -> list[tuple[str, int, list[str]]]:
    """Per module: the number of JAX names and the ones Tessela lacks."""
    rows = []
    for module_name, names in api.items():
        obj = _lookup(module_name)
        missing = [n for n in names if obj is None or not hasattr(obj, n)]
        rows.append((module_name, len(names), missing))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--missing", action="store_true", help="list the missing names")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    data = json.loads(pathlib.Path(__file__).resolve().with_name("jax_api.json").read_text())
    rows = coverage(data["modules"])
    total = sum(n for _, n, _ in rows)
    have = total - sum(len(m) for _, _, m in rows)
    if args.markdown:
        print("| module | JAX names | Tessela has | coverage |\n|---|---|---|---|")
    for module_name, n, missing in rows:
        pct = 100.0 * (n - len(missing)) / n if n else 100.0
        if args.markdown:
            print(f"| `{module_name}` | {n} | {n - len(missing)} | {pct:.0f}% |")
        else:
            print(f"{module_name:38s} {n - len(missing):4d}/{n:<4d} {pct:5.1f}%")
        if args.missing and missing:
            print("    missing: " + ", ".join(missing))
    line = f"all modules: {have}/{total} ({100.0 * have / total:.1f}%) of JAX {data['jax_version']}"
    print(
        f"| **all** | {total} | {have} | {100.0 * have / total:.1f}% |" if args.markdown else line
    )


if __name__ == "__main__":
    main()
