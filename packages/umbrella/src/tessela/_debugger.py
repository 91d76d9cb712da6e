"""``jax.debug.breakpoint``: an interactive debugger over the runtime values of a program.

As in JAX 0.10.2: ``breakpoint()`` records the Python frames of its caller
(those outside Tessela's own packages, or all with ``filter_frames=False``)
and passes their traced locals to a debug callback; when the program reaches
that point (eagerly, every time a jitted program runs, once per element under
``vmap``) the ``cli`` debugger (``(jdb)``, a :class:`cmd.Cmd`) opens on the
frames with the values filled in. Its commands: ``p``/``pp`` expression, a bare
expression, ``u(p)``, ``d(own)``, ``l(ist)``, ``w(here)``/``bt``,
``c(ont(inue))``, ``q(uit)``/``exit``. ``stdin``/``stdout`` keyword arguments
go to the debugger (for scripted sessions).
"""

from __future__ import annotations

import cmd
import dataclasses
import inspect
import os
import pprint
import sys
import threading
import traceback
from collections.abc import Callable, Hashable
from typing import IO, Any

from tessela_pytree import register_pytree_node, tree_flatten, tree_leaves, tree_unflatten
from tessela_tracer import Tracer, debug_callback, lax, pure_callback

__all__ = ["CliDebugger", "DebuggerFrame", "breakpoint"]

_PACKAGES = ("tessela", "tessela_autodiff", "tessela_batching", "tessela_lowering",
             "tessela_numpy", "tessela_prng", "tessela_pytree", "tessela_tracer")  # fmt: skip


class _CantFlatten:
    def __repr__(self) -> str:
        return "<cant_flatten>"


_cant_flatten = _CantFlatten()


class _Entries:
    """A dict's values as pytree children, its keys (in order) as static data."""

    def __init__(self, keys: list[Hashable], values: list[Any]) -> None:
        self.keys, self.values = keys, values


register_pytree_node(
    _Entries,
    lambda e: (e.values, tuple(e.keys)),
    lambda keys, values: _Entries(list(keys), list(values)),
)


def _entries(mapping: dict[Any, Any]) -> _Entries:
    keys, values = [], []
    for key, value in mapping.items():
        try:
            tree_leaves(value)
        except Exception:  # a value that cannot be flattened stays out
            value = _cant_flatten
        keys.append(key)
        values.append(value)
    return _Entries(keys, values)


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """One Python frame as the debugger shows it: file, line, source and variables.

    Example:
        >>> frame = DebuggerFrame("f.py", {"x": 1}, {}, None, ["x = 1"], 1, 0)
        >>> frame.locals
        {'x': 1}
    """

    filename: str
    locals: dict[str, Any]
    globals: dict[str, Any]
    code_context: Any
    source: list[str]
    lineno: int
    offset: int | None

    @classmethod
    def from_frameinfo(cls, info: inspect.FrameInfo) -> DebuggerFrame:
        """The frame of an :func:`inspect.stack` entry, with its source around the line.

        Args:
            info: the frame information.

        Returns:
            The frame; without source (``offset`` None) where none can be read.

        Example:
            >>> DebuggerFrame.from_frameinfo(inspect.stack()[0]).lineno > 0
            True
        """
        try:
            _, start = inspect.getsourcelines(info.frame)
            source = inspect.getsource(info.frame).split("\n")
            offset: int | None = info.lineno - max(start, 1)
            if offset is not None and offset >= len(source):
                source, offset = [], None
        except OSError:
            source, offset = [], None
        return cls(info.filename, dict(info.frame.f_locals), {}, info.code_context, source,
                   info.lineno, offset)  # fmt: skip


def _flatten_frame(frame: DebuggerFrame) -> tuple[list[Any], Any]:
    # Only tracers travel through the callback; other values stay in the treedef.
    flat_locals, locals_tree = tree_flatten(_entries(frame.locals))
    flat_globals, globals_tree = tree_flatten(_entries(frame.globals))
    flat = flat_locals + flat_globals
    traced = [isinstance(v, Tracer) for v in flat]
    static = [v for v, t in zip(flat, traced, strict=True) if not t]
    dynamic = [v for v, t in zip(flat, traced, strict=True) if t]
    aux = (traced, static, locals_tree, globals_tree, len(flat_locals), frame.filename,
           frame.code_context, frame.source, frame.lineno, frame.offset)  # fmt: skip
    return dynamic, aux


