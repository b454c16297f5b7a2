"""Promotion of a pipeline's version from one environment to the next: what changes, who asked, who decided.

A version enters an owner's first environment from nowhere; into any later one it comes from the
environment just before it, which must have it. The diff shows what the target environment's run
would change: the definition (from the version the target has now, if any) and each parameter the
version names, with its value in the source and in the target (a secret stays its reference). Into an
environment that requires approval the promotion waits for a user holding the environment's approval role on
the pipeline (``studio.environments.access.may_approve``), never the user who asked; elsewhere it applies at once. Every promotion is kept, with its decision.
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from engine.api import logic_of, references_in
from studio.environments.models import Environment, PromotedVersion, Promotion, PromotionStatus
from studio.run_values import ValuesRefused
from studio.versions_diff import diff_definitions


def promotion_diff(pipeline, version, source: Environment | None, target: Environment) -> dict:
    """``{"definition": diff, "from_version", "to_version", "parameters": [{"name", "source", "target",
    "changes"}]}`` for promoting ``version`` into ``target``."""
    current = PromotedVersion.objects.filter(environment=target, pipeline=pipeline).select_related("version").first()
    before = logic_of(current.version.definition) if current else {}
    names = sorted({reference.name for reference in references_in(version.definition) if reference.kind == "param"})
    parameters = []
    for name in names:
        in_source = (source.parameters.get(name) if source else None)
        in_target = target.parameters.get(name)
        parameters.append({"name": name, "source": in_source, "target": in_target,
                           "missing": name not in target.parameters, "changes": in_source != in_target})
    return {"definition": diff_definitions(before, logic_of(version.definition)),
            "from_version": current.version.number if current else None, "to_version": version.number,
            "parameters": parameters}


def check_promotable(pipeline, version, target: Environment) -> Environment | None:
    """The source environment of promoting ``version`` into ``target``; :class:`ValuesRefused` (409) when the
    environment before ``target`` does not have it, (400) when ``target`` lacks a parameter it names."""
    source = target.previous()
    if source is not None:
        promoted = PromotedVersion.objects.filter(environment=source, pipeline=pipeline).first()
        if promoted is None or promoted.version_id != version.pk:
            has = f"it has version {promoted.version.number}" if promoted else "it has no version of this pipeline"
            raise ValuesRefused([{"node": None, "edge": None, "field": "version", "message":
                                  f"version {version.number} is not in {source.name!r}, the environment before "
                                  f"{target.name!r} ({has}): promote it there first"}], status=409)
    missing = [{"node": reference.node, "edge": None, "field": reference.field,
                "message": f"environment {target.name!r} has no parameter {reference.name!r}"}
               for reference in references_in(version.definition)
               if reference.kind == "param" and reference.name not in target.parameters]
    if missing:
        raise ValuesRefused(missing)
    return source


def request_promotion(user, pipeline, version, target: Environment, message: str = "") -> Promotion:
    """A promotion of ``version`` into ``target``: applied now, or PENDING when ``target`` requires approval."""
    source = check_promotable(pipeline, version, target)
    with transaction.atomic():
        promotion = Promotion.objects.create(pipeline=pipeline, version=version, source=source, target=target,
                                             diff=promotion_diff(pipeline, version, source, target),
                                             message=message, requested_by=user)
        if not target.requires_approval:
            _apply(promotion, None, "")
    return promotion


def decide(promotion: Promotion, user, approve: bool, comment: str = "") -> Promotion:
    """Approve (and apply) or reject a PENDING promotion; the caller checked ``access.may_approve``."""
    with transaction.atomic():
        locked = Promotion.objects.select_for_update().get(pk=promotion.pk)
        if locked.status != PromotionStatus.PENDING:
            raise ValuesRefused([{"node": None, "edge": None, "field": None,
                                  "message": f"promotion {locked.pk} is {locked.status} already"}], status=409)
        if approve:
            _apply(locked, user, comment)
        else:
            _record(locked, PromotionStatus.REJECTED, user, comment)
    return locked


def withdraw(promotion: Promotion, user) -> Promotion:
    with transaction.atomic():
        locked = Promotion.objects.select_for_update().get(pk=promotion.pk)
        if locked.status != PromotionStatus.PENDING:
            raise ValuesRefused([{"node": None, "edge": None, "field": None,
                                  "message": f"promotion {locked.pk} is {locked.status} already"}], status=409)
        _record(locked, PromotionStatus.WITHDRAWN, user, "")
    return locked


def _apply(promotion: Promotion, user, comment: str) -> None:
    PromotedVersion.objects.update_or_create(environment=promotion.target, pipeline=promotion.pipeline,
                                             defaults={"version": promotion.version, "promotion": promotion})
    _record(promotion, PromotionStatus.APPLIED, user, comment)


def _record(promotion: Promotion, status: str, user, comment: str) -> None:
    promotion.status = status
    promotion.decided_by = user
    promotion.decided_at = timezone.now()
    promotion.comment = comment
    promotion.save(update_fields=["status", "decided_by", "decided_at", "comment"])
