"""The job queue."""
from pkg.jobs import Job

_pending = []


class UrgentJob(Job):
    priority = 10


def enqueue(job):
    _pending.append(job)
    return len(_pending)
