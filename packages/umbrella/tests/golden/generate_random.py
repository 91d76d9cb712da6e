"""Write the reference outputs of ``key_cases.py`` and ``random_sharding_cases.py`` to
``keys_golden.json`` and ``random_sharding_golden.json``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_random.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import key_cases  # noqa: E402
import random_sharding_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    for cases, name in ((key_cases, "keys_golden.json"),
                        (random_sharding_cases, "random_sharding_golden.json")):  # fmt: skip
        results = cases.run(jax)
        results["jax_version"] = jax.__version__
        _cli.save_json(out, name, results)
        print(f"wrote {len(results)} cases to {out / name}")


if __name__ == "__main__":
    main()
