"""Reading a YAML or JSON config file into a mapping, with one-line errors (training's and the scorers')."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_mapping(path: str | Path, label: str, error: type[Exception]) -> dict[str, Any]:
    """The file's top-level mapping; ``error("<label> <path> ...")`` naming what is wrong with it."""
    p = Path(path)
    if p.is_dir():  # `--config runs/gpu` for `runs/gpu/config.json`: "does not exist" would send the user looking
        raise error(f"{label} {p} is a directory, not a file")
    if not p.is_file():
        raise error(f"{label} {p} does not exist")
    suffix = p.suffix.lower()  # GPU.YAML is YAML too
    try:
        text = p.read_text(encoding="utf-8")
        if suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text) or {}
        else:
            data = json.loads(text)
    except Exception as e:  # noqa: BLE001 - unreadable, not UTF-8, yaml/json syntax: the file's fault, one line
        if isinstance(e, UnicodeDecodeError):
            kind = "UTF-8"
        elif suffix in (".yaml", ".yml", ".json"):
            kind = suffix[1:]
        else:  # the name decides the parser: a YAML file called run.cfg got a JSON error saying "not valid cfg"
            kind = "JSON (a file not named .yaml or .yml is read as JSON)"
        raise error(f"{label} {p} is not valid {kind}: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise error(f"{label} {p} must hold a mapping at the top level")
    return data
