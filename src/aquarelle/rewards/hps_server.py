"""``aquarelle serve-hps``: HPSv3 as a small HTTP service for a GPU machine.

hpsv3 pins transformers 4.45, which clashes with the training stack, so the
service lives in its own environment. This module imports only fastapi, pydantic,
numpy and Pillow at top level (hpsv3 and torch lazily), so it runs there as

    python -m venv ~/hps && ~/hps/bin/pip install hpsv3 fastapi uvicorn pillow numpy
    PYTHONPATH=/path/to/aquarelle/src ~/hps/bin/python -m aquarelle.rewards.hps_server \\
        --host 0.0.0.0 --port 8765 --device cuda:0

(or ``aquarelle serve-hps`` where aquarelle and hpsv3 share an environment), and
the trainer points ``preference_url`` (or ``AQUARELLE_HPS_URL``) at it.

Protocol: ``GET /health`` -> ``{"ok": true, "model": ...}``;
``POST /score {"images": [base64 PNG...], "prompts": [str...]}`` ->
``{"mu": [...], "sigma": [...]}`` (raw HPSv3 outputs; the client normalises).
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import tempfile
import threading
from typing import Callable, Sequence

from pydantic import BaseModel, Field

#: A scorer takes PIL images and prompts and returns (mu, sigma) per image.
Scorer = Callable[[Sequence[object], Sequence[str]], Sequence[tuple[float, float]]]

MAX_BATCH = 64


class ScoreRequest(BaseModel):
    images: list[str] = Field(..., min_length=1, max_length=MAX_BATCH)
    prompts: list[str]


class ScoreResponse(BaseModel):
    mu: list[float]
    sigma: list[float]


def hpsv3_scorer(device: str = "cuda", checkpoint: str | None = None) -> Scorer:
    """Load HPSv3RewardInferencer once; score through temporary PNG files (what it reads best)."""
    import torch
    from hpsv3 import HPSv3RewardInferencer

    inferencer = HPSv3RewardInferencer(device=device, checkpoint_path=checkpoint)

    def score(images: Sequence[object], prompts: Sequence[str]) -> list[tuple[float, float]]:
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, im in enumerate(images):
                p = os.path.join(tmp, f"{i}.png")
                im.save(p)  # type: ignore[attr-defined]
                paths.append(p)
            with torch.no_grad():
                rewards = inferencer.reward(prompts=list(prompts), image_paths=paths)
        return [(float(r[0]), float(r[1]) if len(r) > 1 else 0.0) for r in rewards]

    return score


def create_app(scorer: Scorer | None = None, *, device: str = "cuda", checkpoint: str | None = None,
               model_name: str = "MizzenAI/HPSv3", eager: bool = False):
    """The FastAPI app; ``scorer`` replaces the model (tests, other preference models)."""
    from fastapi import FastAPI, HTTPException
    from PIL import Image

    app = FastAPI(title="aquarelle HPSv3 service")
    state: dict[str, Scorer] = {}
    lock = threading.Lock()  # one batch on the GPU at a time

    def get_scorer() -> Scorer:
        if "s" not in state:
            state["s"] = scorer if scorer is not None else hpsv3_scorer(device, checkpoint)
        return state["s"]

    if eager:  # load the model before accepting requests: a bad install fails at start-up
        get_scorer()

    @app.get("/health")
    def health() -> dict:
        get_scorer()
        return {"ok": True, "model": model_name if scorer is None else getattr(scorer, "__name__", "custom")}

    @app.post("/score", response_model=ScoreResponse)
    def score(req: ScoreRequest) -> ScoreResponse:
        if len(req.prompts) != len(req.images):
            raise HTTPException(422, f"{len(req.images)} images but {len(req.prompts)} prompts")
        images = []
        for i, b64 in enumerate(req.images):
            try:
                data = base64.b64decode(b64.split(",", 1)[1] if b64.startswith("data:") else b64, validate=True)
                images.append(Image.open(io.BytesIO(data)).convert("RGB"))
            except Exception:  # noqa: BLE001 - any decode failure is the request's fault
                raise HTTPException(422, f"images[{i}] is not a base64 PNG/JPEG") from None
        with lock:
            out = list(get_scorer()(images, req.prompts))
        return ScoreResponse(mu=[m for m, _ in out], sigma=[s for _, s in out])

    return app


def serve(host: str = "127.0.0.1", port: int = 8765, device: str = "cuda", checkpoint: str | None = None) -> None:
    import uvicorn

    app = create_app(device=device, checkpoint=checkpoint, eager=True)
    uvicorn.run(app, host=host, port=port, log_level="info")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--checkpoint", default=None)
    a = ap.parse_args(argv)
    serve(a.host, a.port, a.device, a.checkpoint)


if __name__ == "__main__":
    main()
