"""Run a program written for JAX on Tessela, unchanged.

Usage::

    python -m tessela.as_jax script.py ARGS...
    python -m tessela.as_jax -m module ARGS...     # e.g. -m pytest --pyargs optax
    python -m tessela.as_jax -c "import jax; ..."  ARGS...

installs the ``jax`` alias (:func:`tessela.install_jax_alias`) and then runs
the script (or module) as ``__main__`` with ``sys.argv`` set to what follows,
as ``python script.py ARGS`` would.
"""

from __future__ import annotations

import os
import runpy
import sys
from collections.abc import Sequence

from ._jax_alias import install_jax_alias

__all__ = ["main"]

_USAGE = 'usage: python -m tessela.as_jax (script.py | -m module | -c "code") [args ...]'


def main(argv: Sequence[str] | None = None) -> int:
    """Install the ``jax`` alias and run a script or a module as ``__main__``.

    Args:
        argv: the command line after ``python -m tessela.as_jax``
            (``sys.argv[1:]`` when None): ``script.py ARGS``, ``-m module ARGS``
            or ``-c code ARGS``.

    Returns:
        The exit status: 0, or 2 for a bad command line. A ``SystemExit``
        raised by the program propagates.

    Example:
        >>> main([])
        2
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or args in (["-m"], ["-c"]):
        print(_USAGE, file=sys.stderr)
        return 2
    install_jax_alias()
    if args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
    elif args[0] == "-m":
        module, rest = args[1], args[2:]
        sys.argv = [module, *rest]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        script, rest = args[0], args[1:]
        sys.argv = [script, *rest]
        # As `python script.py`: the script's folder comes first on sys.path.
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
