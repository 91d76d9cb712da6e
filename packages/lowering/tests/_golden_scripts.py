"""Running and loading the scripts of ``golden/`` from the tests.

The scripts print, with JAX 0.10.2 or with Tessela, what ``golden/*.txt``
records; the tests run them in a fresh process (some with several CPU
devices) or import them as modules.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys
from types import ModuleType

GOLDEN = pathlib.Path(__file__).parent / "golden"
ERROR_LINE = re.compile(r"^[A-Za-z]*Error: ")


def load(filename: str, name: str) -> ModuleType:
    """Import ``golden/<filename>`` as a module called ``name``."""
    spec = importlib.util.spec_from_file_location(name, GOLDEN / filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(
    script: str,
    *,
    devices: int | None = None,
    env: dict[str, str] | None = None,
    check: bool = False,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``golden/<script>.py tessela`` in a fresh Python and capture its text.

    ``env`` replaces the environment (default: this process's); ``devices``
    sets ``TESSELA_NUM_CPU_DEVICES`` in it.
    """
    full = dict(os.environ if env is None else env)
    if devices is not None:
        full["TESSELA_NUM_CPU_DEVICES"] = str(devices)
    return subprocess.run(
        [sys.executable, str(GOLDEN / f"{script}.py"), "tessela"],
        capture_output=True, text=True, env=full, check=check, timeout=timeout,
    )  # fmt: skip


def same_line(got: str, want: str) -> bool:
    """Equal lines, or JAX's error message possibly followed by how to fix the input."""
    return got == want or (ERROR_LINE.match(want) is not None and got.startswith(want))


def assert_lines_match(got: list[str], script: str) -> None:
    """``got`` has as many lines as ``golden/<script>.txt`` and each is the same."""
    want = (GOLDEN / f"{script}.txt").read_text().splitlines()
    assert len(got) == len(want), "\n".join(got)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert same_line(g, w), f"line {i + 1}:\n got: {g}\nwant: {w}"
