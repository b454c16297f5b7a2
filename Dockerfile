# One image for every service of docker-compose.yml: the built frontend and an installed
# virtualenv; the services differ only in their command, and nothing is installed when a
# container starts. The build steps are the scripts the tests run on the host:
# scripts/build_frontend.sh (`make frontend`) and scripts/install_venv.sh
# (tests/deploy/test_install.py); tests/deploy/test_compose.py keeps this file, those
# scripts and docker-compose.yml in step.

FROM node:20-bookworm-slim AS frontend
WORKDIR /app
COPY scripts/build_frontend.sh scripts/
COPY frontend/ frontend/
RUN scripts/build_frontend.sh

FROM python:3.11-slim-bookworm
# Java for the Spark driver, master and workers; procps for Spark's scripts
RUN apt-get update \
    && apt-get install -y --no-install-recommends openjdk-17-jre-headless procps \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . /app
COPY --from=frontend /app/frontend/dist /app/frontend/dist
# editable: the studio's processes import /app, where the built frontend is
RUN PYTHON=python3.11 scripts/install_venv.sh /opt/venv -e "/app[studio]"
ENV PATH=/opt/venv/bin:$PATH \
    PYSPARK_PYTHON=/opt/venv/bin/python \
    STUDIO_DATA_DIR=/data
