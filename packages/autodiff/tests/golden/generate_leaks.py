"""Write ``leak_values.json``: every program of ``leak_cases`` under every transformation.

Each entry is what the reference gives with its tracer-leak checker on:
the values, or the class of the error it raises for programs it refuses
(reverse mode through a ``while_loop`` carry, forward mode through a
``custom_vjp``). Where the reference's own checker reports a leak, the
entry holds the values it computes without the checker and
``"reference_leaks": true``.

Run under the reference implementation only: ``python generate_leaks.py --out DIR``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import types

import jax
import jax.custom_derivatives
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import leak_cases


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    api = types.SimpleNamespace(
        lax=lax, jit=jax.jit, vmap=jax.vmap, checkpoint=jax.checkpoint,
        policies=jax.checkpoint_policies, custom_jvp=jax.custom_jvp, custom_vjp=jax.custom_vjp,
        linear_call=jax.custom_derivatives.linear_call,
        grad=jax.grad, jvp=jax.jvp, vjp=jax.vjp, linearize=jax.linearize,
    )  # fmt: skip
    data: dict[str, dict[str, object]] = {}
    for program, transform in leak_cases.cases():
        with jax.checking_leaks():
            entry = leak_cases.run(api, program, transform)
        if str(entry.get("message", "")).startswith("Leaked trace"):
            # The reference itself leaks here (linear_call's transpose keeps the
            # linear function's constants in a closure): keep its values.
            entry = {**leak_cases.run(api, program, transform), "reference_leaks": True}
        entry.pop("message", None)
        data[f"{program}|{transform}"] = entry
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    (out / "leak_values.json").write_text(text)


if __name__ == "__main__":
    main()
