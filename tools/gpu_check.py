"""Run the umbrella on the default backend and check its values against NumPy.

On a machine with jaxlib's CUDA plugin the default backend is the GPU: every
check below runs there and compares with NumPy on the host (or with the same
computation on the CPU backend, for PRNG bits, which must be identical). On a
machine without one it runs on the CPU, which is how CI-less hosts test the
script itself. Each check prints ``PASS`` or ``FAIL`` with the error; the exit
status is the number of failures.

Usage: ``python tools/gpu_check.py`` with the packages' ``src`` folders on
``PYTHONPATH`` (or the umbrella installed).
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np
import tessela as tn
import tessela.numpy as tnp
from tessela import lax
from tessela.sharding import NamedSharding, PartitionSpec

RESULTS: list[tuple[str, bool, str]] = []


def check(name: str) -> Callable[[Callable[[], str | None]], None]:
    """Run the decorated function at once, recording PASS/FAIL and its note."""

    def run(fn: Callable[[], str | None]) -> None:
        start = time.perf_counter()
        try:
            note = fn() or ""
            ok = True
        except Exception as err:  # a failed check is reported, the others still run
            note = f"{type(err).__name__}: {err}"[:400]
            traceback.print_exc(limit=3)
            ok = False
        took = time.perf_counter() - start
        RESULTS.append((name, ok, note))
        print(f"{'PASS' if ok else 'FAIL'} {name} ({took:.2f} s) {note}", flush=True)

    return run


rng = np.random.default_rng(0)
A = rng.standard_normal((256, 256)).astype(np.float32)
B = rng.standard_normal((256, 128)).astype(np.float32)
SPD = (A @ A.T / 256 + np.eye(256)).astype(np.float32)
close = np.testing.assert_allclose


@check("devices")
def _devices() -> str:
    devices = tn.devices()
    assert devices, "no device"
    x = tnp.ones(3)
    assert next(iter(x.devices())) == devices[0]
    return f"{tn.default_backend()}: {devices}"


@check("elementwise and reductions")
def _elementwise() -> None:
    x = rng.standard_normal(1000).astype(np.float32)
    close(np.asarray(tnp.sum(tnp.sin(x) * tnp.exp(-x * x))), np.sum(np.sin(x) * np.exp(-x * x)),
          rtol=1e-4)  # fmt: skip
    close(np.asarray(tnp.cumsum(x)), np.cumsum(x), rtol=1e-3, atol=1e-3)
    close(np.asarray(tnp.max(x)), x.max())


@check("jit matmul float32 (highest precision) and bfloat16")
def _matmul() -> None:
    f = tn.jit(lambda a, b: tnp.matmul(a, b, precision=lax.Precision.HIGHEST))
    close(np.asarray(f(A, B)), A @ B, rtol=1e-4, atol=1e-4)
    out = tn.jit(lambda a, b: a @ b)(A.astype(tnp.bfloat16), B.astype(tnp.bfloat16))
    assert out.dtype == tnp.bfloat16
    close(np.asarray(out, np.float32), A @ B, rtol=5e-2, atol=5e-1)


def _mlp_loss(params: Any, x: Any, y: Any) -> Any:
    h = tnp.tanh(x @ params["w1"] + params["b1"])
    return tnp.mean((h @ params["w2"] - y) ** 2)


@check("grad of an MLP against the CPU backend, vmap against a loop")
def _grad_vmap() -> None:
    params = {"w1": A[:, :32] / 16, "b1": np.zeros(32, np.float32), "w2": B[:32, :4] / 8}
    x, y = A[:64], B[:64, :4]
    # Full float32 products on both backends (a GPU's default may use TF32).
    with tn.default_matmul_precision("highest"):
        grads = tn.jit(tn.grad(_mlp_loss))(params, x, y)
        with tn.default_device(tn.devices("cpu")[0]):
            expected = tn.jit(tn.grad(_mlp_loss))(params, x, y)
    for k in params:
        close(np.asarray(grads[k]), np.asarray(expected[k]), rtol=2e-3, atol=1e-5)
    per_row = tn.vmap(lambda r: tnp.dot(r, B[:, 0]))(A[:8])
    close(np.asarray(per_row), np.stack([r @ B[:, 0] for r in A[:8]]), rtol=1e-3, atol=1e-3)


@check("Threefry bits identical to the CPU backend")
def _random() -> str:
    key = tn.random.key(42)
    here = np.asarray(tn.random.bits(key, (4096,)))
    normal = np.asarray(tn.random.normal(tn.random.fold_in(key, 3), (1000,)))
    cpu = tn.devices("cpu")[0]
    with tn.default_device(cpu):
        there = np.asarray(tn.random.bits(tn.random.key(42), (4096,)))
        normal_cpu = np.asarray(tn.random.normal(tn.random.fold_in(tn.random.key(42), 3), (1000,)))
    np.testing.assert_array_equal(here, there)
    close(normal, normal_cpu, rtol=1e-5, atol=1e-6)
    return f"first words {here[:2]}"


@check("scan, while_loop, cond")
def _control() -> None:
    def body(carry: Any, x: Any) -> Any:
        return carry * 0.9 + x, carry

    xs = rng.standard_normal(50).astype(np.float32)
    final, ys = tn.jit(lambda c, xs: lax.scan(body, c, xs))(np.float32(1), xs)
    c, expected = np.float32(1), []
    for v in xs:
        expected.append(c)
        c = np.float32(c * 0.9 + v)
    close(np.asarray(ys), np.array(expected), rtol=1e-4, atol=1e-5)
    close(float(final), c, rtol=1e-4)
    n = tn.jit(lambda k: lax.while_loop(lambda s: s[0] < k, lambda s: (s[0] + 1, s[1] * 2), (0, 1)))
    assert int(n(10)[1]) == 1024
    assert float(tn.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(False)) == 2.0


@check("linalg: cholesky, solve, qr, svd, eigh, inv")
def _linalg() -> None:
    chol = np.asarray(tnp.linalg.cholesky(SPD))
    close(chol @ chol.T, SPD, rtol=1e-3, atol=1e-3)
    close(np.asarray(tnp.linalg.solve(SPD, B)), np.linalg.solve(SPD, B), rtol=1e-3, atol=1e-3)
    q, r = (np.asarray(m) for m in tnp.linalg.qr(A))
    close(q @ r, A, rtol=1e-3, atol=1e-3)
    s = np.asarray(tnp.linalg.svd(A, compute_uv=False))
    close(s, np.linalg.svd(A, compute_uv=False), rtol=1e-3, atol=1e-3)
    w = np.asarray(tnp.linalg.eigh(SPD)[0])
    close(w, np.linalg.eigvalsh(SPD), rtol=1e-3, atol=1e-3)
    close(np.asarray(tnp.linalg.inv(SPD)) @ SPD, np.eye(256), atol=1e-3)


@check("fft, sort, top_k, convolution")
def _misc() -> None:
    x = rng.standard_normal(128).astype(np.float32)
    close(np.asarray(tnp.fft.rfft(x)), np.fft.rfft(x), rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(np.asarray(tnp.sort(x)), np.sort(x))
    values, _ = lax.top_k(x, 5)
    np.testing.assert_array_equal(np.asarray(values), np.sort(x)[::-1][:5])
    img = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    kernel = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    out = np.asarray(lax.conv(img, kernel, (1, 1), "VALID"))
    expected = np.zeros((1, 4, 14, 14), np.float32)
    for o in range(4):
        for i in range(14):
            for j in range(14):
                expected[0, o, i, j] = np.sum(img[0, :, i : i + 3, j : j + 3] * kernel[o])
    close(out, expected, rtol=1e-3, atol=1e-3)


@check("donation, NumPy arguments on the fast path, committed placement")
def _dispatch() -> None:
    step = tn.jit(lambda s, g: s - 0.1 * g, donate_argnums=0)
    state = tnp.ones(1000)
    for _ in range(5):
        state = step(state, np.ones(1000, np.float32))
    close(np.asarray(state), np.full(1000, 0.5, np.float32), rtol=1e-5)
    f = tn.jit(lambda a, b: a * b + 1)
    for k in range(5):
        a = np.full(8, k, np.float32)
        close(np.asarray(f(a, a)), a * a + 1)
    x = tn.device_put(np.arange(4.0), tn.devices()[0])
    assert x.committed and float(tn.jit(tnp.sum)(x)) == 6.0


@check("NamedSharding, shard_map psum and pmap over the local devices")
def _sharding() -> str:
    n = len(tn.devices())
    mesh = tn.make_mesh((n,), ("x",))
    x = tn.device_put(np.arange(8.0 * n, dtype=np.float32), NamedSharding(mesh, PartitionSpec("x")))
    total = tn.jit(tn.shard_map(lambda b: lax.psum(tnp.sum(b), "x"), mesh=mesh,
                                in_specs=PartitionSpec("x"), out_specs=PartitionSpec()))(x)  # fmt: skip
    assert float(total) == float(np.arange(8.0 * n).sum())
    out = tn.pmap(lambda v: v * 2)(np.ones((n, 3), np.float32))
    close(np.asarray(out), np.full((n, 3), 2.0, np.float32))
    return f"{n} device(s)"


@check("host callbacks: pure_callback and debug.callback inside jit")
def _callbacks() -> None:
    seen: list[float] = []

    def fn(v: Any) -> Any:
        y = tn.pure_callback(lambda a: np.sin(a), tn.ShapeDtypeStruct(v.shape, v.dtype), v)
        tn.debug.callback(lambda a: seen.append(float(a)), tnp.sum(y))
        return y * 2

    x = np.linspace(0, 1, 5, dtype=np.float32)
    out = tn.jit(fn)(x)
    out.block_until_ready()
    tn.effects_barrier()
    close(np.asarray(out), 2 * np.sin(x), rtol=1e-5)
    close(seen[0], np.sin(x).sum(), rtol=1e-5)


@check("jit dispatch time on this backend (us per call, f(a, b) and f(np_a, np_b))")
def _timing() -> str:
    f = tn.jit(lambda a, b: a + b)
    a = tnp.ones(3)
    host = np.ones(3, np.float32)
    times = []
    for args in ((a, a), (host, host)):
        f(*args).block_until_ready()
        start = time.perf_counter()
        for _ in range(2000):
            out = f(*args)
        out.block_until_ready()
        times.append((time.perf_counter() - start) / 2000 * 1e6)
    return f"{times[0]:.1f} / {times[1]:.1f}"


failures = sum(not ok for _, ok, _ in RESULTS)
print(f"{len(RESULTS) - failures}/{len(RESULTS)} checks passed on {tn.default_backend()}")
sys.exit(failures)
