"""Change tokens: a random token on each run and pipeline row, new whenever something their REST answers show changes.

Cached responses (``studio.api.caching``) are keyed by these tokens, so an answer cached
before a change is never served after it: a token is written in the same transaction as
the change it stands for, read from the database together with the authorization check
(``studio.access.access_to_run``), and random, so it never comes back (not after a
rollback, a restored database or a test database made afresh).

What each token covers:

- ``Run.change_token``: the run's row, its checkpoints and savepoint requests, the
  checkpoint it was restored from, and the name of the user who started it;
- ``Pipeline.change_token``: the pipeline's row (its name);
- ``Pipeline.runs_change_token``: which runs the pipeline has, and everything their
  ``change_token`` covers.

A driver's heartbeat (``Run.heartbeat_at``, every 2 s per running run) is the one write no answer shows: it
goes through ``RunQuerySet.beat`` and moves no token, so a running run's cached answers stay cached
between the changes they show (its status, attempts, checkpoints) instead of being built again at every
beat. Whether a driver is alive is the studio's to judge (``studio.runs.liveness``), and what it
concludes (a lost driver, a run restarting) is a status change, which moves the tokens.

Every other way the studio writes these rows through the ORM moves the tokens: ``save()`` and
``delete()`` (overridden on the models), ``QuerySet.update()``, ``bulk_create()`` and
``delete()`` (the querysets below, which are also the models' base managers, so the
``SET_NULL`` updates of a deletion go through them too), and renaming a user (a signal,
``connect_signals``). The one way around them is raw SQL, which the studio does not use
on these tables; a new write path must go through the ORM or call a queryset's ``touch_runs``.
Cascades need nothing more: a deleted run's answers are 404s, a deleted pipeline's run
list is empty, and neither is cached.
"""
from __future__ import annotations

import secrets

from django.db import models, transaction
from django.db.models import Q


def new_token() -> str:
    """A fresh change token (64 random bits as hex)."""
    return secrets.token_hex(8)


def _related(queryset: models.QuerySet, field: str) -> models.Manager:
    """The manager of the model ``queryset``'s rows point at through ``field`` (this module names no model:
    the models import it)."""
    return queryset.model._meta.get_field(field).related_model.objects


class PipelineQuerySet(models.QuerySet):
    """Pipelines: ``update()`` moves ``change_token`` (unless it only moves ``runs_change_token``)."""

    def update(self, **values):
        if set(values) != {"runs_change_token"}:
            values["change_token"] = new_token()
        return super().update(**values)

    def touch_runs(self) -> int:
        """New ``runs_change_token``s: one of these pipelines' runs was added, changed or deleted."""
        return self.update(runs_change_token=new_token())


class RunQuerySet(models.QuerySet):
    """Runs: ``update()`` (even with no values), ``bulk_create()`` and ``delete()`` move the tokens.

    Lock order: the runs' rows, then their pipelines' (as ``studio.runs.events.record_event``
    holds its run's row before anything else), so two writers never wait for each other in a circle.
    """

    def update(self, **values):
        token = new_token()
        with transaction.atomic(savepoint=False):
            count = super().update(**values, change_token=token)
            if count:  # the runs this update wrote are the ones with its token
                self._pipelines(self.model.objects.filter(change_token=token).values("pipeline_id")).touch_runs()
            return count

    def bulk_create(self, objs, *args, **kwargs):
        with transaction.atomic(savepoint=False):
            created = super().bulk_create(objs, *args, **kwargs)
            self._pipelines({run.pipeline_id for run in created}).touch_runs()
        return created

    def beat(self, moment) -> int:
        """Write a heartbeat (``heartbeat_at = moment``) and nothing else: the one write that moves no token, as no
        answer shows it (see the module docstring). The number of runs written."""
        return super().update(heartbeat_at=moment)

    def delete(self):
        with transaction.atomic(savepoint=False):
            pipelines = set(self.values_list("pipeline_id", flat=True))
            deleted = super().delete()
            self._pipelines(pipelines).touch_runs()
            return deleted

    def showing_checkpoints(self, run_ids, checkpoint_pks) -> "RunQuerySet":
        """The checkpoints' own runs and the runs restored from them: both show the checkpoints."""
        return self.filter(Q(pk__in=run_ids) | Q(restored_from__in=checkpoint_pks))

    def _pipelines(self, pipeline_ids) -> PipelineQuerySet:
        return _related(self, "pipeline").filter(pk__in=pipeline_ids)


class RunChildQuerySet(models.QuerySet):
    """Rows a run's answers show (checkpoints, savepoint requests): writes touch their runs."""

    def touch_runs(self) -> None:
        """New ``change_token``s for the runs that show these rows (and ``runs_change_token``s for their
        pipelines)."""
        _related(self, "run").filter(pk__in=self.values("run_id")).update()

    def update(self, **values):
        with transaction.atomic(savepoint=False):
            self.touch_runs()  # first, while the filter still selects the rows it selected before
            return super().update(**values)

    def bulk_create(self, objs, *args, **kwargs):
        with transaction.atomic(savepoint=False):
            created = super().bulk_create(objs, *args, **kwargs)
            _related(self, "run").filter(pk__in={row.run_id for row in created}).update()
        return created

    def delete(self):
        with transaction.atomic(savepoint=False):
            self.touch_runs()
            return super().delete()


class CheckpointQuerySet(RunChildQuerySet):
    """Checkpoints: writes also touch the runs restored from them."""

    def touch_runs(self) -> None:
        """Touch the checkpoints' own runs and the runs restored from them (both show the checkpoint)."""
        _related(self, "run").showing_checkpoints(self.values("run_id"), self.values("pk")).update()


class SavepointRequestQuerySet(RunChildQuerySet):
    """Savepoint requests: their run's answer lists them."""


def _user_saved(sender, instance, created, update_fields=None, **kwargs) -> None:
    """A renamed user: the runs they started show their name."""
    if created or (update_fields is not None and "username" not in update_fields):
        return  # a login (last_login) or a password change renames nobody
    from django.apps import apps

    apps.get_model("studio", "Run").objects.filter(created_by=instance).update()


def connect_signals() -> None:
    from django.contrib.auth import get_user_model
    from django.db.models.signals import post_save

    post_save.connect(_user_saved, sender=get_user_model(), dispatch_uid="change_tokens.user_saved")
