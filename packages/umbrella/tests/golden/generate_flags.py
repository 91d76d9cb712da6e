"""Write ``flags_golden.json``: the reference's results of ``flags_cases.py``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_flags.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import flags_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    result = flags_cases.run(jax)
    _cli.save_json(out, "flags_golden.json", result, indent=0)


if __name__ == "__main__":
    main()
