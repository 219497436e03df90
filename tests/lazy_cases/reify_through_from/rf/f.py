from rf.i import W

v = W
