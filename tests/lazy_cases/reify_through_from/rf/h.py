lazy from rf.f import v
