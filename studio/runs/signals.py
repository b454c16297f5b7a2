"""What the run's life announces, for whoever listens: the features and the sockets subscribe in
their ``AppConfig.ready()``, and the run's core never imports them (Django's own signals, Flink's
``JobStatusListener``).

``run_event_recorded``: a run's event was stored and its transaction committed, sent in
whichever process recorded it (a run's driver, a web or Celery worker), after the event went
to the run's socket group. Keyword arguments: ``run_id``, ``pipeline_id``, ``event`` (the stored
event as sockets and REST show it: ``{"seq", "type", "ts", "data"}``) and ``status_changed``
(the event changed the run's status), and ``batch``: a dict the receivers share for the events of one
stored batch (one transaction, fanned out together), holding ``"pipelines"`` (the ids of the batch's
pipelines), where a receiver may keep what it read for the batch's other events (the alert rules of
the batch's pipelines: read once a batch, not once an event), under a key of its own. It is sent with ``send_robust``: a receiver that raises is
logged and the others still run, so a listener can never break the recording of events.
"""
from django.dispatch import Signal

run_event_recorded = Signal()
