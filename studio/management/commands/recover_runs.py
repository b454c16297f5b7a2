"""Mark runs whose driver process is gone as FAILED, so none stays RUNNING forever.

Runs of the shared session are left to the session driver, which takes them back when it
starts (``studio.runs.session_driver``), while session mode is on."""
import psutil
from django.conf import settings
from django.core.management.base import BaseCommand

from studio.models import TERMINAL_STATUSES, Run, RunStatus
from studio.runs.events import set_status
from studio.runs.placement import SESSION


class Command(BaseCommand):
    help = "Mark unfinished runs whose driver process no longer exists as FAILED (driver lost)."

    def handle(self, *args, **options):
        lost = 0
        for run in Run.objects.exclude(status__in=TERMINAL_STATUSES):
            if run.placement == SESSION and settings.SESSION_MODE:
                continue
            if run.driver_pid and psutil.pid_exists(run.driver_pid) and _is_driver(run.driver_pid, run.id):
                continue
            cause = "driver lost" if run.driver_pid else "studio restarted before the run was launched"
            status = RunStatus.CANCELED if run.status == RunStatus.CANCELING else RunStatus.FAILED
            set_status(run.id, status, cause=cause)
            lost += 1
        if lost:
            self.stdout.write(f"marked {lost} run(s) whose driver is gone")


# The driver's module, and its former name (drivers started before an upgrade, or by hand)
DRIVER_MODULES = ("studio.runs.driver", "studio.runner")


def _is_driver(pid: int, run_id: int) -> bool:
    try:
        cmdline = psutil.Process(pid).cmdline()
    except psutil.Error:
        return False
    return any(module in cmdline for module in DRIVER_MODULES) and str(run_id) in cmdline
