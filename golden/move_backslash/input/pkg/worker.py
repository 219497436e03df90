"""The worker pool."""
from pkg.tasks import Task

RUNNING = set()


class PeriodicTask(Task):
    name = "periodic"


def start(name):
    RUNNING.add(name)
    return name


def stop(name):
    RUNNING.discard(name)
    return name
