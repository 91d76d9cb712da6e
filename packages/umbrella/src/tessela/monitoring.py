"""``tessela.monitoring``: named events and listeners, as ``jax.monitoring``.

Code marks points with ``record_event`` (an event happened),
``record_event_duration_secs`` (it took this long), ``record_event_time_span``
(from a start to an end time) and ``record_scalar`` (a value); every listener
registered for that kind is called with the event's name, the value and any
keyword metadata. Tessela itself records no events; the functions are for
programs and libraries that instrument themselves.

Example:
    >>> from tessela import monitoring
    >>> seen = []
    >>> monitoring.register_event_listener(lambda event, **kw: seen.append((event, kw)))
    >>> monitoring.record_event("/my/event", step=3)
    >>> seen
    [('/my/event', {'step': 3})]
    >>> monitoring.clear_event_listeners()
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "clear_event_listeners",
    "record_event",
    "record_event_duration_secs",
    "record_event_time_span",
    "record_scalar",
    "register_event_duration_secs_listener",
    "register_event_listener",
    "register_event_time_span_listener",
    "register_scalar_listener",
    "unregister_event_duration_listener",
    "unregister_event_listener",
    "unregister_event_time_span_listener",
    "unregister_scalar_listener",
]

Listener = Callable[..., None]

_event: list[Listener] = []
_duration: list[Listener] = []
_time_span: list[Listener] = []
_scalar: list[Listener] = []


def record_event(event: str, **kwargs: str | int) -> None:
    """Tells every event listener that ``event`` happened.

    Args:
      event: the event's name (by convention a path, ``"/my/lib/event"``).
      **kwargs: metadata passed on to the listeners.
    """
    for listener in list(_event):
        listener(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: str | int) -> None:
    """Tells every duration listener that ``event`` took ``duration`` seconds.

    Args:
      event: the event's name.
      duration: seconds.
      **kwargs: metadata passed on to the listeners.
    """
    for listener in list(_duration):
        listener(event, duration, **kwargs)


def record_event_time_span(
    event: str, start_time: float, end_time: float, **kwargs: str | int
) -> None:
    """Tells every time-span listener that ``event`` ran from ``start_time`` to ``end_time``.

    Args:
      event: the event's name.
      start_time: its start, in seconds.
      end_time: its end, in seconds.
      **kwargs: metadata passed on to the listeners.
    """
    for listener in list(_time_span):
        listener(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs: str | int) -> None:
    """Tells every scalar listener the value ``value`` of ``event``.

    Args:
      event: the event's name.
      value: the value.
      **kwargs: metadata passed on to the listeners.
    """
    for listener in list(_scalar):
        listener(event, value, **kwargs)


def register_event_listener(callback: Listener) -> None:
    """Calls ``callback(event, **kwargs)`` on every ``record_event``."""
    _event.append(callback)


def register_event_duration_secs_listener(callback: Listener) -> None:
    """Calls ``callback(event, duration, **kwargs)`` on every ``record_event_duration_secs``."""
    _duration.append(callback)


def register_event_time_span_listener(callback: Listener) -> None:
    """Calls ``callback(event, start, end, **kwargs)`` on every ``record_event_time_span``."""
    _time_span.append(callback)


def register_scalar_listener(callback: Listener) -> None:
    """Calls ``callback(event, value, **kwargs)`` on every ``record_scalar``."""
    _scalar.append(callback)


def _remove(listeners: list[Listener], callback: Listener, kind: str) -> None:
    if callback not in listeners:
        raise AssertionError(f"{callback!r} is not a registered {kind} listener")
    listeners.remove(callback)


def unregister_event_listener(callback: Listener) -> None:
    """Removes an event listener.

    Raises:
      AssertionError: if ``callback`` is not registered (as JAX).
    """
    _remove(_event, callback, "event")


def unregister_event_duration_listener(callback: Listener) -> None:
    """Removes a duration listener.

    Raises:
      AssertionError: if ``callback`` is not registered (as JAX).
    """
    _remove(_duration, callback, "event duration")


def unregister_event_time_span_listener(callback: Listener) -> None:
    """Removes a time-span listener.

    Raises:
      AssertionError: if ``callback`` is not registered (as JAX).
    """
    _remove(_time_span, callback, "event time span")


def unregister_scalar_listener(callback: Listener) -> None:
    """Removes a scalar listener.

    Raises:
      AssertionError: if ``callback`` is not registered (as JAX).
    """
    _remove(_scalar, callback, "scalar")


def clear_event_listeners() -> None:
    """Removes every listener of every kind."""
    for listeners in (_event, _duration, _time_span, _scalar):
        listeners.clear()
