"""Reading a YAML or JSON config file into a mapping, with one-line errors (training's and the scorers')."""

from __future__ import annotations

import functools
import json
import numbers
import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

#: The largest config file read. A training or reward config, even a run's ``config.json``, is a few KiB; PyYAML
#: parses ~1-2 MB/s of comments and far less of a list (a 35 MB list took 159 s and 2.4 GB), and a file past
#: memory (an 8 GB sparse file) raised MemoryError: a server or a run that hangs or dies at start instead of
#: one line.
MAX_CONFIG_BYTES = 1024 * 1024
#: The most values (strings, numbers, lists, mappings) a config may hold once YAML aliases are expanded: a few
#: hundred bytes of nested aliases (billion laughs) are 387 million strings to whoever writes the config out.
MAX_CONFIG_VALUES = 100_000


def read_mapping(path: str | Path, label: str, error: type[Exception]) -> dict[str, Any]:
    """The file's top-level mapping; ``error("<label> <path> ...")`` naming what is wrong with it."""
    p = Path(path)
    if p.is_dir():  # `--config runs/gpu` for `runs/gpu/config.json`: "does not exist" would send the user looking
        raise error(f"{label} {p} is a directory, not a file")
    if not p.is_file():  # /dev/zero or a FIFO was "does not exist" too
        raise error(f"{label} {p} is not a regular file: give a YAML or JSON file" if p.exists() else
                    f"{label} {p} does not exist")
    suffix = p.suffix.lower()  # GPU.YAML is YAML too
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise error(f"{label} {p} cannot be read: {e.strerror or e}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise error(f"{label} {p} is bigger than {MAX_CONFIG_BYTES // 1024} KiB: a config is a few KiB")
    try:
        text = raw.decode("utf-8")
        if suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.load(text, Loader=_yaml_loader()) or {}
        else:
            data = json.loads(text)
    except Exception as e:  # noqa: BLE001 - not UTF-8, yaml/json syntax, too deep: the file's fault, one line
        if isinstance(e, UnicodeDecodeError):
            kind = "UTF-8"
        elif suffix in (".yaml", ".yml", ".json"):
            kind = suffix[1:]
        else:  # the name decides the parser: a YAML file called run.cfg got a JSON error saying "not valid cfg"
            kind = "JSON (a file not named .yaml or .yml is read as JSON)"
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise error(f"{label} {p} is not valid {kind}: {why}") from None
    if not isinstance(data, dict):
        raise error(f"{label} {p} must hold a mapping at the top level")
    size = _expanded_size(data)
    if size is None:
        raise error(f"{label} {p} refers to itself (a YAML alias inside its own anchor)")
    if size > MAX_CONFIG_VALUES:  # a 400-byte billion-laughs under reward.extra held `serve --config` 30 s+, 3 GB+
        raise error(f"{label} {p} holds more than {MAX_CONFIG_VALUES} values once YAML aliases are expanded: a "
                    f"config holds a few dozen")
    where = _not_unicode_at(data)
    if where is not None:  # JSON's "\ud800": a server started with it answered every GET /scoring with a bare 500
        raise error(f"{label} {p}: {where} is not valid Unicode text (a lone UTF-16 surrogate)")
    return data


@functools.cache
def _yaml_loader() -> type:
    """PyYAML's safe loader, reading ``1e-5`` and ``1.0e5`` as the numbers YAML 1.2 says they are: YAML 1.1 wants a
    dot and a signed exponent (``1.0e-5``) and reads the others as strings, which a number field refuses now that
    a string is not a number (below)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
        list("-+0123456789"))
    return Loader


def _got(v: Any) -> str:
    r = repr(v)
    return f"{type(v).__name__} {r if len(r) <= 40 else r[:37] + '...'}"


def _number_check(kind: str, what: str) -> Any:
    """A before-validator refusing what pydantic's lax mode coerced to a number: ``"1"`` and ``true`` were 1 (a
    weight ``{"judge": true}`` in a reset was weight 1; ``render_size: true`` was refused as "greater than or equal
    to 32"). A float goes on to pydantic, which takes 8.0 for an integer and refuses 8.5."""
    def check(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise PydanticCustomError(kind, f"must be {what}, got {{got}}", {"got": _got(v)})
        return v

    return check


#: A number field of a config (or a reset's weights): an int or a float, never a bool or a string.
RealNumber = Annotated[float, BeforeValidator(_number_check("real_number", "a number (int or float)"))]
#: An integer field of a config: an int (or a whole float), never a bool or a string.
WholeNumber = Annotated[int, BeforeValidator(_number_check("whole_number", "an integer"))]


def _expanded_size(data: Any) -> int | None:
    """How many values ``data`` holds once its shared lists and mappings (YAML aliases) are counted each time they
    are used, as ``json.dumps`` or ``model_dump`` would write them out (counting stops past ``MAX_CONFIG_VALUES``);
    None when a list or mapping contains itself."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        v, closing = stack.pop()
        if not isinstance(v, (dict, list)) or (not closing and id(v) in sizes):
            continue
        kids = list(v.values()) if isinstance(v, dict) else v
        if closing:
            open_.discard(id(v))
            sizes[id(v)] = min(1 + len(kids) + sum(sizes.get(id(k), 0) for k in kids), MAX_CONFIG_VALUES + 1)
            continue
        if id(v) in open_:
            return None
        open_.add(id(v))
        stack.append((v, True))
        for k in kids:
            if isinstance(k, (dict, list)):
                if id(k) in open_:
                    return None
                stack.append((k, False))
    return sizes.get(id(data), 1)


def _not_unicode_at(data: Any) -> str | None:
    """The dotted key of the first string (or key) in ``data`` that cannot be encoded as UTF-8, else None.

    Each list or mapping is read once: YAML aliases share one object, and a billion-laughs file (9 levels of 9
    aliases) is 81 objects but 387 million paths."""
    stack: list[tuple[str, Any]] = [("", data)]
    seen: set[int] = set()
    while stack:
        where, v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, x in items:
            name = f"{where}.{k}" if where else str(k)
            for text in (k, x):
                if isinstance(text, str):
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:
                        return "a key in " + (where or "the file") if text is k else name
            stack.append((name, x))
    return None