def _unflatten_frame(aux: Any, dynamic: Any) -> DebuggerFrame:
    traced, static, locals_tree, globals_tree, n_locals, *rest = aux
    dyn, stat = iter(dynamic), iter(static)
    flat = [next(dyn) if t else next(stat) for t in traced]
    local_entries = tree_unflatten(locals_tree, flat[:n_locals])
    global_entries = tree_unflatten(globals_tree, flat[n_locals:])
    return DebuggerFrame(rest[0], dict(zip(local_entries.keys, local_entries.values, strict=True)),
                         dict(zip(global_entries.keys, global_entries.values, strict=True)),
                         rest[1], rest[2], rest[3], rest[4])  # fmt: skip


register_pytree_node(DebuggerFrame, _flatten_frame, _unflatten_frame)


class CliDebugger(cmd.Cmd):
    """The text debugger ``jax.debug.breakpoint`` opens (prompt ``(jdb)``).

    Args:
        frames: the frames, innermost first.
        thread_id: the id of the thread that stopped (None for the main thread).
        stdin: read commands from here instead of the terminal.
        stdout: write to here instead of standard output.
        completekey: the completion key.

    Example:
        >>> import io
        >>> frame = DebuggerFrame("f.py", {"x": 2}, {}, None, ["y = x"], 1, 0)
        >>> out = io.StringIO()
        >>> CliDebugger([frame], None, stdin=io.StringIO("p x * 3\\nc\\n"), stdout=out).run()
        >>> print(out.getvalue().replace("(jdb) ", ""))
        Entering jdb:
        6
        <BLANKLINE>
    """

    prompt = "(jdb) "

    def __init__(self, frames: list[DebuggerFrame], thread_id: int | None,
                 stdin: IO[str] | None = None, stdout: IO[str] | None = None,
                 completekey: str = "tab") -> None:  # fmt: skip
        super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
        self.use_rawinput = stdin is None
        self.frames = frames
        self.frame_index = 0
        self.thread_id = thread_id
        self.intro = "Entering jdb:"

    def _print(self, *values: Any) -> None:
        print(*values, file=self.stdout)

    def evaluate(self, expr: str) -> Any:
        """Evaluate ``expr`` among the current frame's variables."""
        frame = self.frames[self.frame_index]
        return eval(expr, {}, {**frame.globals, **frame.locals})

    def _error_message(self) -> None:
        kind, value = sys.exc_info()[:2]
        self._print("***", traceback.format_exception_only(kind, value)[-1].strip())

    def default(self, line: str) -> None:
        """Evaluate a line that is not a command and print its repr."""
        self.do_p(line)

    def do_p(self, arg: str) -> None:
        """p expression
        Evaluates and prints the value of an expression
        """
        try:
            self._print(repr(self.evaluate(arg)))
        except Exception:
            self._error_message()

    def do_pp(self, arg: str) -> None:
        """pp expression
        Evaluates and pretty-prints the value of an expression
        """
        try:
            self._print(pprint.pformat(self.evaluate(arg)))
        except Exception:
            self._error_message()

    def print_backtrace(self) -> None:
        """Print the frames, outermost first."""
        lines = ["Traceback:"]
        for frame in self.frames[::-1]:
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            source = "<no source>" if frame.offset is None else frame.source[frame.offset].strip()
            lines.append(f"    {source}")
        self._print("\n".join(lines))

    def print_context(self, num_lines: int = 2) -> None:
        """Print the current frame's source around its line."""
        frame = self.frames[self.frame_index]
        lines = [f"> {frame.filename}({frame.lineno})"]
        if frame.offset is not None:
            for i, line in enumerate(frame.source):
                if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                    lines.append(f"->  {line}" if i == frame.offset else f"    {line}")
        self._print("\n".join(lines))

    def do_up(self, arg: str, /) -> None:
        """u(p)
        Move up a stack frame.
        """
        del arg
        if self.frame_index == len(self.frames) - 1:
            self._print("At topmost frame.")
        else:
            self.frame_index += 1
        self.print_context()

    do_u = do_up

    def do_down(self, arg: str, /) -> None:
        """d(own)
        Move down a stack frame.
        """
        del arg
        if self.frame_index == 0:
            self._print("At bottommost frame.")
        else:
            self.frame_index -= 1
        self.print_context()

    do_d = do_down

    def do_list(self, arg: str) -> None:
        """l(ist)
        List source code for the current file.
        """
        del arg
        self.print_context(num_lines=5)

    do_l = do_list

    def do_continue(self, arg: str) -> bool:
        """c(ont(inue))
        Continue the program's execution.
        """
        del arg
        return True

    do_c = do_cont = do_continue

    def do_quit(self, arg: str) -> None:
        """q(uit)\n(exit)
        Quit the debugger. The program is given an exit command.
        """
        del arg
        sys.exit(0)

    do_q = do_EOF = do_exit = do_quit

    def do_where(self, arg: str) -> None:
        """w(here)
        Prints a stack trace with the most recent frame on the bottom.
        'bt' is an alias for this command.
        """
        del arg
        self.print_backtrace()

    do_w = do_bt = do_where

    def run(self) -> None:
        """Read and run commands until ``c`` (or ``q``, which exits)."""
        while True:
            try:
                self.cmdloop()
                break
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=sys.stdout)


