"""Background tasks."""
from pkg.worker import start, \
    stop


class Task:
    name = "task"


def launch(task):
    return start(task.name)


def shutdown(task):
    return stop(task.name)
