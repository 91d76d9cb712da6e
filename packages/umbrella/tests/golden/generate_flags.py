"""Write ``flags_golden.json``: the reference's results of ``flags_cases.py``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_flags.py --out tests/golden
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import jax

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import flags_cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    result = flags_cases.run(jax)
    (out / "flags_golden.json").write_text(json.dumps(result, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
