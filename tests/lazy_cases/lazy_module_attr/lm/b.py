from lm.a import A

B = A
