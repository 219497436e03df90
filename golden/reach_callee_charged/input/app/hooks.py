from app import plugins

HOOKS = [plugins.load]
