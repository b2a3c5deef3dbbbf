"""Training: the TRL tool class, reward functions, SFT warm start, GRPO presets.

Import-light (no torch here): names resolve lazily from their modules.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PaintingToolEnv", "ToolError", "make_tool_env", "tool_names"]

_WHERE = {"PaintingToolEnv": "tool_env", "ToolError": "tool_env", "make_tool_env": "tool_env", "tool_names": "tool_env"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
