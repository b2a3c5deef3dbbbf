"""The one ``aquarelle`` command. Each package adds its subcommands in its own ``cli.py``.

Start-up must stay fast (``aquarelle check``/``render`` under 2 s): subcommand
modules import only typer at module level and pull heavy libraries inside the
command functions.
"""

from __future__ import annotations

import importlib
import sys

import typer

from aquarelle.train import Terminated

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


#: the click exceptions typer raises (typer 0.29 carries its own copy of click): found through a public name
_click_exc = sys.modules[typer.BadParameter.__module__]


def main() -> None:
    """Run the CLI; a usage mistake (an unknown flag, a value of the wrong type, a missing argument) is one line
    naming it, as every other bad input is, instead of typer's five-line box."""
    terminated = False
    try:
        rv = app(standalone_mode=False)
    except _click_exc.NoArgsIsHelpError as e:  # `aquarelle` or `aquarelle pool` alone: the help, as before
        print(e.ctx.get_help())
        sys.exit(2)
    except _click_exc.UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else "aquarelle"
        print(f"error: {e.format_message()} (`{where} --help` for usage)", file=sys.stderr)
        sys.exit(2)
    except _click_exc.ClickException as e:
        print(f"error: {e.format_message()}", file=sys.stderr)
        sys.exit(e.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except Terminated:  # SIGTERM during training, which has said where the run stands
        terminated = True  # said below, once the exception's frames are gone: the trainer's progress bar closes with them
    except ModuleNotFoundError as e:
        extra = _EXTRAS.get((e.name or "").split(".")[0])
        if extra is None:
            raise
        # an install without the extra (`pip install aquarelle`): `paint`, `sft`, `train` ended in 48 lines of traceback
        print(f"error: this command needs the {extra} extra (no module {e.name!r}): pip install -e '.[{extra}]' "
              f"-c constraints.txt (the constraints keep torch the CPU build)", file=sys.stderr)
        sys.exit(2)
    if terminated:
        import gc

        gc.collect()  # a frame cycle can keep the bar alive (it drew itself after the word in 1 of 4 runs)
        print("terminated", file=sys.stderr)
        sys.exit(143)
    if rv == 130:  # click turns Ctrl-C into Exit(130) under standalone_mode=False: it exited without a word
        print("interrupted", file=sys.stderr)
    sys.exit(rv if type(rv) is int else 0)  # a typer.Exit's code; a command's own return value is not one


#: Top-level modules of the optional extras (pyproject.toml), and the extra that brings each.
_EXTRAS = {**dict.fromkeys(("torch", "transformers", "trl", "peft", "accelerate", "datasets", "gguf", "tokenizers",
                            "safetensors", "huggingface_hub"), "train"), "playwright": "browser"}


if __name__ == "__main__":
    main()
