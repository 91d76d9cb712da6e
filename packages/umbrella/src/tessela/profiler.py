"""``tessela.profiler``: profiler traces and device memory profiles, as ``jax.profiler``.

Traces go through jaxlib's profiler (``jaxlib._profiler``, reached through
``tessela._jaxlib``): ``start_trace``
opens a profiler session that records host activity (Python functions,
``TraceAnnotation`` spans) and XLA's device activity; ``stop_trace`` writes it
to ``<log_dir>/plugins/profile/<run>/`` (an ``.xplane.pb`` that TensorBoard's
profile plugin opens and a ``.trace.json.gz`` that Perfetto opens; with
``create_perfetto_trace=True`` also a ``perfetto_trace.json.gz`` without
metadata, as Perfetto wants). ``device_memory_profile`` returns the XLA
client's heap profile in gzipped ``pprof`` format.

Example:
    >>> import os, tempfile
    >>> import tessela as tx
    >>> import tessela.numpy as tnp
    >>> log_dir = tempfile.mkdtemp()
    >>> with tx.profiler.trace(log_dir):
    ...     with tx.profiler.TraceAnnotation("my_step"):
    ...         _ = (tnp.ones(4) * 2).block_until_ready()
    >>> os.listdir(os.path.join(log_dir, "plugins", "profile")) != []
    True
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import json
import logging
import os
import pathlib
import socketserver
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from tessela_lowering import devices

from ._jaxlib import jaxlib_version
from ._jaxlib import profile_data as _profile_data
from ._jaxlib import profiler as _profiler

__all__ = [
    "ProfileData",
    "ProfileEvent",
    "ProfileOptions",
    "ProfilePlane",
    "StepTraceAnnotation",
    "TraceAnnotation",
    "annotate_function",
    "device_memory_profile",
    "register_subprocess",
    "save_device_memory_profile",
    "start_server",
    "start_trace",
    "stop_server",
    "stop_trace",
    "trace",
]

_F = TypeVar("_F", bound=Callable[..., Any])
_logger = logging.getLogger(__name__)

ProfileData = _profile_data.ProfileData
ProfileEvent = _profile_data.ProfileEvent
ProfilePlane = _profile_data.ProfilePlane


class ProfileOptions(_profiler.ProfileOptions):  # type: ignore[misc]
    """Options of the profiler's collectors (host and Python tracer levels, ...).

    Example:
      >>> from tessela.profiler import ProfileOptions
      >>> opts = ProfileOptions()
      >>> opts.python_tracer_level = 0
      >>> opts.python_tracer_level
      0
    """


class TraceAnnotation(_profiler.TraceMe):  # type: ignore[misc]
    """A context manager that records a named span on the profiler's timeline.

    Args:
      name: the span's label.
      **kwargs: metadata shown with the span.

    Example:
      >>> import tessela as tx
      >>> with tx.profiler.TraceAnnotation("my_label"):
      ...     pass
    """


class StepTraceAnnotation(TraceAnnotation):
    """A ``TraceAnnotation`` that marks one step (e.g. a training step) for step analysis.

    Args:
      name: the span's label.
      **kwargs: metadata, typically ``step_num``.

    Example:
      >>> import tessela as tx
      >>> for step in range(2):
      ...     with tx.profiler.StepTraceAnnotation("train", step_num=step):
      ...         pass
    """

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, _r=1, **kwargs)


def annotate_function(func: _F, name: str | None = None, **decorator_kwargs: Any) -> _F:
    """Wraps ``func`` so that each call is a ``TraceAnnotation`` span.

    Args:
      func: the function.
      name: the span's label (default: the function's qualified name).
      **decorator_kwargs: metadata shown with the span.

    Returns:
      The wrapped function.

    Example:
      >>> import tessela as tx
      >>> @tx.profiler.annotate_function
      ... def f(x):
      ...     return x + 1
      >>> f(1)
      2
    """
    label = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.session: Any = None
        self.log_dir = ""
        self.perfetto_trace = False
        self.perfetto_link = False


_state = _State()
_server: Any = None


def start_trace(
    log_dir: os.PathLike[str] | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: ProfileOptions | None = None,
) -> None:
    """Starts a profiler trace, to be written to ``log_dir`` by ``stop_trace``.

    Args:
      log_dir: the folder (usually a TensorBoard log folder).
      create_perfetto_link: also write a Perfetto trace, serve it on
        127.0.0.1:9001 and print a ui.perfetto.dev link (``stop_trace`` blocks
        until Perfetto has loaded it).
      create_perfetto_trace: also write ``perfetto_trace.json.gz``.
      profiler_options: the collectors' options.

    Raises:
      RuntimeError: if a trace is already running.

    Example:
      >>> import tempfile
      >>> import tessela as tx
      >>> tx.profiler.start_trace(tempfile.mkdtemp())
      >>> tx.profiler.stop_trace()
    """
    with _state.lock:
        if _state.session is not None:
            raise RuntimeError(
                "Profile has already been started. Only one profile may be run at a time."
            )
        _profiler.clear_metadata()
        backend = devices()  # the client exists before the session starts
        _profiler.set_metadata("jaxlib_version", jaxlib_version)
        _profiler.set_metadata(f"{backend[0].platform}_version", backend[0].client.platform_version)
        _state.session = _profiler.ProfilerSession(profiler_options or ProfileOptions())
        _state.log_dir = str(log_dir)
        _state.perfetto_link = create_perfetto_link
        _state.perfetto_trace = create_perfetto_trace or create_perfetto_link


def stop_trace() -> None:
    """Stops the running trace and writes it to the ``log_dir`` given to ``start_trace``.

    Raises:
      RuntimeError: if no trace is running.

    Example:
      >>> import tessela as tx
      >>> tx.profiler.stop_trace()
      Traceback (most recent call last):
      ...
      RuntimeError: No profile started
    """
    with _state.lock:
        if _state.session is None:
            raise RuntimeError("No profile started")
        try:
            _state.session.stop_and_export(_state.log_dir)
            if _state.perfetto_trace:
                path = _write_perfetto_trace(_state.log_dir)
                if _state.perfetto_link:
                    _serve_perfetto_trace(path)
        finally:
            _state.session = None
            _profiler.clear_metadata()


@contextlib.contextmanager
def trace(
    log_dir: os.PathLike[str] | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: ProfileOptions | None = None,
) -> Iterator[None]:
    """A context manager that traces its block (``start_trace`` ... ``stop_trace``).

    Args:
      log_dir: the folder to write the trace to.
      create_perfetto_link: see ``start_trace``.
      create_perfetto_trace: see ``start_trace``.
      profiler_options: the collectors' options.

    Returns:
      The context manager.

    Example:
      >>> import tempfile
      >>> import tessela as tx
      >>> with tx.profiler.trace(tempfile.mkdtemp()):
      ...     pass
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


