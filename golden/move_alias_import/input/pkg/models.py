"""Domain models."""
import pkg.storage as store


class Model:
    fields = ()

    def persist(self):
        return store.save(self)
