from p.a import f

Y = f()
