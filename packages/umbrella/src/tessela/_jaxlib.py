"""The umbrella's uses of jaxlib, in one place: the profiler.

Everything else reaches jaxlib through ``tessela_lowering``. ``jaxlib._profiler``
holds the profiler session, trace annotations and the profiler server;
``jaxlib._profile_data`` the readers of a written trace (``ProfileData``).
jaxlib ships no type information for them.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["jaxlib_version", "profile_data", "profiler"]

profiler: Any = importlib.import_module("jaxlib._profiler")
profile_data: Any = importlib.import_module("jaxlib._profile_data")
jaxlib_version: str = str(importlib.import_module("jaxlib.version").__version__)
