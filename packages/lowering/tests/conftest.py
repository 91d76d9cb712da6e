"""Shared settings for the tessela_lowering tests."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "tessela",
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("tessela")
