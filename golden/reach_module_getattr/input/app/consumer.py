from app.models import DEFAULT

CURRENT = DEFAULT
