from app.models import settings


class Options:
    database = settings.DATABASE
