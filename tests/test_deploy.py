"""The deployment kit: compose file, image and unit files hold together (and ``docker compose config`` accepts
the compose file where a docker client with the compose plugin exists)."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from unionflow.cli import build_parser

ROOT = Path(__file__).parents[1]


def _compose_available() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=30)
    return probe.returncode == 0


@pytest.mark.skipif(not _compose_available(), reason="no docker client with the compose plugin on this machine "
                                                      "(`docker compose version` fails): structure checked below")
def test_docker_compose_config_accepts_the_file(tmp_path):
    shutil.copy(ROOT / "compose.yaml", tmp_path / "compose.yaml")
    shutil.copy(ROOT / "deploy" / "unionflow.env.example", tmp_path / ".env")
    result = subprocess.run(["docker", "compose", "config", "--quiet"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60, env={**os.environ, "POSTGRES_PASSWORD": "x"})
    assert result.returncode == 0, result.stderr


def test_compose_runs_postgresql_redis_the_api_and_the_worker():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "api", "worker"}
    api, worker = services["api"], services["worker"]
    assert api["command"][:2] == ["unionflow", "serve"] and worker["command"] == ["unionflow", "worker"]
    assert api["depends_on"] == {"postgres": {"condition": "service_healthy"},
                                 "redis": {"condition": "service_healthy"}}
    assert worker["depends_on"] == {"api": {"condition": "service_healthy"}}, "the worker waits for the migrations"
    for service in (api, worker):
        env = service["environment"]
        assert env["UNIONFLOW_DATABASE_URL"].startswith("postgresql://unionflow:${POSTGRES_PASSWORD")
        assert "@postgres:5432/unionflow" in env["UNIONFLOW_DATABASE_URL"]
        assert env["UNIONFLOW_REDIS_URL"] == "redis://redis:6379/0"
        assert service["build"] == "." and service["volumes"] == ["unionflow-data:/var/lib/unionflow"]
    assert all(p.startswith("127.0.0.1:") for p in api["ports"]), "the API port is published on loopback only"
    assert worker["healthcheck"] == {"disable": True}
    assert "healthcheck" in services["postgres"] and "healthcheck" in services["redis"]
    # The serve arguments are ones the command line accepts.
    args = [a.replace("${UNIONFLOW_WORKERS:-2}", "2") for a in api["command"][1:]]
    parsed = build_parser().parse_args(args)
    assert parsed.workers == 2 and parsed.forwarded_allow_ips == "*" and parsed.host == "0.0.0.0"


def test_image_is_slim_non_root_with_a_healthcheck():
    dockerfile = (ROOT / "Dockerfile").read_text()
    stages = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("FROM ")]
    assert stages and all("slim" in image for image in stages)
    final = dockerfile.rsplit("FROM ", 1)[1]
    assert "\nUSER unionflow\n" in final and "useradd --system" in final
    assert "HEALTHCHECK" in final and "/health/ready" in final
    assert 'CMD ["unionflow", "serve"' in final
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "var", ".env"} <= set(ignored)


def _unit(name: str) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((ROOT / "deploy" / "systemd" / name).read_text())
    return parser


def test_systemd_units_for_the_api_and_the_worker():
    api, worker = _unit("unionflow-api.service"), _unit("unionflow-worker.service")
    for unit in (api, worker):
        service = unit["Service"]
        assert service["User"] == "unionflow" and service["EnvironmentFile"] == "/etc/unionflow/unionflow.env"
        assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
        assert service["Restart"] == "on-failure" and unit["Install"]["WantedBy"] == "multi-user.target"
    command = shlex.split(api["Service"]["ExecStart"])
    assert command[0] == "/opt/unionflow/bin/unionflow"
    parsed = build_parser().parse_args(command[1:])
    assert parsed.command == "serve" and parsed.workers == 4 and parsed.forwarded_allow_ips == "127.0.0.1"
    assert api["Service"]["RuntimeDirectory"] == "unionflow-api"
    assert "PROMETHEUS_MULTIPROC_DIR=/run/unionflow-api" in (ROOT / "deploy/systemd/unionflow-api.service").read_text()
    assert shlex.split(worker["Service"]["ExecStart"])[1:] == ["worker"]
    assert "unionflow-api.service" in worker["Unit"]["After"]
    # A fresh host has no /etc/unionflow: the documented install creates it (issue 21).
    doc = (ROOT / "docs" / "operations.md").read_text()
    assert "install -D -m 0640 -o root -g unionflow deploy/unionflow.env.example /etc/unionflow/unionflow.env" in doc


def test_env_example_names_only_known_settings():
    from unionflow.config import Settings

    known = {f"UNIONFLOW_{name.upper()}" for name in Settings.model_fields} | {"POSTGRES_PASSWORD"}
    lines = (ROOT / "deploy" / "unionflow.env.example").read_text().splitlines()
    names = {line.lstrip("# ").split("=", 1)[0] for line in lines if "=" in line and not line.startswith("# ")}
    names |= {line[2:].split("=", 1)[0] for line in lines if line.startswith("# UNIONFLOW_") and "=" in line}
    assert names and names <= known, names - known


def test_the_readme_first_steps_say_port_password_and_jq():
    """A fresh clone followed as a new user (issue 21, finding 18): the port can be changed, ``$PASSWORD`` is set
    by the example itself (read without echo), and ``jq``, which the example pipes into, is named as needed."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    steps = readme.split("## First steps", 1)[1].split("\n## ", 1)[0]
    assert "UNIONFLOW_PORT=" in steps and "BASE=" in steps
    assert "read -rsp" in steps and "PASSWORD" in steps
    assert "`jq`" in steps and "| jq" in steps
