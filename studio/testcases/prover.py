"""The process an exactly-once proof runs in: ``python -m studio.testcases.prover <proof id>``.

It proves the proof's version on its test case with ``engine.api.prove_exactly_once`` on Spark
(``SPARK_MASTER``, else ``local[N]`` sized to the job), as the user who asked, checked now: they
may still run the pipeline, its locations and input files are inside their grants, and the job
gets their grants. What the proof reaches stays in the pipeline's workspace
(``tests/proof-<id>``): inputs, checkpoints, and every sink's output, redirected there. The
verdict, the report and the seed are written to the proof's row; its progress to ``message``.
"""
from __future__ import annotations

import logging
import sys


def prove(proof_id: int) -> None:
    from django.conf import settings
    from django.utils import timezone

    from engine.api import Spark, normalise_definition, prove_exactly_once, slots_needed
    from studio.access import RUN, why_owner_may_not
    from studio.location_policy import check_definition, engine_grants, resolved_definition, test_input_files
    from studio.locations import policy_for, workspace_of
    from studio.testcases.models import Proof, Verdict

    proof = Proof.objects.select_related("pipeline", "version", "created_by").get(pk=proof_id)

    def end(status: str, message: str, result: dict | None = None) -> None:
        Proof.objects.filter(pk=proof_id).update(status=status, message=message[:5000], result=result or {},
                                                 finished_at=timezone.now())

    refused = why_owner_may_not(proof.created_by, RUN, proof.pipeline)
    if refused:
        return end(Verdict.ERROR, f"not proven: {refused}")
    definition = proof.version.definition
    case = next((case for case in definition.get("tests") or [] if case.get("name") == proof.test_case), None)
    if case is None:
        return end(Verdict.ERROR, f"version {proof.version.number} has no test case {proof.test_case!r}")
    policy = policy_for(proof.created_by, proof.pipeline)
    problems, uses = check_definition(definition, policy)
    files, file_problems = test_input_files(definition, [case], policy)
    if problems or file_problems:
        return end(Verdict.ERROR, "; ".join(problem["message"] for problem in problems + file_problems))
    workdir = workspace_of(proof.pipeline) / "tests" / f"proof-{proof.id}"
    workdir.mkdir(parents=True, exist_ok=True)
    Proof.objects.filter(pk=proof_id).update(workdir=str(workdir))

    def progress(message: str) -> None:
        Proof.objects.filter(pk=proof_id).update(message=message[:5000])

    # local[N] for the most slots a phase needs at once: the rescaled phase runs one more subtask per vertex
    job = normalise_definition({key: value for key, value in definition.items() if key != "tests"})
    master = settings.SPARK_MASTER or f"local[{slots_needed(job) + (len(job['nodes']) if proof.rescale else 0)}]"
    result = prove_exactly_once(resolved_definition(definition, uses), case, Spark(master=master),
                                workdir=str(workdir), kills=proof.kills, seed=proof.seed, rescale=proof.rescale,
                                timeout=settings.STUDIO_PROOF_TIMEOUT_S, resolve_file=files.__getitem__,
                                grants=engine_grants(policy), on_progress=progress)
    status = result["status"] if result["status"] in Verdict.values else Verdict.ERROR
    message = result.get("message") or ("every sink's output equals the failure-free run's after "
                                         f"{result.get('kills_fired', 0)} kills" if status == Verdict.PASSED else status)
    end(status, message, result)


def main(argv: list[str]) -> int:
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    django.setup()
    prove(int(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
