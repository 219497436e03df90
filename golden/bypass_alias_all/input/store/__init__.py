from .models import Item as StoreItem
from .views import show
