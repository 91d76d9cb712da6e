"""Write the reference outputs of ``api_extra_cases.py``.

``api_extra_golden.npz`` holds the array cases; ``api_extra_golden.json`` the
strings and sizes of concrete arrays, ``random.key_dtype``, and the text of
``debug.visualize_sharding`` for layouts over 8 devices (with each layout's
``devices_indices_map``, so that the test can rebuild the sharding), and a
scripted ``debug.breakpoint`` session. The
reference draws the pictures with ``rich``, which must be installed.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_api_extra.py --out tests/golden
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import sys
from types import SimpleNamespace

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax
import jax.numpy as jnp
import jax.scipy.linalg
import jax.scipy.signal
import jax.scipy.special
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import api_extra_cases  # noqa: E402


def _index(index: tuple[slice, ...]) -> list[list[int | None]]:
    return [[s.start, s.stop] for s in index]


def _mesh(shape: tuple[int, ...], names: tuple[str, ...]) -> Mesh:
    count = int(np.prod(shape))
    return Mesh(np.array(jax.devices()[:count]).reshape(shape), names)


def main() -> None:
    out = _cli.out_dir()
    ns = SimpleNamespace(scipy=jax.scipy, grad=jax.grad, vmap=jax.vmap, jnp=jnp)
    arrays = api_extra_cases.run(ns)
    _cli.save_npz(out, "api_extra_golden.npz", arrays)
    host = api_extra_cases.host_cases(jnp, jax.debug, jax.random)
    layouts = {}
    for name, (shape, sharding, options) in api_extra_cases.sharding_cases(
        _mesh, NamedSharding, PartitionSpec
    ).items():
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            jax.debug.visualize_sharding(shape, sharding, **options)
        index_map = sharding.devices_indices_map(shape)
        layouts[name] = {
            "shape": list(shape),
            "options": options,
            "index_map": [[d.id, _index(i)] for d, i in index_map.items()],
            "text": buffer.getvalue(),
        }
    transcript = api_extra_cases.debugger_transcript(jax.jit, jax.vmap, jnp, jax.debug.breakpoint)
    data = {
        "host": host, "layouts": layouts, "debugger": transcript, "jax_version": jax.__version__,
    }  # fmt: skip
    _cli.save_json(out, "api_extra_golden.json", data)
    print(f"wrote {len(arrays)} arrays, {len(host)} host values and {len(layouts)} layouts")


if __name__ == "__main__":
    main()