def _write_perfetto_trace(log_dir: str) -> pathlib.Path:
    """Writes the latest run's trace without its metadata, as Perfetto wants it."""
    runs = (pathlib.Path(log_dir).absolute() / "plugins" / "profile").iterdir()
    latest = max(runs, key=os.path.getmtime)
    found = list(latest.glob("*.trace.json.gz"))
    if len(found) != 1:
        raise ValueError(f"Invalid trace folder: {latest}")
    with gzip.open(found[0], "rb") as fp:
        data = json.load(fp)
    data.pop("metadata", None)
    out = latest / "perfetto_trace.json.gz"
    with gzip.open(out, "w") as fp:
        fp.write(json.dumps(data).encode("utf-8"))
    return out


class _PerfettoHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def do_GET(self) -> None:
        self.server.last_request = self.path  # type: ignore[attr-defined]
        super().do_GET()


def _serve_perfetto_trace(path: pathlib.Path) -> None:
    """Serves ``path`` on 127.0.0.1:9001 until ui.perfetto.dev has fetched it."""
    handler = functools.partial(_PerfettoHandler, directory=str(path.parent))
    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.TCPServer(("127.0.0.1", 9001), handler) as httpd:
        print(
            f"Open URL in browser: https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/{path.name}"
        )
        while getattr(httpd, "last_request", None) != "/" + path.name:
            httpd.handle_request()


def start_server(port: int, requires_backend: bool = True) -> Any:
    """Starts the profiler server on ``port``, for TensorBoard's profile plugin to sample.

    Args:
      port: the port.
      requires_backend: create the XLA client first (default).

    Returns:
      jaxlib's ``ProfilerServer``.

    Raises:
      ValueError: if a server is already running.

    Example:
      >>> import tessela as tx
      >>> server = tx.profiler.start_server(9899)
      >>> tx.profiler.stop_server()
    """
    global _server
    if _server is not None:
        raise ValueError("Only one profiler server can be active at a time.")
    if requires_backend:
        devices()
    _server = _profiler.start_server(port)
    return _server


def stop_server() -> None:
    """Stops the profiler server.

    Raises:
      ValueError: if no server is running.
    """
    global _server
    if _server is None:
        raise ValueError("No active profiler server.")
    _server = None  # dropping jaxlib's server object stops it


def register_subprocess(pid: int, port: int) -> Callable[[], None]:
    """Profiles a subprocess's profiler server along with this process.

    Args:
      pid: the subprocess's id.
      port: the port of its profiler server.

    Returns:
      A function that unregisters it.
    """
    unregister: Callable[[], None] = _profiler.register_subprocess(pid, port)
    return unregister


def device_memory_profile(backend: str | None = None) -> bytes:
    """The device memory in use, as a gzipped ``pprof`` protocol buffer.

    Args:
      backend: the platform ("cpu", "gpu", ...); default: the default one.

    Returns:
      The profile's bytes (open with ``pprof``).

    Example:
      >>> import gzip
      >>> import tessela as tx
      >>> len(gzip.decompress(tx.profiler.device_memory_profile())) > 0
      True
    """
    client = devices(backend)[0].client
    profile: bytes = client.heap_profile()
    return gzip.compress(profile)


def save_device_memory_profile(
    filename: os.PathLike[str] | str, backend: str | None = None
) -> None:
    """Writes ``device_memory_profile(backend)`` to ``filename``.

    Args:
      filename: the file to write.
      backend: the platform; default: the default one.
    """
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)
