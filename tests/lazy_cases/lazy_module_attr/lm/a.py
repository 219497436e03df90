lazy import lm.b

A = 1
B = lm.b.B + 1
