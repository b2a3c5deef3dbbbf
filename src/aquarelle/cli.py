"""The one ``aquarelle`` command. Each package adds its subcommands in its own ``cli.py``.

Start-up must stay fast (``aquarelle check``/``render`` under 2 s): subcommand
modules import only typer at module level and pull heavy libraries inside the
command functions.
"""

from __future__ import annotations

import importlib
import sys

import typer

app = typer.Typer(
    name="aquarelle",
    help="Train coding models to paint watercolours with p5.brush.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Modules that contribute subcommands through ``register(app)``, in help order.
SUBCOMMAND_MODULES = (
    "aquarelle.brush.cli",
    "aquarelle.brush.export_cli",
    "aquarelle.render.cli",
    "aquarelle.rewards.cli",
    "aquarelle.env.cli",
    "aquarelle.train.cli",
    "aquarelle.eval.cli",
    "aquarelle.demo",
)


def _register_all() -> None:
    for name in SUBCOMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # that part is not built yet
                continue
            raise
        mod.register(app)


_register_all()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
