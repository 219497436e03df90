class Rigid:
    mass = 1.0
