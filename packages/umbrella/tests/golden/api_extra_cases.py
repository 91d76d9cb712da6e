"""Cases of the newer ``jax.scipy`` names, ``Array`` methods and ``jax.debug`` text.

Shared by ``generate_api_extra.py`` (run under the reference implementation)
and ``test_api_extra_golden.py``. :func:`cases` takes a namespace holding the
implementation's ``scipy`` (``special``, ``signal``, ``linalg``), ``grad`` and
``vmap`` and returns arrays keyed ``"<module>|<case>"`` (traceable);
:func:`host_cases` takes ``jnp``, ``debug`` and ``random`` and returns what
only concrete arrays answer (strings and sizes). Inputs come from fixed NumPy
generators.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np

F32 = np.float32


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def run(ns: Any) -> dict[str, np.ndarray]:
    """Every traceable case's output, keyed by name, as host arrays."""
    return {k: np.asarray(v) for k, v in cases(ns).items()}


def cases(ns: Any) -> dict[str, Any]:
    """Every traceable case's output, keyed by name."""
    out: dict[str, Any] = {}
    _special(out, ns.scipy.special, ns.grad, ns.vmap)
    _signal(out, ns.scipy.signal)
    _linalg(out, ns.scipy.linalg)
    _byteswap(out, ns.jnp)
    return out


def sharding_cases(mesh_of: Any, named: Any, spec: Any) -> dict[str, tuple[Any, Any, Any]]:
    """Multi-device layouts: name -> (shape, sharding, visualize options).

    ``mesh_of(shape, names)`` makes a mesh of the first devices, ``named`` is
    ``NamedSharding`` and ``spec`` ``PartitionSpec``.
    """
    m24 = mesh_of((2, 4), ("x", "y"))
    m8 = mesh_of((8,), ("d",))
    return {
        "grid": ((8, 8), named(m24, spec("x", "y")), {}),
        "row_of_8": ((16,), named(m8, spec("d")), {}),
        "flat_axes": ((16,), named(m24, spec(("x", "y"))), {}),
        "rows_replicated": ((8, 4), named(m24, spec("y")), {}),
        "cols_scaled": ((8, 4), named(m24, spec(None, "x")), {"scale": 0.5}),
        "tall": ((32, 6), named(m8, spec("d", None)), {"min_width": 4}),
        "wide": ((3, 40), named(m24, spec(None, "y")), {"max_width": 12}),
        "replicated": ((5, 5), named(m24, spec()), {}),
        "squeezed": ((8, 800), named(m24, spec("x", "y")), {"scale": 0.2}),
        "ellipsis": ((2, 8), named(m24, spec("x", "y")), {"min_width": 4}),
        "many_columns": ((4, 16), named(m8, spec(None, "d")), {}),
    }


