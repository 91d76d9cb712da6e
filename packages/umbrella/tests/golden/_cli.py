"""The command line and the writers shared by the ``generate_*.py`` scripts.

Each script parses ``--out`` (the folder the golden files go to, by default
this one) with :func:`out_dir` and writes its cases with :func:`save_npz` or
:func:`save_json`. Nothing here imports the reference implementation.
"""

from __future__ import annotations

import argparse
import json
import pathlib
from typing import Any

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def out_dir() -> pathlib.Path:
    """The ``--out`` folder of the command line, created if missing."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(HERE))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def save_npz(out: pathlib.Path, name: str, arrays: dict[str, Any]) -> None:
    """Write ``arrays`` to ``out / name`` (compressed ``.npz``) and say how many."""
    np.savez_compressed(out / name, **arrays)
    print(f"wrote {len(arrays)} arrays to {out / name}")


def save_json(out: pathlib.Path, name: str, data: Any, indent: int = 1) -> None:
    """Write ``data`` to ``out / name`` as sorted JSON ending in a newline."""
    (out / name).write_text(json.dumps(data, indent=indent, sort_keys=True) + "\n")
