"""Jobs and submitting them."""
import pkg.sched.queue


class Job:
    priority = 0


def submit(job):
    return pkg.sched.queue.enqueue(job)
