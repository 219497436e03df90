from pkg.a import Base

counter = 0


class Counted(Base):
    pass
