lazy import lm.a

C = 3
