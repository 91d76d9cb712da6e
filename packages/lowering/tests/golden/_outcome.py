"""What a golden script prints for a call that may raise (shared by the scripts here)."""

from __future__ import annotations

from typing import Any


def error(thunk: Any) -> str:
    """``"<ErrorClass>: <message>"`` for what ``thunk()`` raises, or ``"no error"``."""
    try:
        thunk()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return "no error"
