from rf.h import v

W = 1
