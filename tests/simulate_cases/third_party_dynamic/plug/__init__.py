import importlib

for dep in ("json", "decimal"):
    __import__(dep)
xml = importlib.import_module("xml.dom")

from plug import base