def _special(out: dict[str, Any], special: Any, grad: Any, vmap: Any) -> None:
    x = np.concatenate([np.linspace(-12.0, 12.0, 49), [0.0, 1e-3, 0.3, 40.0, 1e5, -3e4, 2e9]])
    x = x.astype(F32)
    s, c = special.fresnel(x)
    out["special|fresnel_s"], out["special|fresnel_c"] = s, c
    out["special|fresnel_f16"] = special.fresnel(x[:10].astype(np.float16))[0]
    out["grad|fresnel"] = vmap(grad(lambda v: special.fresnel(v)[0] + 2 * special.fresnel(v)[1]))(
        x[:20]
    )
    xs = np.concatenate([x, [np.inf, -np.inf]]).astype(F32)
    si, ci = special.sici(xs)
    out["special|sici_si"], out["special|sici_ci"] = si, ci
    out["grad|sici"] = vmap(grad(lambda v: special.sici(v)[0] + special.sici(v)[1]))(
        np.linspace(0.5, 15.0, 12).astype(F32)
    )
    h = np.array([0.0, 0.3, 1.0, 2.5, -1.2, 0.5, 3.0, 0.1, 0.67, 7.0], F32)
    a = np.array([0.5, 1.0, 0.2, 3.0, 0.9, -2.0, 1e-3, 25.0, 1.5, -0.4], F32)
    out["special|owens_t"] = special.owens_t(h, a)
    out["special|owens_t_bcast"] = special.owens_t(h[:, None], a[None, :4])
    out["grad|owens_t_h"] = vmap(grad(special.owens_t))(h, a)
    out["grad|owens_t_a"] = vmap(grad(special.owens_t, argnums=1))(h, a)
    a1 = np.array([0.5, 1.0, 2.0, 0.0, 3.0, -1.5, 1.2, 4.0, 0.7, 2.0], F32)
    b1 = np.array([1.5, 1.0, 3.0, 2.0, 0.0, 2.5, 1.2, 6.5, 1.7, 5.0], F32)
    x1 = np.array([0.3, -2.0, 5.0, 1.0, 1.0, 0.7, 3.0, 150.0, -0.9, 120.0], F32)
    out["special|hyp1f1"] = special.hyp1f1(a1, b1, x1)
    out["grad|hyp1f1"] = vmap(grad(special.hyp1f1, argnums=(0, 1, 2)))(a1[:4], b1[:4] + 0.5,
                                                                        x1[:4])  # fmt: skip
    a2 = np.array([0.5, 1.0, -3.0, 2.0, 1.0, 0.3, 1.5, 0.0, 2.0, 1.0, 0.5, -2.0], F32)
    b2 = np.array([1.5, 1.0, 2.0, 0.5, 2.0, 0.7, 2.5, 1.0, 1.0, 1.0, 0.5, 1.5], F32)
    c2 = np.array([2.0, 2.0, 1.5, 3.0, 4.0, 1.0, 4.0, 1.0, 3.0, 2.0, 1.0, 3.0], F32)
    x2 = np.array([0.3, -0.5, 0.6, 0.95, 0.99, 0.5, 1.0, 0.4, 0.97, 1.5, 0.2, 0.8], F32)
    out["special|hyp2f1"] = special.hyp2f1(a2, b2, c2, x2)
    out["grad|hyp2f1"] = vmap(grad(special.hyp2f1))(a2[:3] + 0.25, b2[:3], c2[:3], x2[:3])
    n = np.array([0, 1, 1, 2, 2, 3, 3, 4, 5, 5], np.int32)
    m = np.array([0, -1, 1, 0, -2, 3, -1, 2, -5, 4], np.int32)
    theta = np.linspace(0.1, 3.0, 10).astype(F32)
    phi = np.linspace(0.2, 6.0, 10).astype(F32)
    out["special|sph_harm_y"] = special.sph_harm_y(n, m, theta, phi, n_max=5)


def _signal(out: dict[str, Any], signal: Any) -> None:
    r = _rng(7)
    x = r.normal(size=(2, 40)).astype(F32)
    y = r.normal(size=(2, 40)).astype(F32)
    f, t, z = signal.stft(x, nperseg=8)
    out["signal|stft_f"], out["signal|stft_t"], out["signal|stft"] = f, t, z
    f, t, z2 = signal.stft(x.T, nperseg=7, noverlap=3, boundary="odd", detrend="linear",
                           padded=False, return_onesided=False, fs=4.0, axis=0)  # fmt: skip
    out["signal|stft_odd_f"], out["signal|stft_odd_t"], out["signal|stft_odd"] = f, t, z2
    out["signal|stft_window"] = signal.stft(x, window=np.hanning(8).astype(F32), nperseg=8,
                                            boundary="even")[2]  # fmt: skip
    f, p = signal.welch(x, nperseg=10, average="median", scaling="spectrum", nfft=12, fs=10.0)
    out["signal|welch_f"], out["signal|welch"] = f, p
    out["signal|welch_whole"] = signal.welch(x[0], detrend="linear")[1]
    out["signal|csd"] = signal.csd(x, y, nperseg=16, noverlap=4)[1]
    out["signal|csd_twosided"] = signal.csd(x, y[:1, :30], nperseg=8, average="median",
                                            return_onesided=False)[1]  # fmt: skip
    t, rec = signal.istft(z, nperseg=8)
    out["signal|istft_t"], out["signal|istft"] = t, rec
    out["signal|istft_twosided"] = signal.istft(z2, nperseg=7, noverlap=3, input_onesided=False,
                                                boundary=False, time_axis=-1, freq_axis=0)[1]  # fmt: skip


