"""aquarelle: train coding language models to paint watercolours with p5.brush.

Importing the package is cheap on purpose: torch, transformers, TRL and
Playwright are imported only inside the functions that need them.
"""

__version__ = "0.1.0"
