from mech import Rigid


class Body(Rigid):
    pass
