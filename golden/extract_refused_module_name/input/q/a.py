from q import b

TAG = __name__.upper()
VALUE = b.SEED
