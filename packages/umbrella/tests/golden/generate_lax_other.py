"""Write the reference outputs of ``lax_other_cases.py`` to ``lax_other_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_lax_other.py --out tests/golden
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import jax
import numpy as np

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import lax_other_cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "lax_other_golden.npz", **lax_other_cases.run(jax))


if __name__ == "__main__":
    main()
