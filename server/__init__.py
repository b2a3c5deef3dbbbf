"""OpenEnv's package layout: ``server.app:app`` (see openenv.yaml)."""
