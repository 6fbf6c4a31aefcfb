# UnionFlow API and worker image: docker compose up -d --build (docs/operations.md).
# bookworm pins pg_dump/pg_restore 15 (Sauvegardes area), matching the PostgreSQL 15 of compose.yaml.
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UNIONFLOW_DATA_DIR=/var/lib/unionflow \
    UNIONFLOW_LOG_FORMAT=json
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /var/lib/unionflow --create-home unionflow
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER unionflow
WORKDIR /var/lib/unionflow
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/health/ready', timeout=4).status != 200)"]
CMD ["unionflow", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
