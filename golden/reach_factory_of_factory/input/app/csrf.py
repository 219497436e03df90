from app.decorators import decorator_from_middleware
from app.middleware import Middleware

requires_token = decorator_from_middleware(Middleware)