def _run_cli(frames: list[DebuggerFrame], thread_id: int | None, **kwargs: Any) -> None:
    CliDebugger(frames, thread_id, **kwargs).run()


_debuggers: dict[str, tuple[int, Callable[..., None]]] = {"cli": (-1, _run_cli)}
_lock = threading.Lock()


def _debugger(backend: str | None) -> Callable[..., None]:
    if backend is not None and backend in _debuggers:
        return _debuggers[backend][1]
    return max(_debuggers.values(), key=lambda entry: entry[0])[1]


def _internal_dirs() -> tuple[str, ...]:
    # The source folders of Tessela's packages that are loaded (only those can
    # have frames on the stack); nothing is imported to find them.
    modules = [sys.modules.get(name) for name in _PACKAGES]
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                 for m in modules if m is not None and m.__file__)  # fmt: skip


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,
               num_frames: int | None = None, ordered: bool = False, token: Any = None,
               **kwargs: Any) -> Any:  # fmt: skip
    """Stop at this point of the program and open a debugger on its runtime values.

    Args:
        backend: the debugger (``"cli"``, the only one here; other names fall
            back to it, as in JAX).
        filter_frames: leave out the frames of Tessela's own packages.
        num_frames: keep only this many innermost frames.
        ordered: order this breakpoint among other ordered debug calls.
        token: instead of ``ordered``, a pytree of arrays returned unchanged once
            the breakpoint has run (use the result, or the breakpoint is dropped).
        **kwargs: given to the debugger (``stdin``, ``stdout`` for the ``cli`` one).

    Returns:
        ``token`` when one is given, else None.

    Raises:
        ValueError: both ``ordered`` and ``token``.

    Example:
        >>> import io
        >>> import tessela as tx
        >>> out = io.StringIO()
        >>> def f(x):
        ...     y = x * 2
        ...     breakpoint(num_frames=1, stdin=io.StringIO("p y\\nc\\n"), stdout=out)
        ...     return y
        >>> _ = tx.jit(f)(tx.numpy.float32(1.5))
        >>> print(out.getvalue().split("\\n")[1].replace("(jdb) ", ""))
        Array(3., dtype=float32)
    """
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    infos = inspect.stack()[1:]
    internal = _internal_dirs() if filter_frames else ()
    frames = [DebuggerFrame.from_frameinfo(info) for info in infos
              if not os.path.abspath(info.filename).startswith(internal)]  # fmt: skip
    del infos
    if num_frames is not None:
        frames = frames[:num_frames]
    flat_args, frames_tree = tree_flatten(frames)

    def stop(*flat: Any) -> None:
        stopped = tree_unflatten(frames_tree, list(flat))
        thread_id = None
        if threading.current_thread() is not threading.main_thread():
            thread_id = threading.get_ident()
        with _lock:
            _debugger(backend)(stopped, thread_id, **kwargs)

    if token is None:
        debug_callback(stop, *flat_args, ordered=ordered)
        return None

    def stop_then_return(x: Any, *flat: Any) -> Any:
        stop(*flat)
        return x

    token, flat_args = lax.stop_gradient((token, flat_args))
    return pure_callback(stop_then_return, token, token, *flat_args)
