# The aquarelle OpenEnv environment server (OpenEnv layout: openenv.yaml + server/app.py).
# Build: docker build -t aquarelle-env .   Run: docker run -p 8000:8000 aquarelle-env
# The server scores with the embedded reward defaults unless AQUARELLE_CONFIG names the run's config file
# (its reward: section), e.g. docker run -v $PWD/gpu.yaml:/cfg/gpu.yaml -e AQUARELLE_CONFIG=/cfg/gpu.yaml -e JUDGE_KEY
# CPU only: the native renderer and the local scorers need no GPU; torch is not installed.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 OMP_NUM_THREADS=1 \
    AQUARELLE_MAX_SESSIONS=64 AQUARELLE_IDLE_TIMEOUT=600

RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*

WORKDIR /app/env
COPY pyproject.toml constraints.txt README.md ./
COPY src ./src
COPY pool ./pool
COPY server ./server
COPY openenv.yaml ./
# the runtime only (no train/browser extras); versions pinned by constraints.txt. The renderer's kernels are
# compiled into numba's cache here, so a container's workers start in seconds instead of compiling for a minute
RUN pip install -c constraints.txt "openenv>=0.10" . \
 && python -c "import aquarelle.env.server" \
 && python -m aquarelle.render.warm

EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=60s --retries=3 \
    CMD curl -f http://localhost:8000/health || exit 1
CMD ["uvicorn", "server.app:app", "--host", "0.0.0.0", "--port", "8000", "--ws-ping-interval", "20", \
     "--ws-ping-timeout", "20", "--ws-max-size", "4194304"]
