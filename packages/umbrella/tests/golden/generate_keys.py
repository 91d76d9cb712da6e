"""Write the reference outputs of ``key_cases.py`` to ``keys_golden.json``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_keys.py --out tests/golden
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import jax

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import key_cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    cases = key_cases.run(jax)
    cases["jax_version"] = jax.__version__
    path = out / "keys_golden.json"
    path.write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
