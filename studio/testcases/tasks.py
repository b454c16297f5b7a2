"""Celery: an exactly-once proof runs in a process of its own (``python -m studio.testcases.prover <id>``),
because it hosts a Spark driver JVM whose slots it kills; the task waits for it, and a process that ends
without a verdict (or outlives ``STUDIO_PROOF_TIMEOUT_S``) leaves the proof as an error saying so."""
from __future__ import annotations

import logging
import os
import subprocess
import sys

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from studio.testcases.models import FINAL, Proof, Verdict

logger = logging.getLogger(__name__)
EXIT_GRACE_S = 60.0
KEPT_PROOF_WORKDIRS = 5
"""Ended proofs per pipeline whose files (inputs, checkpoints, sink outputs) stay in its workspace."""


@shared_task(name="studio.testcases.prove", acks_late=False, bind=True, max_retries=50)
def prove(self, proof_id: int) -> None:
    if not Proof.objects.filter(pk=proof_id).exists():  # queued inside the proof's transaction
        raise self.retry(countdown=0.1)
    if not Proof.objects.filter(pk=proof_id, status=Verdict.QUEUED).update(status=Verdict.RUNNING,
                                                                          started_at=timezone.now()):
        return
    settings.RUN_LOG_DIR.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(settings.BASE_DIR)}
    with open(settings.RUN_LOG_DIR / f"proof-{proof_id}.log", "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "studio.testcases.prover", str(proof_id)],
                                   cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            code = process.wait(timeout=settings.STUDIO_PROOF_TIMEOUT_S + EXIT_GRACE_S)
            why = f"the proof's process exited with code {code} without a verdict"
        except subprocess.TimeoutExpired:
            _kill_group(process)
            why = f"the proof did not end within {settings.STUDIO_PROOF_TIMEOUT_S:g} s and was stopped"
    Proof.objects.filter(pk=proof_id).exclude(status__in=FINAL).update(
        status=Verdict.ERROR, message=why, finished_at=timezone.now())
    _forget_old_workdirs(Proof.objects.get(pk=proof_id).pipeline_id)


def _forget_old_workdirs(pipeline_id: int) -> None:
    """Only the newest ended proofs keep their files; the older ones' reports stay in the database."""
    import shutil

    ended = Proof.objects.filter(pipeline_id=pipeline_id, status__in=FINAL).exclude(workdir="")
    for proof in list(ended.order_by("-created_at", "-id")[KEPT_PROOF_WORKDIRS:]):
        shutil.rmtree(proof.workdir, ignore_errors=True)
        Proof.objects.filter(pk=proof.pk).update(workdir="")


def _kill_group(process: subprocess.Popen) -> None:
    """The prover, its Spark JVM and the JVM's Python workers: one process group (``start_new_session``)."""
    import signal

    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
