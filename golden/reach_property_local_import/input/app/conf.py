from app.registry import Registry


class Settings:
    @property
    def configured(self):
        return Registry("settings").name != ""


settings = Settings()