def _linalg(out: dict[str, Any], linalg: Any) -> None:
    r = _rng(11)
    a = (r.normal(size=(2, 3, 3)) * np.array([0.7, 4.0])[:, None, None]).astype(F32)
    e = r.normal(size=(2, 3, 3)).astype(F32)
    expm_a, frechet = linalg.expm_frechet(a, e)
    out["linalg|expm_frechet_expm"], out["linalg|expm_frechet"] = expm_a, frechet
    tall = r.normal(size=(5, 3)).astype(F32)
    wide = r.normal(size=(3, 4)).astype(F32)
    for name, (mat, cmat, kw) in {
        "left": (tall, r.normal(size=(3, 2)), {"mode": "left"}),
        "right_wide": (wide, r.normal(size=(4, 3)), {"conjugate": True}),
        "left_1d": (tall, r.normal(size=3), {"mode": "left"}),
    }.items():
        prod, rr = linalg.qr_multiply(mat, cmat.astype(F32), **kw)
        out[f"linalg|qr_multiply_{name}"], out[f"linalg|qr_multiply_{name}_r"] = prod, rr


def _byteswap(out: dict[str, Any], jnp: Any) -> None:
    for dtype in ("int32", "float32", "int16", "uint8", "complex64", "bool"):
        x = jnp.asarray(np.array([0, 1, 2, 3, 250], np.int64).astype(dtype))
        out[f"array|byteswap_{dtype}"] = x.byteswap()


def host_cases(jnp: Any, debug: Any, random: Any) -> dict[str, Any]:
    """What concrete arrays, ``debug`` and ``random`` answer: strings and integers."""
    x = jnp.arange(6.0).reshape(2, 3)
    out: dict[str, Any] = {
        "array|platform": x.platform(),
        "array|is_ready": x.is_ready(),
        "array|size_f32": x.on_device_size_in_bytes(),
        "array|size_i8": jnp.ones(5, "int8").on_device_size_in_bytes(),
        "array|tobytes": x.tobytes().hex(),
        "array|tobytes_f": x.tobytes("F").hex(),
        "array|format_layout": repr(x.format.layout),
        "array|format_layout_3d": repr(jnp.ones((2, 3, 4)).format.layout),
        "array|clone": np.asarray(x.clone()).tolist(),
        "array|copy_to_host_async": repr(x.copy_to_host_async()),
        "random|key_dtype": str(random.key_dtype()),
        "random|key_dtype_named": str(random.key_dtype("threefry2x32")),
    }
    for name, value in {"vector": jnp.arange(4.0), "matrix": x, "tall": jnp.ones((9, 2))}.items():
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            debug.visualize_array_sharding(value)
        out[f"debug|visualize_{name}"] = buffer.getvalue()
    return out


def _outer(x: Any, session: Any) -> Any:
    return _inner(x, session) + 1


def _inner(x: Any, session: Any) -> Any:
    z = x - 1  # noqa: F841 (read in the debugger)
    session(filter_frames=True)
    return x * 2


def debugger_transcript(jit: Any, vmap: Any, jnp: Any, breakpoint: Any) -> str:
    """A scripted ``debug.breakpoint`` session: eager, under ``jit``, ``vmap``, with a token.

    Paths are replaced by ``<file>`` (the frames are this file's functions).
    """
    out = io.StringIO()
    commands = "p kw\nu\np z\npp {'z': z}\nz + 1\nl\nu\nd\nd\nw\np missing\nc\n"

    def session(**kw: Any) -> None:
        breakpoint(num_frames=2, stdin=io.StringIO(commands), stdout=out, **kw)

    _outer(jnp.arange(3.0), session)
    jit(lambda x: _outer(x, session))(jnp.arange(2.0))
    shared = io.StringIO("u\np z\nc\nu\np z\nc\n")
    vmap(lambda x: _outer(x, lambda **kw: breakpoint(num_frames=2, stdin=shared, stdout=out,
                                                      **kw)))(jnp.arange(2.0))  # fmt: skip

    def with_token(x: Any) -> Any:
        y = x + 1  # noqa: F841 (read in the debugger)
        x = breakpoint(token=x, num_frames=1, stdin=io.StringIO("p y\nc\n"), stdout=out)
        return x * 3

    print(jit(with_token)(jnp.ones(2)), file=out)
    return out.getvalue().replace(__file__, "<file>")
