"""Revocation reaches open sockets: whatever can take access away tells the sockets it may concern.

A socket is authorised once, at connect time. To keep it honest afterwards, every open
socket also listens to two access groups: its user's (``access-user-<id>``) and its
pipeline's (``access-pipeline-<id>``). The model changes that can take access away send
``{"type": "access.changed"}`` to the group they concern once their transaction has
committed; each socket there checks its credential and its pipeline again and closes
(4403) when either is gone. The message carries no verdict: the socket asks the same
questions as at connect time (``studio.access``), so there is one rule, not two.

What sends it:

- a pipeline share or team share saved or deleted, a pipeline saved with a new owner or team
  or deleted, a run deleted: the pipeline's group;
- a team membership changed (a new role) or deleted (also with its team): the member's group;
- an API token deleted, a session deleted (logout), a user saved (deactivated, password or
  superuser changed) or deleted, a user added to or removed from a group: the user's group.

Changes made around the ORM (``QuerySet.update``, raw SQL) send nothing; sockets also
check again every ``ACCESS_RECHECK_S`` while they stream (``studio.realtime.consumers``).
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save

from studio import access_epoch
from studio.fanout import broadcast
from studio.models import ApiToken, Pipeline, PipelineShare, Run, TeamMembership, TeamShare

ACCESS_CHANGED = {"type": "access.changed"}


def user_access_group(user_id: int) -> str:
    return f"access-user-{user_id}"


def pipeline_access_group(pipeline_id: int) -> str:
    return f"access-pipeline-{pipeline_id}"


def access_changed(groups: list[str]) -> None:
    """Once the current transaction committed: move the access epoch (what web processes keep
    about access is stale from now on), then tell the sockets of ``groups`` to check theirs."""
    if groups:
        access_epoch.forget_here()
        transaction.on_commit(lambda: _announce(groups))


def _announce(groups: list[str]) -> None:
    access_epoch.advance()  # first: a socket that checks again must not be answered from a cache
    for group in groups:
        broadcast(group, ACCESS_CHANGED)


def _pipeline_changed(sender, instance, **kwargs) -> None:
    pipeline_id = instance.pk if isinstance(instance, Pipeline) else instance.pipeline_id
    update_fields = kwargs.get("update_fields")
    if kwargs.get("created") or (update_fields and set(update_fields) <= {"updated_at"}):
        return  # a new pipeline or a new version takes nothing away
    access_changed([pipeline_access_group(pipeline_id)])


def _membership_changed(sender, instance: TeamMembership, **kwargs) -> None:
    if not kwargs.get("created"):  # a new member loses nothing; a new role or a removal may
        access_changed([user_access_group(instance.user_id)])


def _user_changed(sender, instance, **kwargs) -> None:
    update_fields = kwargs.get("update_fields")
    if kwargs.get("created") or (update_fields and set(update_fields) <= {"last_login"}):
        return
    access_changed([user_access_group(instance.pk)])


def _token_deleted(sender, instance: ApiToken, **kwargs) -> None:
    access_changed([user_access_group(instance.user_id)])


def _session_deleted(sender, instance: Session, **kwargs) -> None:
    from django.contrib.auth import SESSION_KEY

    try:
        user_id = instance.get_decoded().get(SESSION_KEY)
    except Exception:  # a session that no longer decodes authorised nobody
        return
    if user_id is not None:
        access_changed([user_access_group(int(user_id))])


def _memberships_changing(sender, instance, action, reverse, pk_set, **kwargs) -> None:
    """``user.groups`` or ``group.user_set`` lost members: those users' sockets check again."""
    if action == "pre_clear" and reverse:  # group.user_set.clear(): who they are is known only now
        access_changed([user_access_group(pk) for pk in instance.user_set.values_list("pk", flat=True)])
    elif action in ("post_remove", "post_clear") and not reverse:
        access_changed([user_access_group(instance.pk)])
    elif action == "post_remove" and reverse:
        access_changed([user_access_group(pk) for pk in pk_set or ()])


def connect_signals() -> None:
    user_model = get_user_model()
    for model in (PipelineShare, TeamShare, Pipeline):
        post_save.connect(_pipeline_changed, sender=model, dispatch_uid=f"revocation-save-{model.__name__}")
    for model in (PipelineShare, TeamShare, Pipeline, Run):
        post_delete.connect(_pipeline_changed, sender=model, dispatch_uid=f"revocation-delete-{model.__name__}")
    post_save.connect(_membership_changed, sender=TeamMembership, dispatch_uid="revocation-save-membership")
    post_delete.connect(_membership_changed, sender=TeamMembership, dispatch_uid="revocation-delete-membership")
    post_save.connect(_user_changed, sender=user_model, dispatch_uid="revocation-save-user")
    post_delete.connect(_user_changed, sender=user_model, dispatch_uid="revocation-delete-user")
    post_delete.connect(_token_deleted, sender=ApiToken, dispatch_uid="revocation-delete-token")
    post_delete.connect(_session_deleted, sender=Session, dispatch_uid="revocation-delete-session")
    m2m_changed.connect(_memberships_changing, sender=user_model.groups.through,
                        dispatch_uid="revocation-memberships")
