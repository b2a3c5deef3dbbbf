"""The OpenEnv environment: models, environment, server app and client.

Kept import-light for ``aquarelle --help``: import the submodules you need
(``aquarelle.env.environment``, ``.server``, ``.client``) or the names below.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WatercolourAction", "WatercolourObservation", "WatercolourState", "WatercolourEnvironment",
           "WatercolourEnv", "create_server_app"]

_WHERE = {
    "WatercolourAction": "models", "WatercolourObservation": "models", "WatercolourState": "models",
    "WatercolourEnvironment": "environment", "WatercolourEnv": "client", "create_server_app": "server",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The lazy names too: ``dir(aquarelle.env)`` listed only ``Any`` and ``annotations``."""
    return sorted([*globals(), *__all__])
