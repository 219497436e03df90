from mech import Body, Rigid


class Joints(Body):
    parts = (Rigid,)
